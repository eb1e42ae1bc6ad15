// Package app provides the use cases of licence allocation: building pools from
// subscription-changed events (idempotently, through the inbox), assigning and unassigning
// licences one at a time or in bulk (all or nothing, never beyond a pool), expiring
// assignments whose licences lapsed, and the reads of the allocation panel.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/allocation/internal/domain"
)

// Store is allocation's storage as the use cases need it. Its changes take a closure and
// own their transaction: the owner's lock, what the closure decides and the events it
// answers commit together or not at all.
type Store interface {
	SubscriptionFiler
	// UpdateLicences, in one transaction holding the owner's lock, loads the owner's pools at
	// now with the assignments of the targets named, calls update, and saves the changes it
	// recorded (domain.Licences.Changes) with the events it answers. An error from update
	// saves nothing.
	UpdateLicences(ctx context.Context, owner string, targetIDs []string, now time.Time, update func(*domain.Licences) ([]kafka.Event, error)) error
	// Expire, in one transaction holding the owner's lock, turns the owner's assignments no
	// live licence covers any more into expired allocations (per add-on, those beyond the
	// live quantity, newest first) and saves the events announce answers for them.
	Expire(ctx context.Context, owner string, now time.Time, announce Announce) error
	// OwnersToSweep answers owners holding active assignments whose licences may have ended.
	OwnersToSweep(ctx context.Context, now time.Time) ([]string, error)
	// Assignments answers an owner's assignments, of one target type when t is set, of the
	// given targets when ids is not empty.
	Assignments(ctx context.Context, owner string, t domain.TargetType, ids []string) ([]domain.Assignment, error)
	// AssignmentsOf answers the assignments of several owners, by owner.
	AssignmentsOf(ctx context.Context, owners []string, t domain.TargetType) (map[string][]domain.Assignment, error)
	// Tails answers an owner's recorded tails, sorted.
	Tails(ctx context.Context, owner string) ([]string, error)
	// ReadPools answers an owner's pools at now.
	ReadPools(ctx context.Context, owner string, now time.Time) (map[string]*domain.Pool, error)
}

// SubscriptionFiler files subscription states, in a transaction of its own or in the one it
// was bound to (the inbox consumer's).
type SubscriptionFiler interface {
	// FileSubscriptions reads and locks the stored states of subs' subscriptions, then locks
	// every owner subs or the stored states name (in one order); calls decide with the stored
	// states; files the filings it answers in their order, each replacing its subscription's
	// grants and then expiring its Expire owners' assignments no longer covered; and saves the
	// events announce answers for the assignments expired. Filing nothing writes nothing.
	FileSubscriptions(ctx context.Context, subs []domain.Subscription, decide func(stored map[string]domain.Stored) []domain.Filing,
		now time.Time, announce Announce) error
}

// Announce answers the events of assignments that expired, to be saved with them. (An alias,
// so that the adapters' method signatures, which cannot name it, match.)
type Announce = func(ctx context.Context, expired []domain.Change) ([]kafka.Event, error)

// Directory lists the users of the caller's organization (identity, on the caller's behalf).
type Directory interface {
	Members(ctx context.Context) ([]domain.Member, error)
}

// Service is the allocation use cases.
type Service struct {
	store Store
	dir   Directory
	now   func() time.Time
	log   *slog.Logger
}

// New builds the service. dir may be nil (no user listing, users not checked).
func New(store Store, dir Directory, now func() time.Time, log *slog.Logger) *Service {
	return &Service{store: store, dir: dir, now: now, log: log}
}

// ---------------------------------------------------------------------------- events in

