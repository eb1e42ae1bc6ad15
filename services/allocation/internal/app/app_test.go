package app_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/telemetry"
	"github.com/hangar/hangar/services/allocation/internal/adapters"
	"github.com/hangar/hangar/services/allocation/internal/app"
	"github.com/hangar/hangar/services/allocation/internal/domain"
	"github.com/hangar/hangar/services/allocation/internal/ports"
)

const org = "org-acme"

var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// members is a fixed directory: every user "u1".."u9" belongs to the organization.
type members struct{}

func (members) Members(context.Context) ([]domain.Member, error) {
	var out []domain.Member
	for i := 1; i <= 9; i++ {
		out = append(out, domain.Member{AccountUUID: fmt.Sprintf("u%d", i), Email: fmt.Sprintf("u%d@acme.test", i)})
	}
	return out, nil
}

type clock struct{ now atomic.Int64 }

func (c *clock) Now() time.Time   { return time.Unix(0, c.now.Load()).UTC() }
func (c *clock) Set(t time.Time)  { c.now.Store(t.UnixNano()) }
func newClock(t time.Time) *clock { c := &clock{}; c.Set(t); return c }
func quiet() *slog.Logger         { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
func owner() domain.Actor {
	return domain.Actor{AccountID: org, OrgAccount: org, Roles: []string{domain.RoleOwner}}
}
func admin(roles ...string) domain.Actor {
	return domain.Actor{AccountID: "admin-" + strings.Join(roles, "-"), OrgAccount: org, Roles: roles}
}

func newService(t *testing.T) (*app.Service, *pgxpool.Pool, *clock) {
	t.Helper()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", quiet()); err != nil {
		t.Fatal(err)
	}
	c := newClock(t0)
	return app.New(adapters.NewStore(pool, telemetry.Propagator()), members{}, c.Now, quiet()), pool, c
}

// apply files subscription-changed events as the consumer does: decoded by the port, in one
// transaction (the store's own here).
func apply(ctx context.Context, s *app.Service, evs ...*eventsv1.SubscriptionChanged) error {
	subs := make([]domain.Subscription, len(evs))
	for i, ev := range evs {
		subs[i] = ports.SubscriptionFromEvent(ev)
	}
	return s.Apply(ctx, subs...)
}

type addOn struct {
	code, method string
	qty          int32
}

func event(version int64, status string, termEnd time.Time, addOns ...addOn) *eventsv1.SubscriptionChanged {
	ev := &eventsv1.SubscriptionChanged{SubscriptionId: "sub-1", AccountId: org, OrganizationId: org, PlanCode: "business_pro",
		Quantity: 5, TermStart: timestamppb.New(t0.AddDate(-1, 0, 0)), TermEnd: timestamppb.New(termEnd), Status: status,
		Version: version, ChangedAt: timestamppb.New(t0.Add(time.Duration(version) * time.Minute))}
	for _, a := range addOns {
		ev.AddOns = append(ev.AddOns, &eventsv1.SubscriptionAddOn{AddOnCode: a.code, LicensingMethod: a.method, Quantity: a.qty})
	}
	return ev
}

