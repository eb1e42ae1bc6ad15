package app_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain"
)

// countingAllocations is the allocation service answering nothing allocated, counting the
// calls and the owners each asked about.
type countingAllocations struct {
	mu    sync.Mutex
	asked [][]string
}

func (c *countingAllocations) OwnerAllocations(_ context.Context, owners []string) (*app.OwnerAllocations, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, owners)
	return &app.OwnerAllocations{}, nil
}

// A renewal batch asks the allocation service once, about the owners of all its
// subscriptions (issue 43.8: it asked once per renewal).
func TestRenewalBatchAsksAllocationOnce(t *testing.T) {
	t.Parallel()
	alloc := &countingAllocations{}
	e := newRenewalEnvOpts(t, nil, func(o *app.Options) { o.Allocations = alloc })
	e.clock.Set(e.termEnd.Add(-12 * time.Hour))
	res := e.run(t, e.renewer())
	if res.Renewed < 4 {
		t.Fatalf("%+v: the test needs a batch of several renewals", res)
	}
	alloc.mu.Lock()
	defer alloc.mu.Unlock()
	if len(alloc.asked) != 1 || len(alloc.asked[0]) < res.Renewed {
		t.Errorf("allocation asked %d times (%v) for %d renewals in one batch, want once about every owner", len(alloc.asked), alloc.asked, res.Renewed)
	}
}

// For keeps of a batch's answer what concerns a subscription's owners.
func TestOwnerAllocationsFor(t *testing.T) {
	t.Parallel()
	all := &app.OwnerAllocations{
		Tails: []domain.Allocation{{TargetID: "N1", TargetOwnerID: "org-a", TargetType: "TAIL", AddOnCodes: []string{"runway"}},
			{TargetID: "N2", TargetOwnerID: "acct-b", TargetType: "TAIL", AddOnCodes: []string{"runway"}}},
		Users: []domain.Allocation{{TargetID: "u1", TargetOwnerID: "org-a", TargetType: "USER", AddOnCodes: []string{"logbook", "efb"}},
			{TargetID: "u2", TargetOwnerID: "acct-a", TargetType: "USER", AddOnCodes: []string{"logbook"}},
			{TargetID: "u3", TargetOwnerID: "acct-b", TargetType: "USER", AddOnCodes: []string{"charts"}}},
		Pools: []app.Pool{{Owner: "org-a", Code: "logbook"}, {Owner: "acct-b", Code: "charts"}},
	}
	got := all.For([]string{"org-a", "acct-a"})
	if len(got.Tails) != 1 || got.Tails[0].TargetID != "N1" {
		t.Errorf("tails %+v", got.Tails)
	}
	if slices.Sort(got.UserAllocated); !slices.Equal(got.UserAllocated, []string{"efb", "logbook"}) {
		t.Errorf("user allocated %v, want efb and logbook", got.UserAllocated)
	}
	if len(got.Pools) != 1 || got.Pools[0].Owner != "org-a" {
		t.Errorf("pools %+v", got.Pools)
	}
}