// HandleSubscriptionChanges applies subscription states, in order, through f (bound to the
// batch inbox consumer's transaction, or the store's own): each subscription's grants are
// replaced by the state it carries unless a newer state is stored, and assignments its
// licences no longer cover become expired allocations. The effect is that of applying the
// states one after another; applying the same one twice changes nothing. A batch costs a
// fixed handful of statements: the stored states read and locked in one, every owner locked
// in one, then the writes of all events pipelined in one round trip.
func (s *Service) HandleSubscriptionChanges(ctx context.Context, f SubscriptionFiler, in []domain.Subscription) error {
	subs := make([]domain.Subscription, 0, len(in))
	for _, sub := range in {
		if sub.ID == "" || sub.Owner() == "" {
			s.log.WarnContext(ctx, "subscription-changed without subscription or owner ignored", "subscription", sub.ID)
			continue
		}
		subs = append(subs, sub)
	}
	if len(subs) == 0 {
		return nil
	}
	return f.FileSubscriptions(ctx, subs, func(stored map[string]domain.Stored) []domain.Filing {
		var out []domain.Filing
		for _, sub := range subs {
			st, existed := stored[sub.ID]
			if existed && !sub.Newer(st.Version, st.ChangedAt) {
				continue
			}
			f := domain.Filing{Sub: sub, Existed: existed}
			// Only a subscription stored before can take licences from an owner: a new one
			// adds grants and removes none. (Licences whose term ended meanwhile are the
			// sweep's.) A new buyer's first subscription therefore expires nothing and is not
			// checked.
			if existed {
				f.Expire = slices.Compact([]string{sub.Owner(), st.Owner})
			}
			out = append(out, f)
			// What the next event of the same subscription in this batch is compared with:
			// what PostgreSQL will have stored (microseconds, as pgx sends them).
			stored[sub.ID] = domain.Stored{Owner: sub.Owner(), Version: sub.Version, ChangedAt: sub.ChangedAt.Truncate(time.Microsecond)}
		}
		return out
	}, s.now(), s.announce)
}

// Apply applies subscription states in one transaction of the store's (dev seed, tests).
func (s *Service) Apply(ctx context.Context, subs ...domain.Subscription) error {
	return s.HandleSubscriptionChanges(ctx, s.store, subs)
}

// Sweep expires the assignments of owners whose terms ended since the last event.
func (s *Service) Sweep(ctx context.Context) error {
	owners, err := s.store.OwnersToSweep(ctx, s.now())
	if err != nil {
		return err
	}
	for _, o := range owners {
		if err := s.store.Expire(ctx, o, s.now(), s.announce); err != nil {
			return err
		}
	}
	return nil
}

// announce logs expired assignments per owner and answers their allocation-changed events.
func (s *Service) announce(ctx context.Context, expired []domain.Change) ([]kafka.Event, error) {
	count := map[string]int{}
	var owners []string
	for _, c := range expired {
		if count[c.Owner] == 0 {
			owners = append(owners, c.Owner)
		}
		count[c.Owner]++
	}
	for _, o := range owners {
		s.log.InfoContext(ctx, "assignments expired", "owner", o, "count", count[o])
	}
	return changedEvents(expired)
}

// ---------------------------------------------------------------------------- events out

// changedEvents answers one allocation-changed event per change (key: the owner).
func changedEvents(changes []domain.Change) ([]kafka.Event, error) {
	evs := make([]kafka.Event, 0, len(changes))
	for _, c := range changes {
		b, err := proto.Marshal(&eventsv1.AllocationChanged{OwnerId: c.Owner, AddOnCode: c.Code, TargetType: string(c.TargetType),
			TargetId: c.TargetID, Action: c.Action, ActorAccountId: c.Actor, ChangedAt: timestamppb.New(c.At)})
		if err != nil {
			return nil, fmt.Errorf("encode allocation-changed: %w", err)
		}
		evs = append(evs, kafka.Event{Topic: events.TopicAllocationChanged, Key: c.Owner, Payload: b})
	}
	return evs, nil
}

// ---------------------------------------------------------------------------- commands

// Target is add-ons for one target.
type Target struct {
	Type  domain.TargetType
	ID    string
	Codes []string
}

// Allocation is what one target holds.
type Allocation struct {
	Owner   string
	Type    domain.TargetType
	ID      string
	Codes   []string
	Expired []string
}

// OwnerOf answers whose licences an actor means: the owner named, else their organization,
// else their own account.
func OwnerOf(actor domain.Actor, named string) string {
	switch {
	case named != "":
		return named
	case actor.OrgAccount != "":
		return actor.OrgAccount
	}
	return actor.AccountID
}

