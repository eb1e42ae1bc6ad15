// Package domain holds the rules of licence allocation: which licensing methods can be
// assigned to which targets, what a subscription's state grants, how a pool counts, who may
// assign what, and the messages a client sees. No SQL, proto or HTTP here.
package domain

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Method is a licensing method (spec 000 §3 pricing types).
type Method string

const (
	UserAllocation Method = "USER_ALLOCATION"
	TailAllocation Method = "TAIL_ALLOCATION"
	AnyAllocation  Method = "ANY_ALLOCATION"
	PerUser        Method = "PER_USER"
	PerTail        Method = "PER_TAIL"
	PerDevice      Method = "PER_DEVICE"
)

// ParseMethod answers the method of a licensing-method string; ok is false for an add-on
// that is not licensed per seat (empty, DEFAULT or unknown), which has no pool.
func ParseMethod(s string) (Method, bool) {
	m := Method(strings.ToUpper(strings.TrimSpace(s)))
	switch m {
	case UserAllocation, TailAllocation, AnyAllocation, PerUser, PerTail, PerDevice:
		return m, true
	}
	return "", false
}

// TargetType is what an add-on is assigned to.
type TargetType string

const (
	User TargetType = "USER"
	Tail TargetType = "TAIL"
)

// ParseTarget reads a target type (case-insensitive).
func ParseTarget(s string) (TargetType, error) {
	switch TargetType(strings.ToUpper(strings.TrimSpace(s))) {
	case User:
		return User, nil
	case Tail:
		return Tail, nil
	}
	return "", errs.Field("targetType", "targetType must be USER or TAIL")
}

// Targets answers what a method's licences may be assigned to. Per-device licences are
// counted by the app's device registrations, not assigned here, so they have none.
func (m Method) Targets() []TargetType {
	switch m {
	case UserAllocation, PerUser:
		return []TargetType{User}
	case TailAllocation, PerTail:
		return []TargetType{Tail}
	case AnyAllocation:
		return []TargetType{User, Tail}
	}
	return nil
}

// Allows reports whether the method's licences may go to targets of type t.
func (m Method) Allows(t TargetType) bool { return slices.Contains(m.Targets(), t) }

// Subscription is the whole state a subscription-changed event carries.
type Subscription struct {
	ID             string
	AccountID      string
	OrganizationID string
	PlanCode       string
	AddOns         []AddOn
	Quantity       int
	TermStart      time.Time
	TermEnd        time.Time
	Status         string // active, lapsed or cancelled
	Version        int64
	ChangedAt      time.Time
}

// AddOn is one add-on a subscription holds.
type AddOn struct {
	Code     string
	Method   string
	Quantity int
}

// Owner answers whose pools a subscription fills: its organization when the buyer is one,
// else the buying account.
func (s Subscription) Owner() string {
	if s.OrganizationID != "" {
		return s.OrganizationID
	}
	return s.AccountID
}

// Active reports whether the subscription grants anything: not lapsed or cancelled.
func (s Subscription) Active() bool { return s.Status == "" || s.Status == "active" }

// Grant is one pooled add-on of a subscription.
type Grant struct {
	Code     string
	Method   Method
	Quantity int
	IsPlan   bool
}

// Grants answers the pooled add-ons of the subscription: those with a per-seat licensing
// method. An add-on without its own quantity takes the subscription's licence count. A
// lapsed or cancelled subscription grants nothing.
func (s Subscription) Grants() []Grant {
	if !s.Active() {
		return nil
	}
	var out []Grant
	seen := map[string]bool{}
	for _, a := range s.AddOns {
		m, ok := ParseMethod(a.Method)
		if !ok || a.Code == "" || seen[a.Code] {
			continue
		}
		seen[a.Code] = true
		q := a.Quantity
		if q <= 0 {
			q = max(s.Quantity, 0)
		}
		out = append(out, Grant{Code: a.Code, Method: m, Quantity: q, IsPlan: a.Code == s.PlanCode})
	}
	return out
}

// Newer reports whether s supersedes a stored state of the same subscription (version, then
// change time): a redelivered or out-of-order older event does not.
func (s Subscription) Newer(version int64, changedAt time.Time) bool {
	if s.Version != version {
		return s.Version > version
	}
	return s.ChangedAt.After(changedAt)
}

// Filing is a subscription state to file: inserted when it was not stored (Existed false),
// else replacing the stored one and its grants, after which the assignments of the Expire
// owners that their licences no longer cover expire.
type Filing struct {
	Sub     Subscription
	Existed bool
	Expire  []string
}

