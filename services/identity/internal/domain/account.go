// Package domain holds identity's rules as plain Go: accounts and their kinds, passwords,
// sessions, organization roles and the current-user flags, login throttling and the
// eligibility rules. No SQL, proto or HTTP here.
package domain

import (
	"fmt"
	"net/mail"
	"regexp"
	"strings"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Kind is what an account is.
type Kind string

const (
	Individual  Kind = "individual"
	Business    Kind = "business"     // an organization's own (billing) account
	GroupParent Kind = "group_parent" // a group account with child accounts
	Child       Kind = "child"        // a child account of a group: cannot change the group subscription
)

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool {
	switch k {
	case Individual, Business, GroupParent, Child:
		return true
	}
	return false
}

// Account flags that are granted per account (staff rights and account features), stored
// as data so adding one is not a schema change.
const (
	FlagEmployee          = "employee"
	FlagCreditCardAdmin   = "credit_card_admin"
	FlagWebDev            = "web_dev"
	FlagInvoiceAdmin      = "invoice_admin"
	FlagProSupport        = "pro_support"
	FlagPremiumSupport    = "premium_support"
	FlagCorporate         = "corporate"
	FlagCompanyDispatcher = "company_dispatcher"
	FlagSmartGroups       = "smart_groups"
	FlagInsurance         = "insurance"
	FlagTrackingRole      = "tracking_role"
	FlagDispatchLowca     = "dispatch_lowca"
	FlagJeppesenMa        = "jeppesen_ma_dispatch"
)

// KnownFlags lists every account flag.
var KnownFlags = []string{FlagEmployee, FlagCreditCardAdmin, FlagWebDev, FlagInvoiceAdmin, FlagProSupport,
	FlagPremiumSupport, FlagCorporate, FlagCompanyDispatcher, FlagSmartGroups, FlagInsurance, FlagTrackingRole,
	FlagDispatchLowca, FlagJeppesenMa}

// Role is a member's role in an organization.
type Role string

const (
	RoleOwner         Role = "owner"
	RoleUserAdmin     Role = "user_admin"
	RoleAircraftAdmin Role = "aircraft_admin"
	RoleMember        Role = "member"
	RoleDispatcher    Role = "dispatcher"
)

// Account is a store account. Email is stored normalised (trimmed, lower case).
type Account struct {
	UUID             string
	Email            string
	PasswordHash     string // empty: no password (created at checkout; cannot log in yet)
	Kind             Kind
	ParentUUID       string // the group parent of a child account
	FSPAdminUUID     string
	IsEU             bool
	MarketingConsent bool
	Military         bool
	Flags            map[string]bool
	CreatedAt        time.Time
}

// Organization is a group of accounts with one billing account.
type Organization struct {
	UUID        string
	Name        string
	AccountUUID string // the organization's own (business) account
	MemberCount int
}

// Membership is an account's place in an organization.
type Membership struct {
	Org   Organization
	Roles []Role
}

// Has reports whether the membership carries role.
func (m Membership) Has(r Role) bool {
	for _, x := range m.Roles {
		if x == r {
			return true
		}
	}
	return false
}

// IsAdmin reports whether the member administers the organization's users.
func (m Membership) IsAdmin() bool { return m.Has(RoleOwner) || m.Has(RoleUserAdmin) }

// Profile is an account with its memberships: everything the current-user flags derive from.
type Profile struct {
	Account     Account
	Memberships []Membership
}

// Primary is the organization the store acts for (the first membership), if any.
func (p Profile) Primary() (Membership, bool) {
	if len(p.Memberships) == 0 {
		return Membership{}, false
	}
	return p.Memberships[0], true
}

// UserFlags are the current-user flags of spec 001 §6 that identity is the source of.
type UserFlags struct {
	IsOrgOwner, IsGroupOwner, IsOrgAircraftAdmin, IsOrgUserAdmin, IsOrgMember  bool
	IsParent, IsChild, IsCorporate, IsCompanyDispatcher                        bool
	IsEmployee, IsWebDev, IsInvoiceAdmin, IsProSupport, IsPremiumSupport       bool
	HasSmartGroups, HasInsurance, HasTrackingRole, HasDispatchLowca, HasJeppMa bool
	IsCreditCardAdmin, IsMilitary                                              bool
}

// Flags derives the current-user flags. isOrgUserAdmin is true only when the user is not
// also the owner (spec 001 §6); every member of an organization, owner included, is an
// organization member, so checkout fills the organization's name and account for them.
func (p Profile) Flags() UserFlags {
	a := p.Account
	f := UserFlags{
		IsParent: a.Kind == GroupParent, IsChild: a.Kind == Child || a.ParentUUID != "",
		IsGroupOwner:        a.Kind == GroupParent,
		IsCorporate:         a.Flags[FlagCorporate],
		IsCompanyDispatcher: a.Flags[FlagCompanyDispatcher],
		IsEmployee:          a.Flags[FlagEmployee], IsWebDev: a.Flags[FlagWebDev], IsInvoiceAdmin: a.Flags[FlagInvoiceAdmin],
		IsProSupport: a.Flags[FlagProSupport], IsPremiumSupport: a.Flags[FlagPremiumSupport],
		HasSmartGroups: a.Flags[FlagSmartGroups], HasInsurance: a.Flags[FlagInsurance], HasTrackingRole: a.Flags[FlagTrackingRole],
		HasDispatchLowca: a.Flags[FlagDispatchLowca], HasJeppMa: a.Flags[FlagJeppesenMa],
		IsCreditCardAdmin: a.Flags[FlagCreditCardAdmin], IsMilitary: a.Military,
	}
	for _, m := range p.Memberships {
		f.IsOrgMember = true
		f.IsOrgOwner = f.IsOrgOwner || m.Has(RoleOwner)
		f.IsOrgAircraftAdmin = f.IsOrgAircraftAdmin || m.Has(RoleAircraftAdmin)
		f.IsOrgUserAdmin = f.IsOrgUserAdmin || m.Has(RoleUserAdmin)
		f.IsCompanyDispatcher = f.IsCompanyDispatcher || m.Has(RoleDispatcher)
	}
	if f.IsOrgOwner {
		f.IsOrgUserAdmin = false
	}
	return f
}

// Roles answers the distinct roles over every membership, for the other services.
func (p Profile) Roles() []string {
	seen := map[Role]bool{}
	var out []string
	for _, m := range p.Memberships {
		for _, r := range m.Roles {
			if !seen[r] {
				seen[r] = true
				out = append(out, string(r))
			}
		}
	}
	return out
}

// emailPattern is the "standard pattern" of the military form: local@domain.tld, no spaces.
var emailPattern = regexp.MustCompile(`^[A-Za-z0-9._%+'\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)+$`)

// NormalizeEmail trims and lower-cases an address. Spaces inside become plus signs, as the
// page does (a "+" in a query string arrives as a space).
func NormalizeEmail(s string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", "+"))
}

// ValidEmail reports whether s (normalised) is a plain address.
func ValidEmail(s string) bool {
	if len(s) > 254 || !emailPattern.MatchString(s) {
		return false
	}
	_, err := mail.ParseAddress(s)
	return err == nil
}

// Domain answers the part after the @ of a valid address.
func Domain(email string) string {
	i := strings.LastIndexByte(email, '@')
	return email[i+1:]
}

// Messages the page shows.
const (
	MsgCreateAccountFailed = "There was an error while creating a new account"
	MsgPasswordsDiffer     = "Passwords do not match"
	MsgLoginFailed         = "Failed to login"
	MsgEmailInvalid        = "Email address is invalid, please try again."
	MsgCodeError           = "There was an error with your verification request, please try again."
)

// MinPasswordLength follows NIST SP 800-63B (8 at least; no composition rules).
const (
	MinPasswordLength = 8
	MaxPasswordLength = 128
)

// NewAccountInput is a create-account form.
type NewAccountInput struct {
	Email, Password, ConfirmPassword string
	IsEU, Consent                    bool
}

// Validate answers every field error of the form at once.
func (in NewAccountInput) Validate() error {
	var fe []errs.FieldError
	email := NormalizeEmail(in.Email)
	switch {
	case email == "":
		fe = append(fe, errs.FieldError{Field: "username", Message: "Please enter your email address."})
	case !ValidEmail(email):
		fe = append(fe, errs.FieldError{Field: "username", Message: "Please enter a valid email address."})
	}
	if msg := PasswordPolicyProblem(in.Password, email); msg != "" {
		fe = append(fe, errs.FieldError{Field: "password", Message: msg})
	}
	if in.Password != in.ConfirmPassword {
		fe = append(fe, errs.FieldError{Field: "confirmPassword", Message: MsgPasswordsDiffer})
	}
	if len(fe) == 0 {
		return nil
	}
	msgs := make([]string, len(fe))
	for i, f := range fe {
		msgs[i] = f.Message
	}
	return &errs.Error{Code: errs.Invalid, Message: strings.Join(msgs, " "), Fields: fe}
}

// PasswordProblem checks the length rules and answers the message to show, or "".
func PasswordProblem(p string) string {
	n := len([]rune(p))
	switch {
	case n == 0:
		return "Please enter a password."
	case n < MinPasswordLength:
		return fmt.Sprintf("Passwords must be at least %d characters.", MinPasswordLength)
	case n > MaxPasswordLength:
		return fmt.Sprintf("Passwords must be at most %d characters.", MaxPasswordLength)
	}
	return ""
}

// UserPage is one page of an organization's users.
type UserPage struct {
	Users []Profile
	Total int
}