// state is everything the events built, in a comparable form.
func state(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT subscription_id, owner_id, version, status FROM subscriptions ORDER BY 1`,
		`SELECT subscription_id, add_on_code, owner_id, licensing_method, quantity, is_plan, term_end FROM grants ORDER BY 1, 2`,
		`SELECT owner_id, add_on_code, target_type, target_id, state FROM assignments ORDER BY 1, 2, 3, 4`,
	} {
		rows, err := pool.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		vals, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
			v, err := r.Values()
			return fmt.Sprint(v...), err
		})
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(strings.Join(vals, "\n") + "\n--\n")
	}
	return b.String()
}

func report(t *testing.T, s *app.Service) map[string]domain.Pool {
	t.Helper()
	_, pools, err := s.Report(context.Background(), owner())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]domain.Pool{}
	for c, p := range pools {
		out[c] = *p
	}
	return out
}

func users(ids ...string) []app.Target {
	var out []app.Target
	for _, id := range ids {
		out = append(out, app.Target{Type: domain.User, ID: id, Codes: []string{"efb_bridge"}})
	}
	return out
}

var history = []*eventsv1.SubscriptionChanged{
	event(1, "active", t0.AddDate(0, 6, 0), addOn{"business_pro", "USER_ALLOCATION", 5}, addOn{"efb_bridge", "USER_ALLOCATION", 3},
		addOn{"included_geo_us", "", 0}, addOn{"runway_tp_pilatus", "TAIL_ALLOCATION", 2}),
	event(2, "active", t0.AddDate(0, 6, 0), addOn{"business_pro", "USER_ALLOCATION", 8}, addOn{"efb_bridge", "USER_ALLOCATION", 6},
		addOn{"runway_tp_pilatus", "TAIL_ALLOCATION", 2}),
	event(3, "active", t0.AddDate(1, 6, 0), addOn{"business_pro", "USER_ALLOCATION", 8}, addOn{"efb_bridge", "ANY_ALLOCATION", 6},
		addOn{"flight_tracking", "PER_DEVICE", 0}),
}

func TestReplayGivesTheSameState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	once, pool1, _ := newService(t)
	for _, ev := range history {
		if err := apply(ctx, once, ev); err != nil {
			t.Fatal(err)
		}
	}
	// The same history replayed into an empty database, every event delivered twice and an
	// old one late, gives the same pools.
	replay, pool2, _ := newService(t)
	for _, ev := range []*eventsv1.SubscriptionChanged{history[0], history[0], history[1], history[0], history[2], history[1], history[2]} {
		if err := apply(ctx, replay, ev); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := state(t, pool1), state(t, pool2); a != b {
		t.Errorf("replayed state differs:\n%s\nwant\n%s", b, a)
	}
	got := report(t, once)
	if p := got["business_pro"]; p.Bought != 8 || !p.IsPlan || p.Method != domain.UserAllocation {
		t.Errorf("business_pro pool = %+v, want 8 user-allocated plan licences", p)
	}
	if p := got["efb_bridge"]; p.Bought != 6 || p.Method != domain.AnyAllocation {
		t.Errorf("efb_bridge pool = %+v, want 6 of ANY_ALLOCATION", p)
	}
	if p := got["flight_tracking"]; p.Bought != 5 {
		t.Errorf("flight_tracking pool = %+v, want the subscription's 5 licences", p)
	}
	if _, ok := got["included_geo_us"]; ok {
		t.Error("an add-on without a licensing method got a pool")
	}
	if _, ok := got["runway_tp_pilatus"]; ok {
		t.Error("a dropped add-on still has a pool")
	}
}

func TestRedeliveredEventChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, _ := newService(t)
	if err := apply(ctx, s, history[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Change(ctx, owner(), org, users("u1", "u2"), nil); err != nil {
		t.Fatal(err)
	}
	before := state(t, pool)
	var outbox int
	_ = pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&outbox)
	// The inbox skips a message it saw; the same event re-sent under another message id
	// (a publisher's relay re-sent it) reaches the handler, and the stored version stops it:
	// neither pools, assignments nor published events change.
	for range 2 {
		if err := apply(ctx, s, history[0]); err != nil {
			t.Fatal(err)
		}
	}
	if after := state(t, pool); after != before {
		t.Errorf("redelivery changed the state:\n%s\nwas\n%s", after, before)
	}
	var outbox2 int
	_ = pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&outbox2)
	if outbox2 != outbox {
		t.Errorf("redelivery published %d events", outbox2-outbox)
	}
}

func TestDroppedAddOnAndLapsedTermExpireAssignments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, clk := newService(t)
	end := t0.AddDate(0, 1, 0)
	if err := apply(ctx, s, event(1, "active", end, addOn{"efb_bridge", "USER_ALLOCATION", 3}, addOn{"runway_tp_pilatus", "TAIL_ALLOCATION", 2})); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Change(ctx, owner(), org, append(users("u1", "u2", "u3"), app.Target{Type: domain.Tail, ID: "n412ac", Codes: []string{"runway_tp_pilatus"}}), nil); err != nil {
		t.Fatal(err)
	}
	// Quantity lowered to 2: the newest assignment expires. (Same timestamps: the order is
	// by target id, so u3 goes.)
	if err := apply(ctx, s, event(2, "active", end, addOn{"efb_bridge", "USER_ALLOCATION", 2}, addOn{"runway_tp_pilatus", "TAIL_ALLOCATION", 2})); err != nil {
		t.Fatal(err)
	}
	if p := report(t, s)["efb_bridge"]; p.Assigned != 2 || p.Expired != 1 || p.Free() != 0 {
		t.Errorf("after lowering: efb_bridge = %+v, want 2 assigned, 1 expired", p)
	}
	// The runway add-on dropped: the tail's allocation expires.
	if err := apply(ctx, s, event(3, "active", end, addOn{"efb_bridge", "USER_ALLOCATION", 2})); err != nil {
		t.Fatal(err)
	}
	list, err := s.List(ctx, owner(), nil, ptr(""))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || len(list[0].Codes) != 0 || !reflect.DeepEqual(list[0].Expired, []string{"runway_tp_pilatus"}) || list[0].ID != "N412AC" {
		t.Errorf("tail allocations = %+v, want N412AC with runway_tp_pilatus expired", list)
	}
	// The term ends: the sweep expires the rest.
	clk.Set(end.Add(time.Second))
	if err := s.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if p := report(t, s)["efb_bridge"]; p.Assigned != 0 || p.Expired != 3 || p.Bought != 0 {
		t.Errorf("after the term: efb_bridge = %+v, want 0 bought, 3 expired", p)
	}
	var events int
	_ = pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE topic = 'hangar.allocation.allocation-changed.v1'`).Scan(&events)
	if events != 4+4 { // 4 assigned, then 1 + 1 + 2 expired
		t.Errorf("allocation-changed events = %d, want 8", events)
	}
	// A renewal brings the pool back; expired allocations can be assigned again.
	if err := apply(ctx, s, event(4, "active", end.AddDate(1, 0, 0), addOn{"efb_bridge", "USER_ALLOCATION", 3})); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Change(ctx, owner(), org, users("u1"), nil); err != nil {
		t.Fatal(err)
	}
	if p := report(t, s)["efb_bridge"]; p.Assigned != 1 || p.Expired != 2 {
		t.Errorf("after renewal: efb_bridge = %+v, want 1 assigned, 2 expired", p)
	}
	// A lapse event expires everything at once.
	if err := apply(ctx, s, event(5, "lapsed", end.AddDate(1, 0, 0), addOn{"efb_bridge", "USER_ALLOCATION", 3})); err != nil {
		t.Fatal(err)
	}
	if p := report(t, s)["efb_bridge"]; p.Assigned != 0 || p.Bought != 0 {
		t.Errorf("after lapse: efb_bridge = %+v, want nothing bought or assigned", p)
	}
}

func TestBulkAssignIsAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, _ := newService(t)
	if err := apply(ctx, s, history[0]); err != nil { // efb_bridge: 3
		t.Fatal(err)
	}
	if _, err := s.Change(ctx, owner(), org, users("u1"), nil); err != nil {
		t.Fatal(err)
	}
	before := state(t, pool)
	_, err := s.Change(ctx, owner(), org, append(users("u2", "u3", "u4"),
		app.Target{Type: domain.Tail, ID: "N500AC", Codes: []string{"runway_tp_pilatus"}}), nil)
	if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), "Insufficient addOn quantity for efb_bridge") {
		t.Fatalf("bulk beyond the pool: err = %v, want 'Insufficient addOn quantity for efb_bridge'", err)
	}
	if after := state(t, pool); after != before {
		t.Errorf("a refused bulk assignment changed the state:\n%s", after)
	}
	// Re-assigning what a target holds costs nothing; unassigning first frees a licence.
	if _, err := s.Change(ctx, owner(), org, users("u1", "u2", "u3"), nil); err != nil {
		t.Errorf("assigning within the pool: %v", err)
	}
	if _, err := s.Change(ctx, owner(), org, users("u4"), users("u1")); err != nil {
		t.Errorf("unassign then assign in one bulk: %v", err)
	}
	if p := report(t, s)["efb_bridge"]; p.Assigned != 3 {
		t.Errorf("efb_bridge = %+v, want 3 assigned", p)
	}
	// Wrong target type and unknown codes and users are refused.
	for name, target := range map[string]app.Target{
		"a user licence to a tail": {Type: domain.Tail, ID: "N1", Codes: []string{"business_pro"}},
		"an unknown code":          {Type: domain.User, ID: "u1", Codes: []string{"nope"}},
		"a stranger":               {Type: domain.User, ID: "stranger", Codes: []string{"business_pro"}},
		"a bad tail number":        {Type: domain.Tail, ID: "N 1!", Codes: []string{"runway_tp_pilatus"}},
	} {
		if _, err := s.Change(ctx, owner(), org, []app.Target{target}, nil); errs.CodeOf(err) != errs.Invalid {
			t.Errorf("%s: err = %v, want invalid_argument", name, err)
		}
	}
}