// Change unassigns then assigns, for one owner, in one transaction: all or nothing. A pool
// that cannot cover the new assignments refuses the whole change with 'Insufficient addOn
// quantity for {code}'.
func (s *Service) Change(ctx context.Context, actor domain.Actor, owner string, assign, unassign []Target) ([]Allocation, error) {
	access := domain.AccessTo(actor, owner)
	all := append(append([]Target(nil), unassign...), assign...)
	if len(all) == 0 {
		return nil, errs.Field("allocations", "Nothing to assign.")
	}
	var ids []string
	var norm [][]Target
	for _, list := range [][]Target{unassign, assign} {
		var out []Target
		for _, t := range list {
			if !access.CanAssign(t.Type) {
				if t.Type == domain.Tail {
					return nil, domain.ErrForbidden("assign licences to aircraft")
				}
				return nil, domain.ErrForbidden("assign licences to users")
			}
			id, err := domain.NormalizeTarget(t.Type, t.ID)
			if err != nil {
				return nil, err
			}
			codes := domain.Codes(t.Codes)
			if len(codes) == 0 {
				return nil, errs.Field("addOnCodes", "addOnCodes is required")
			}
			out = append(out, Target{Type: t.Type, ID: id, Codes: codes})
			ids = append(ids, id)
		}
		norm = append(norm, out)
	}
	unassign, assign = norm[0], norm[1]
	if err := s.checkUsers(ctx, assign); err != nil {
		return nil, err
	}
	now := s.now()
	err := s.store.UpdateLicences(ctx, owner, ids, now, func(l *domain.Licences) ([]kafka.Event, error) {
		for _, t := range unassign {
			for _, c := range t.Codes {
				l.Release(domain.Key{Code: c, TargetType: t.Type, TargetID: t.ID}, actor.AccountID, now)
			}
		}
		var keys []domain.Key
		for _, t := range assign {
			for _, c := range t.Codes {
				keys = append(keys, domain.Key{Code: c, TargetType: t.Type, TargetID: t.ID})
			}
		}
		if err := l.Assign(keys, actor.AccountID, now); err != nil {
			return nil, err
		}
		return changedEvents(l.Changes)
	})
	if err != nil {
		return nil, err
	}
	return s.allocationsOf(ctx, owner, all)
}

// checkUsers refuses user targets that are not users of the caller's organization.
func (s *Service) checkUsers(ctx context.Context, assign []Target) error {
	if s.dir == nil {
		return nil
	}
	var users []string
	for _, t := range assign {
		if t.Type == domain.User {
			users = append(users, t.ID)
		}
	}
	if len(users) == 0 {
		return nil
	}
	members, err := s.dir.Members(ctx)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, m := range members {
		known[m.AccountUUID] = true
	}
	for _, u := range users {
		if !known[u] {
			return errs.Field("targetId", fmt.Sprintf("%s is not a user of your organization.", u))
		}
	}
	return nil
}

func (s *Service) allocationsOf(ctx context.Context, owner string, targets []Target) ([]Allocation, error) {
	var ids []string
	for _, t := range targets {
		if id, err := domain.NormalizeTarget(t.Type, t.ID); err == nil {
			ids = append(ids, id)
		}
	}
	rows, err := s.store.Assignments(ctx, owner, "", ids)
	if err != nil {
		return nil, err
	}
	byTarget := group(owner, rows)
	var out []Allocation
	seen := map[string]bool{}
	for _, t := range targets {
		id, _ := domain.NormalizeTarget(t.Type, t.ID)
		key := string(t.Type) + "/" + id
		if seen[key] {
			continue
		}
		seen[key] = true
		if a, ok := byTarget[key]; ok {
			out = append(out, *a)
		} else {
			out = append(out, Allocation{Owner: owner, Type: t.Type, ID: id})
		}
	}
	return out, nil
}

