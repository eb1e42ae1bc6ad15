package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/services/allocation/internal/app"
	"github.com/hangar/hangar/services/allocation/internal/domain"
)

// newBuyer is checkout's subscription-changed for a new buyer's first order (Premium with a
// region): a subscription allocation has never seen, of an account without an organization.
func newBuyer(i int) *eventsv1.SubscriptionChanged {
	return &eventsv1.SubscriptionChanged{SubscriptionId: fmt.Sprintf("sub-new-%d", i), AccountId: fmt.Sprintf("acct-%d", i),
		PlanCode: "premium", Quantity: 1, Status: "active", Version: 1, ChangedAt: timestamppb.New(t0),
		TermStart: timestamppb.New(t0), TermEnd: timestamppb.New(t0.AddDate(1, 0, 0)),
		AddOns: []*eventsv1.SubscriptionAddOn{{AddOnCode: "premium", LicensingMethod: "USER_ALLOCATION", Quantity: 1},
			{AddOnCode: "region_europe", LicensingMethod: "USER_ALLOCATION", Quantity: 1}}}
}

// What applying subscription-changed events costs allocation's database: a batch is one
// transaction of four round trips (BEGIN, the stored states read and locked, the owners
// locked, COMMIT) plus its writes pipelined in one more: a new subscription is inserted
// with its grants (two statements) and expires nothing; a changed one is updated, its grants
// replaced and its owner's assignments checked (four). (The inbox consumer adds its inbox
// insert.) A change that adds a round trip or a statement per event fails here.
func TestSubscriptionChangesStatementsAndTransactions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, _ := newService(t)
	counts := dbtest.Counter(t, pool)
	step := func(name string, want dbtest.Counts, evs ...*eventsv1.SubscriptionChanged) {
		t.Helper()
		before := counts()
		if err := apply(ctx, s, evs...); err != nil {
			t.Fatal(err)
		}
		after := counts()
		if got := after.Minus(before); got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	step("a new buyer", dbtest.Counts{Query: 4, Batched: 2, Transactions: 1}, newBuyer(0))
	var batch []*eventsv1.SubscriptionChanged
	for i := 1; i <= 10; i++ {
		batch = append(batch, newBuyer(i))
	}
	step("ten new buyers in one batch", dbtest.Counts{Query: 4, Batched: 20, Transactions: 1}, batch...)
	step("a redelivered event", dbtest.Counts{Query: 4, Transactions: 1}, newBuyer(3))
	changed := proto.Clone(newBuyer(0)).(*eventsv1.SubscriptionChanged)
	changed.Version, changed.AddOns = 2, changed.AddOns[:1]
	step("a changed subscription", dbtest.Counts{Query: 4, Batched: 4, Transactions: 1}, changed)
}

// What a bulk change costs: one transaction of a fixed number of round trips (BEGIN, the
// owner's lock, the pools, the targets' assignments, their writes pipelined in one more,
// COMMIT) plus the allocation-changed events' outbox rows in one statement, then the read of
// the answer (a transaction of its own). A change that adds a round trip per target fails
// here.
func TestChangeStatementsAndTransactions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool, _ := newService(t)
	if err := apply(ctx, s, history[0]); err != nil { // efb_bridge: 3 users, runway: 2 tails
		t.Fatal(err)
	}
	counts := dbtest.Counter(t, pool)
	before := counts()
	if _, err := s.Change(ctx, owner(), org, append(users("u1", "u2"), app.Target{Type: domain.Tail, ID: "N1", Codes: []string{"runway_tp_pilatus"}}), nil); err != nil {
		t.Fatal(err)
	}
	// Writes: two user assignments, the tail recorded and assigned.
	if got, want := counts().Minus(before), (dbtest.Counts{Query: 5 + 1 + 1, Batched: 4, Transactions: 2}); got != want {
		t.Errorf("assign three targets: %+v, want %+v", got, want)
	}
	before = counts()
	if _, err := s.Change(ctx, owner(), org, users("u3"), users("u1", "u2")); err != nil {
		t.Fatal(err)
	}
	// Writes: two unassignments and one assignment.
	if got, want := counts().Minus(before), (dbtest.Counts{Query: 5 + 1 + 1, Batched: 3, Transactions: 2}); got != want {
		t.Errorf("unassign two, assign one: %+v, want %+v", got, want)
	}
}

// A batch has the effect of its events applied one at a time, in order: the same
// subscription several times in one batch (older versions late, redeliveries), an
// expiry between two of them, a subscription moving to another owner and back.
func TestBatchEqualsOneAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	moved := func(version int64, owner string) *eventsv1.SubscriptionChanged {
		ev := event(version, "active", t0.AddDate(1, 0, 0), addOn{"efb_bridge", "USER_ALLOCATION", 3})
		ev.SubscriptionId, ev.AccountId, ev.OrganizationId = "sub-2", owner, ""
		return ev
	}
	lowered := event(4, "active", t0.AddDate(0, 6, 0), addOn{"efb_bridge", "USER_ALLOCATION", 1})
	raised := event(5, "active", t0.AddDate(0, 6, 0), addOn{"efb_bridge", "USER_ALLOCATION", 3})
	// Same version, 300 ns earlier than raised; but PostgreSQL keeps microseconds, so what
	// raised left stored is older and this one applies.
	raised.ChangedAt = timestamppb.New(raised.GetChangedAt().AsTime().Add(1500 * time.Nanosecond))
	sameTime := proto.Clone(raised).(*eventsv1.SubscriptionChanged)
	sameTime.ChangedAt = timestamppb.New(raised.GetChangedAt().AsTime().Add(-300 * time.Nanosecond))
	sameTime.AddOns[0].Quantity = 2
	batch := []*eventsv1.SubscriptionChanged{history[1], history[0], lowered, history[1], raised, sameTime,
		moved(1, "acct-a"), moved(2, "acct-b"), moved(1, "acct-a"), moved(3, "acct-a")}

	var states []string
	for _, batched := range []bool{false, true} {
		s, pool, clk := newService(t)
		if err := apply(ctx, s, history[0]); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Change(ctx, owner(), org, users("u1", "u2", "u3"), nil); err != nil {
			t.Fatal(err)
		}
		clk.Set(t0.Add(time.Hour))
		if batched {
			if err := apply(ctx, s, batch...); err != nil {
				t.Fatal(err)
			}
		} else {
			for _, ev := range batch {
				if err := apply(ctx, s, ev); err != nil {
					t.Fatal(err)
				}
			}
		}
		var outbox int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE topic = 'hangar.allocation.allocation-changed.v1'`).Scan(&outbox); err != nil {
			t.Fatal(err)
		}
		states = append(states, fmt.Sprintf("%s%d allocation-changed events\n", state(t, pool), outbox))
		if p := report(t, s)["efb_bridge"]; p.Bought != 2 || p.Assigned != 1 || p.Expired != 2 {
			t.Errorf("batched %v: efb_bridge = %+v, want 2 bought, 1 assigned, 2 expired (by the lowering)", batched, p)
		}
	}
	if states[0] != states[1] {
		t.Errorf("one batch:\n%s\nwant (one at a time):\n%s", states[1], states[0])
	}
}
