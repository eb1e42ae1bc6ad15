package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/hangar/hangar/services/allocation/internal/app"
	"github.com/hangar/hangar/services/allocation/internal/domain"
)

// TestAnotherSubscriptionNeverRewritesAPool is issue 42's finding: an order filed under the
// organization with another term and licensing method (a member's Business Pro × 2, PER_USER,
// ending months later) rewrote the owner's pool (bought 5 USER_ALLOCATION became bought 7
// PER_USER with the later term end), which also lifted the region lock of user allocation.
// The established pool keeps its term, method and count; the other order's licences are not
// merged into it.
func TestAnotherSubscriptionNeverRewritesAPool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, clk := newService(t)
	end := t0.AddDate(0, 10, 0)
	if err := apply(ctx, s, event(1, "active", end, addOn{"business_pro", "USER_ALLOCATION", 5}, addOn{"logbook", "USER_ALLOCATION", 5})); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Change(ctx, owner(), org, []app.Target{
		{Type: domain.User, ID: "u1", Codes: []string{"business_pro"}}, {Type: domain.User, ID: "u2", Codes: []string{"business_pro"}},
		{Type: domain.User, ID: "u3", Codes: []string{"business_pro"}}, {Type: domain.User, ID: "u4", Codes: []string{"business_pro"}},
	}, nil); err != nil {
		t.Fatal(err)
	}
	before := report(t, s)

	// A second subscription of the same owner: same plan, another term and method.
	other := event(1, "active", end.AddDate(0, 7, 0), addOn{"business_pro", "PER_USER", 2})
	other.SubscriptionId, other.Quantity = "sub-2", 2
	if err := apply(ctx, s, other); err != nil {
		t.Fatal(err)
	}
	after := report(t, s)
	p := after["business_pro"]
	if p.Bought != 5 || p.Method != domain.UserAllocation || !p.TermEnd.Equal(end) || p.Assigned != 4 || !p.IsPlan {
		t.Errorf("business_pro after another order = %+v, want the pool as it was: %+v", p, before["business_pro"])
	}
	// What checkout reads for its region lock: the plan pool is still user allocation.
	ps, err := s.Pools(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	if p := ps["business_pro"]; p == nil || !p.IsPlan || p.Method != domain.UserAllocation {
		t.Errorf("plan pool checkout reads = %+v, want business_pro, plan, USER_ALLOCATION (regions locked)", p)
	}
	if after["logbook"] != before["logbook"] {
		t.Errorf("logbook after another order = %+v, want %+v", after["logbook"], before["logbook"])
	}
	// A later order of the same term and method does add to the pool: only pools of another
	// term or method stay apart.
	same := event(1, "active", end, addOn{"business_pro", "USER_ALLOCATION", 3})
	same.SubscriptionId = "sub-3"
	if err := apply(ctx, s, same); err != nil {
		t.Fatal(err)
	}
	if p := report(t, s)["business_pro"]; p.Bought != 8 || p.Method != domain.UserAllocation || !p.TermEnd.Equal(end) {
		t.Errorf("business_pro after an order of the same term = %+v, want 8 bought, USER_ALLOCATION, %v", p, end)
	}
	// The first pool's term ends: the other order's pool is the pool now, with its own term
	// and method, and the sweep expires the assignments it cannot cover.
	clk.Set(end.Add(time.Second))
	if err := s.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if p := report(t, s)["business_pro"]; p.Bought != 2 || p.Method != domain.PerUser || !p.TermEnd.Equal(end.AddDate(0, 7, 0)) ||
		p.Assigned != 2 || p.Expired != 2 {
		t.Errorf("business_pro after the first term = %+v, want 2 bought PER_USER to %v, 2 assigned, 2 expired", p, end.AddDate(0, 7, 0))
	}
}
