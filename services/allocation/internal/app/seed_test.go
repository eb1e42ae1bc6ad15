package app_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/telemetry"
	"github.com/hangar/hangar/services/allocation/internal/adapters"
	"github.com/hangar/hangar/services/allocation/internal/app"
	"github.com/hangar/hangar/services/allocation/internal/domain"
	"github.com/hangar/hangar/services/allocation/internal/ports"
)

// The development seed files the subscription's pools, records the tails and assigns once:
// a rerun (every start) leaves the assignment as it is, one licence used.
func TestSeedDemoFilesTailsAndAssignsOnce(t *testing.T) {
	t.Parallel()
	s, pool, _ := newService(t)
	ctx := context.Background()
	store := adapters.NewStore(pool, telemetry.Propagator())
	d := app.DemoSeed{Owner: org,
		Subscription: ports.SubscriptionFromEvent(event(1, "active", t0.AddDate(0, 6, 0), addOn{"runway_tp_pilatus", "TAIL_ALLOCATION", 2})),
		Tails:        []string{"N500AC", "N412AC"},
		Assign:       app.Target{Type: domain.Tail, ID: "N412AC", Codes: []string{"runway_tp_pilatus"}}}
	for range 2 {
		if err := s.SeedDemo(ctx, store, d); err != nil {
			t.Fatal(err)
		}
	}
	if tails, err := store.Tails(ctx, org); err != nil || !reflect.DeepEqual(tails, []string{"N412AC", "N500AC"}) {
		t.Errorf("tails %v %v", tails, err)
	}
	pools, err := store.ReadPools(ctx, org, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if p := pools["runway_tp_pilatus"]; p == nil || p.Assigned != 1 {
		t.Errorf("runway pool %+v, want 1 assigned", p)
	}
}