// Pool is an owner's licences of one add-on.
type Pool struct {
	Code     string
	Method   Method
	Bought   int
	Assigned int
	Expired  int
	IsPlan   bool
	TermEnd  time.Time
}

// Free answers how many licences are left to assign.
func (p Pool) Free() int { return max(p.Bought-p.Assigned, 0) }

// MsgInsufficient is the start of the refusal when a pool is short; the client detects it
// (spec 001 §5) and names the code that follows.
const MsgInsufficient = "Insufficient addOn quantity"

// ErrInsufficient is the 400 of an assignment a pool cannot cover.
func ErrInsufficient(code string) error {
	return errs.E(errs.Invalid, "%s for %s", MsgInsufficient, code)
}

var tailPattern = regexp.MustCompile(`^[A-Z0-9][A-Z0-9-]{1,9}$`)

// NormalizeTarget checks and normalizes a target id: tails are registration marks, upper
// case, 2 to 10 letters, digits or dashes; users are account ids.
func NormalizeTarget(t TargetType, id string) (string, error) {
	id = strings.TrimSpace(id)
	if t == Tail {
		id = strings.ToUpper(id)
		if !tailPattern.MatchString(id) {
			return "", errs.Field("targetId", "A tail number is 2 to 10 letters, digits or dashes.")
		}
		return id, nil
	}
	if id == "" || len(id) > 64 {
		return "", errs.Field("targetId", "targetId is required")
	}
	return id, nil
}

// Codes normalizes a list of add-on codes: trimmed, without empties or duplicates.
func Codes(in []string) []string {
	var out []string
	for _, c := range in {
		for _, part := range strings.Split(c, ",") {
			if part = strings.TrimSpace(part); part != "" && !slices.Contains(out, part) {
				out = append(out, part)
			}
		}
	}
	return out
}

// Role names of identity's organization memberships.
const (
	RoleOwner         = "owner"
	RoleUserAdmin     = "user_admin"
	RoleAircraftAdmin = "aircraft_admin"
)

// Actor is who asks: their account, their organization's account and their roles in it;
// Staff is an employee (auth.Caller.IsEmployee), who holds every account's Members right.
type Actor struct {
	AccountID  string
	OrgAccount string
	Roles      []string
	Staff      bool
}

// Access is what an actor may do with one owner's licences.
type Access struct {
	AssignUsers bool
	AssignTails bool
	// ReadOwn: the actor may read the allocations of their own user (every member may).
	ReadOwn bool
}

// Any reports whether the actor may do anything at all.
func (a Access) Any() bool { return a.AssignUsers || a.AssignTails || a.ReadOwn }

// Admin reports whether the actor may read and assign beyond their own user.
func (a Access) Admin() bool { return a.AssignUsers || a.AssignTails }

// CanAssign reports whether the actor may assign to targets of type t.
func (a Access) CanAssign(t TargetType) bool {
	if t == User {
		return a.AssignUsers
	}
	return a.AssignTails
}

// AccessTo answers what actor may do with owner's licences. The holders of the Members
// right of docs/authorization.md (auth.Members: the account itself, the organization's
// owner and user admins, employees) everything; an aircraft admin tails (the
// organization's aircraft are theirs to equip); any other member reads their own;
// anybody else nothing.
func AccessTo(actor Actor, owner string) Access {
	if owner == "" || actor.AccountID == "" {
		return Access{}
	}
	if actor.AccountID == owner || actor.Staff {
		return Access{AssignUsers: true, AssignTails: true, ReadOwn: true}
	}
	if actor.OrgAccount != owner {
		return Access{}
	}
	a := Access{ReadOwn: true}
	for _, r := range actor.Roles {
		switch r {
		case RoleOwner, RoleUserAdmin:
			a.AssignUsers, a.AssignTails = true, true
		case RoleAircraftAdmin:
			a.AssignTails = true
		}
	}
	return a
}

// ErrForbidden is the 403 of an actor without the right.
func ErrForbidden(what string) error {
	return errs.E(errs.Forbidden, "You are not allowed to %s.", what)
}

// Change is one assignment moved, for the allocation-changed event.
type Change struct {
	Owner      string
	Code       string
	TargetType TargetType
	TargetID   string
	Action     string // assigned, unassigned or expired
	Actor      string
	At         time.Time
}

// String names a change in logs.
func (c Change) String() string {
	return fmt.Sprintf("%s %s %s %s/%s", c.Owner, c.Action, c.Code, c.TargetType, c.TargetID)
}