func TestConcurrentAssignsNeverExceedAPool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newService(t)
	if err := apply(ctx, s, history[0]); err != nil { // efb_bridge: 3, runway: 2
		t.Fatal(err)
	}
	// 9 admins at once, each bulk-assigning two users; and two aircraft admins racing for
	// the last runway licence.
	if _, err := s.Change(ctx, owner(), org, []app.Target{{Type: domain.Tail, ID: "N1", Codes: []string{"runway_tp_pilatus"}}}, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var ok, short atomic.Int32
	for i := 1; i <= 9; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Change(ctx, admin(domain.RoleUserAdmin), org, users(fmt.Sprintf("u%d", i), fmt.Sprintf("u%d", i%9+1)), nil)
			countResult(t, err, &ok, &short)
		}()
	}
	var tailOK, tailShort atomic.Int32
	for _, tail := range []string{"N2", "N3"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Change(ctx, admin(domain.RoleAircraftAdmin), org, []app.Target{{Type: domain.Tail, ID: tail, Codes: []string{"runway_tp_pilatus"}}}, nil)
			countResult(t, err, &tailOK, &tailShort)
		}()
	}
	wg.Wait()
	got := report(t, s)
	if p := got["efb_bridge"]; p.Assigned > 3 || p.Assigned < 2 {
		t.Errorf("efb_bridge = %+v: assigned beyond (or far below) the 3 bought", p)
	}
	if ok.Load() < 1 || ok.Load()+short.Load() != 9 {
		t.Errorf("bulk results: %d ok, %d insufficient of 9", ok.Load(), short.Load())
	}
	if p := got["runway_tp_pilatus"]; p.Assigned != 2 || tailOK.Load() != 1 || tailShort.Load() != 1 {
		t.Errorf("race for the last runway licence: pool %+v, %d won, %d refused; want exactly one winner", p, tailOK.Load(), tailShort.Load())
	}
}

func countResult(t *testing.T, err error, ok, short *atomic.Int32) {
	switch {
	case err == nil:
		ok.Add(1)
	case strings.Contains(err.Error(), domain.MsgInsufficient):
		short.Add(1)
	default:
		t.Errorf("unexpected error: %v", err)
	}
}