func group(owner string, rows []domain.Assignment) map[string]*Allocation {
	out := map[string]*Allocation{}
	for _, r := range rows {
		key := string(r.TargetType) + "/" + r.TargetID
		a, ok := out[key]
		if !ok {
			a = &Allocation{Owner: owner, Type: r.TargetType, ID: r.TargetID}
			out[key] = a
		}
		if r.Active {
			a.Codes = append(a.Codes, r.Code)
		} else {
			a.Expired = append(a.Expired, r.Code)
		}
	}
	return out
}

// ---------------------------------------------------------------------------- reads

// List answers allocations of the actor's organization: of users when users is set (a comma
// list, empty for all), of tails when tails is set, of both when neither. A member who
// administers nothing reads only their own.
func (s *Service) List(ctx context.Context, actor domain.Actor, users, tails *string) ([]Allocation, error) {
	owner := OwnerOf(actor, "")
	access := domain.AccessTo(actor, owner)
	if !access.Any() {
		return nil, domain.ErrForbidden("read these allocations")
	}
	var out []Allocation
	read := func(t domain.TargetType, list *string) error {
		ids := domain.Codes([]string{deref(list)})
		if t == domain.Tail {
			for i := range ids {
				ids[i] = strings.ToUpper(ids[i])
			}
		}
		if !access.Admin() {
			if t == domain.Tail {
				return domain.ErrForbidden("read the organization's aircraft allocations")
			}
			if len(ids) > 0 && (len(ids) > 1 || ids[0] != actor.AccountID) {
				return domain.ErrForbidden("read other users' allocations")
			}
			ids = []string{actor.AccountID}
		}
		rows, err := s.store.Assignments(ctx, owner, t, ids)
		if err != nil {
			return err
		}
		g := group(owner, rows)
		keys := make([]string, 0, len(g))
		for k := range g {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, *g[k])
		}
		return nil
	}
	both := users == nil && tails == nil
	if users != nil || both {
		if err := read(domain.User, users); err != nil {
			return nil, err
		}
	}
	if tails != nil || (both && access.Admin()) {
		if err := read(domain.Tail, tails); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Report answers the pools of the actor's organization (administrators only).
func (s *Service) Report(ctx context.Context, actor domain.Actor) (string, map[string]*domain.Pool, error) {
	owner := OwnerOf(actor, "")
	if !domain.AccessTo(actor, owner).Admin() {
		return "", nil, domain.ErrForbidden("read the organization's allocation report")
	}
	pools, err := s.store.ReadPools(ctx, owner, s.now())
	return owner, pools, err
}

// IsPlan answers which of an owner's add-ons are plans, to split assignments.
func (s *Service) IsPlan(ctx context.Context, actor domain.Actor) (map[string]bool, error) {
	pools, err := s.store.ReadPools(ctx, OwnerOf(actor, ""), s.now())
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for c, p := range pools {
		out[c] = p.IsPlan
	}
	return out, nil
}

// Query filters, pages and sorts a listing.
type Query struct {
	Assigned   []string // holds every one of these
	Unassigned []string // holds none of these
	Filter     string   // substring of the e-mail or tail number
	Page, Size int
	Desc       bool
}

func (q Query) normalize() Query {
	if q.Size <= 0 {
		q.Size = 20
	}
	q.Size = min(q.Size, 100)
	q.Page = max(q.Page, 0)
	q.Filter = strings.ToLower(strings.TrimSpace(q.Filter))
	return q
}

// matches applies the add-on filters to what a target holds.
func (q Query) matches(held []string) bool {
	for _, c := range q.Assigned {
		if !slices.Contains(held, c) {
			return false
		}
	}
	for _, c := range q.Unassigned {
		if slices.Contains(held, c) {
			return false
		}
	}
	return true
}

// UserAllocation is a user with what they hold.
type UserAllocation struct {
	domain.Member
	Codes, Expired []string
}

// UsersByAllocation lists the organization's users (identity) with their allocations.
func (s *Service) UsersByAllocation(ctx context.Context, actor domain.Actor, q Query) ([]UserAllocation, int, Query, error) {
	q = q.normalize()
	owner := OwnerOf(actor, "")
	if !domain.AccessTo(actor, owner).AssignUsers {
		return nil, 0, q, domain.ErrForbidden("list the organization's users")
	}
	if s.dir == nil {
		return nil, 0, q, errs.E(errs.Unavailable, "the user directory is not configured")
	}
	members, err := s.dir.Members(ctx)
	if err != nil {
		return nil, 0, q, err
	}
	rows, err := s.store.Assignments(ctx, owner, domain.User, nil)
	if err != nil {
		return nil, 0, q, err
	}
	g := group(owner, rows)
	var all []UserAllocation
	for _, m := range members {
		if q.Filter != "" && !strings.Contains(strings.ToLower(m.Email), q.Filter) {
			continue
		}
		u := UserAllocation{Member: m}
		if a, ok := g[string(domain.User)+"/"+m.AccountUUID]; ok {
			u.Codes, u.Expired = a.Codes, a.Expired
		}
		if q.matches(u.Codes) {
			all = append(all, u)
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if q.Desc {
			return strings.ToLower(all[i].Email) > strings.ToLower(all[j].Email)
		}
		return strings.ToLower(all[i].Email) < strings.ToLower(all[j].Email)
	})
	return page(all, q), len(all), q, nil
}

// TailAllocation is a tail with what it holds.
type TailAllocation struct {
	ID             string
	Codes, Expired []string
}

// Tails lists the organization's tails with their allocations.
func (s *Service) Tails(ctx context.Context, actor domain.Actor, q Query) ([]TailAllocation, int, Query, error) {
	q = q.normalize()
	owner := OwnerOf(actor, "")
	if !domain.AccessTo(actor, owner).AssignTails {
		return nil, 0, q, domain.ErrForbidden("list the organization's aircraft")
	}
	tails, err := s.store.Tails(ctx, owner)
	if err != nil {
		return nil, 0, q, err
	}
	rows, err := s.store.Assignments(ctx, owner, domain.Tail, nil)
	if err != nil {
		return nil, 0, q, err
	}
	g := group(owner, rows)
	for _, a := range g { // a tail assigned before it was recorded still lists
		if !slices.Contains(tails, a.ID) {
			tails = append(tails, a.ID)
		}
	}
	var all []TailAllocation
	for _, id := range tails {
		if q.Filter != "" && !strings.Contains(strings.ToLower(id), q.Filter) {
			continue
		}
		t := TailAllocation{ID: id}
		if a, ok := g[string(domain.Tail)+"/"+id]; ok {
			t.Codes, t.Expired = a.Codes, a.Expired
		}
		if q.matches(t.Codes) {
			all = append(all, t)
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if q.Desc {
			return all[i].ID > all[j].ID
		}
		return all[i].ID < all[j].ID
	})
	return page(all, q), len(all), q, nil
}

func page[T any](all []T, q Query) []T {
	from := min(q.Page*q.Size, len(all))
	to := min(from+q.Size, len(all))
	return all[from:to]
}

// Pools answers an owner's pools, for other services (no caller: gRPC only, in the cluster).
func (s *Service) Pools(ctx context.Context, owner string) (map[string]*domain.Pool, error) {
	return s.store.ReadPools(ctx, owner, s.now())
}

// OwnerAllocations answers the allocations of the given owners, for other services.
func (s *Service) OwnerAllocations(ctx context.Context, owners []string, t domain.TargetType) ([]Allocation, []string, error) {
	byOwner, err := s.store.AssignmentsOf(ctx, owners, t)
	if err != nil {
		return nil, nil, err
	}
	var out []Allocation
	var userAllocated []string
	for _, o := range owners {
		g := group(o, byOwner[o])
		keys := make([]string, 0, len(g))
		for k := range g {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			a := *g[k]
			out = append(out, a)
			if a.Type == domain.User {
				for _, c := range a.Codes {
					if !slices.Contains(userAllocated, c) {
						userAllocated = append(userAllocated, c)
					}
				}
			}
		}
	}
	sort.Strings(userAllocated)
	return out, userAllocated, nil
}
