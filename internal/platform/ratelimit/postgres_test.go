package ratelimit_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/ratelimit"
)

// Count counts every call, refused or not, across replicas: of a concurrent burst over
// two replicas exactly Burst fit, and the refused keep the bucket empty (a guesser that
// keeps trying stays refused), but only up to the cap: after it stops, a caller waits at
// most a window and one interval.
func TestCountHoldsTheBurstAcrossReplicasAndCountsTheRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ps := pools(t, 2)
	stores := []*ratelimit.PostgreSQL{ratelimit.NewPostgreSQL(ps[0]), ratelimit.NewPostgreSQL(ps[1])}
	rule := ratelimit.PerWindow(10, time.Minute) // a token every 6 s, 10 at once
	now := time.Unix(2_000_000, 0)
	var fitted atomic.Int32
	burst(40, func(i int) {
		ok, wait, err := stores[i%2].Count(ctx, []string{"codes|client:a", "codes|account:x"}, rule, 1, now)
		switch {
		case err != nil:
			t.Error(err)
		case ok:
			fitted.Add(1)
		case wait <= 0 || wait > 2*time.Minute:
			t.Errorf("refused with wait %s", wait)
		}
	})
	if fitted.Load() != 10 {
		t.Fatalf("%d of 40 concurrent counts fitted, want exactly the burst (10)", fitted.Load())
	}
	// The refused 30 were counted: one interval later the client is still refused, where
	// Take (refused calls not counted) would have let one through.
	if ok, _, _ := stores[0].Count(ctx, []string{"codes|client:a"}, rule, 1, now.Add(6*time.Second)); ok {
		t.Error("a client that kept trying got through after one interval")
	}
	// The debt is capped: a window and one interval after it stops, one more fits.
	ok, wait, err := stores[1].Count(ctx, []string{"codes|client:a"}, rule, 1, now.Add(6*time.Second+time.Minute+6*time.Second))
	if err != nil || !ok {
		t.Errorf("after waiting a window and an interval: ok %v wait %s err %v", ok, wait, err)
	}
	// n at once: 10 fit a fresh bucket, 11 do not.
	if ok, _, _ := stores[0].Count(ctx, []string{"codes|client:b"}, rule, 10, now); !ok {
		t.Error("10 at once refused on a fresh bucket of 10")
	}
	if ok, _, _ := stores[0].Count(ctx, []string{"codes|client:c"}, rule, 11, now); ok {
		t.Error("11 at once fitted a bucket of 10")
	}
}

// Take refuses without counting; Return gives a token back; Reset fills a bucket again.
func TestTakeReturnReset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := ratelimit.NewPostgreSQL(pools(t, 1)[0])
	rule := ratelimit.PerWindow(5, 15*time.Minute) // one every 3 minutes, 5 at once
	now := time.Unix(3_000_000, 0)
	for i := range 5 {
		if ok, _, err := s.Take(ctx, "k", rule, 1, now); !ok || err != nil {
			t.Fatalf("take %d: %v %v", i+1, ok, err)
		}
	}
	for range 3 { // refused, and not counted
		if ok, wait, _ := s.Take(ctx, "k", rule, 1, now); ok || wait != 3*time.Minute {
			t.Fatalf("take past the burst: ok %v wait %s; want refused for 3m", ok, wait)
		}
	}
	if ok, _, _ := s.Take(ctx, "k", rule, 1, now.Add(3*time.Minute)); !ok {
		t.Error("refused calls were counted: no token after one interval")
	}
	if err := s.Return(ctx, "k", rule, 1, now.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := s.Take(ctx, "k", rule, 1, now.Add(3*time.Minute)); !ok {
		t.Error("the returned token is not there")
	}
	// A smaller burst over the same interval sees the same bucket as fuller.
	if ok, _, _ := s.Take(ctx, "k", ratelimit.Rule{Every: rule.Every, Burst: 2}, 1, now.Add(3*time.Minute)); ok {
		t.Error("a burst of 2 let a fifth token through")
	}
	if err := s.Reset(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := s.Take(ctx, "k", rule, 5, now.Add(3*time.Minute)); !ok {
		t.Error("not full after Reset")
	}
	if ok, _, _ := s.Take(ctx, "other", rule, 6, now); ok {
		t.Error("6 tokens taken from a bucket of 5")
	}
}