func TestRoles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newService(t)
	if err := apply(ctx, s, history[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Change(ctx, owner(), org, users("u1"), nil); err != nil {
		t.Fatal(err)
	}
	member := domain.Actor{AccountID: "u1", OrgAccount: org, Roles: []string{"member"}}
	stranger := domain.Actor{AccountID: "x", OrgAccount: "other-org", Roles: []string{domain.RoleOwner}}
	tail := []app.Target{{Type: domain.Tail, ID: "N9", Codes: []string{"runway_tp_pilatus"}}}
	cases := []struct {
		name  string
		actor domain.Actor
		do    func(domain.Actor) error
		want  errs.Code
	}{
		{"owner assigns a user", owner(), assign(s, users("u2")), ""},
		{"owner assigns a tail", owner(), assign(s, tail), ""},
		{"user admin assigns a user", admin(domain.RoleUserAdmin), assign(s, users("u3")), ""},
		{"user admin assigns a tail (Members: every allocation)", admin(domain.RoleUserAdmin), assign(s, tail), ""},
		{"an employee assigns in any organization", domain.Actor{AccountID: "staff", Staff: true}, assign(s, tail), ""},
		{"aircraft admin assigns a tail", admin(domain.RoleAircraftAdmin), assign(s, tail), ""},
		{"aircraft admin may not assign a user", admin(domain.RoleAircraftAdmin), assign(s, users("u4")), errs.Forbidden},
		{"member may not assign", member, assign(s, users("u4")), errs.Forbidden},
		{"another organization's owner may not assign", stranger, assign(s, users("u4")), errs.Forbidden},
		{"member reads their own", member, list(s, ptr("u1"), nil), ""},
		{"member reads their own by default", member, list(s, nil, nil), ""},
		{"member may not read another user", member, list(s, ptr("u2"), nil), errs.Forbidden},
		{"member may not read tails", member, list(s, nil, ptr("")), errs.Forbidden},
		{"member may not read the report", member, func(a domain.Actor) error { _, _, err := s.Report(ctx, a); return err }, errs.Forbidden},
		{"another organization's owner reads only their own (empty) pools", stranger, list(s, nil, nil), ""},
		{"aircraft admin reads tails", admin(domain.RoleAircraftAdmin), list(s, nil, ptr("")), ""},
		{"user admin lists users", admin(domain.RoleUserAdmin), func(a domain.Actor) error { _, _, _, err := s.UsersByAllocation(ctx, a, app.Query{}); return err }, ""},
		{"aircraft admin may not list users", admin(domain.RoleAircraftAdmin), func(a domain.Actor) error { _, _, _, err := s.UsersByAllocation(ctx, a, app.Query{}); return err }, errs.Forbidden},
		{"user admin lists tails", admin(domain.RoleUserAdmin), func(a domain.Actor) error { _, _, _, err := s.Tails(ctx, a, app.Query{}); return err }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := errs.CodeOf(c.do(c.actor)); got != c.want {
				t.Errorf("code = %q, want %q", got, c.want)
			}
		})
	}
	// What the member read is their own allocation only.
	got, err := s.List(ctx, member, nil, nil)
	if err != nil || len(got) != 1 || got[0].ID != "u1" {
		t.Errorf("member's own allocations = %+v, %v", got, err)
	}
}

func assign(s *app.Service, targets []app.Target) func(domain.Actor) error {
	return func(a domain.Actor) error { _, err := s.Change(context.Background(), a, org, targets, nil); return err }
}

func list(s *app.Service, users, tails *string) func(domain.Actor) error {
	return func(a domain.Actor) error { _, err := s.List(context.Background(), a, users, tails); return err }
}

func TestUsersAndTailsListings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newService(t)
	if err := apply(ctx, s, history[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Change(ctx, owner(), org, append(users("u2", "u5"), app.Target{Type: domain.Tail, ID: "N2", Codes: []string{"runway_tp_pilatus"}},
		app.Target{Type: domain.Tail, ID: "N1", Codes: []string{"runway_tp_pilatus"}}), nil); err != nil {
		t.Fatal(err)
	}
	page, total, _, err := s.UsersByAllocation(ctx, owner(), app.Query{Assigned: []string{"efb_bridge"}, Desc: true, Size: 1})
	if err != nil || total != 2 || len(page) != 1 || page[0].AccountUUID != "u5" {
		t.Errorf("assigned efb_bridge, desc, size 1 = %+v (total %d), %v; want u5 of 2", page, total, err)
	}
	page, total, _, err = s.UsersByAllocation(ctx, owner(), app.Query{Unassigned: []string{"efb_bridge"}, Page: 1, Size: 3})
	if err != nil || total != 7 || len(page) != 3 || page[0].AccountUUID != "u6" {
		t.Errorf("unassigned efb_bridge, page 1 of 3 = %+v (total %d), %v; want u6.. of 7", page, total, err)
	}
	page, total, _, _ = s.UsersByAllocation(ctx, owner(), app.Query{Filter: "U9@"})
	if total != 1 || page[0].AccountUUID != "u9" {
		t.Errorf("filter u9@ = %+v", page)
	}
	tails, total, _, err := s.Tails(ctx, owner(), app.Query{})
	if err != nil || total != 2 || tails[0].ID != "N1" || tails[1].ID != "N2" {
		t.Errorf("tails = %+v (%d), %v", tails, total, err)
	}
}

func ptr(s string) *string { return &s }
