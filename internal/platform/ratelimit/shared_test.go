package ratelimit_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/ratelimit"
)

func pools(t *testing.T, n int) []*pgxpool.Pool {
	t.Helper()
	url := dbtest.New(t)
	var out []*pgxpool.Pool
	for range n {
		p, err := pgxpool.New(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		out = append(out, p)
	}
	if _, err := out[0].Exec(context.Background(), ratelimit.Schema); err != nil {
		t.Fatal(err)
	}
	return out
}

// burst runs f(0), …, f(n-1) at once, released together, and waits for them all.
func burst(n int, f func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			f(i)
		}()
	}
	close(start)
	wg.Wait()
}

// Two replicas (two pools, two stores) taking from one key at once: exactly Burst pass,
// however the calls interleave; the refused learn how long to wait.
func TestPostgreSQLHoldsTheBurstAcrossReplicas(t *testing.T) {
	t.Parallel()
	ps := pools(t, 2)
	stores := []*ratelimit.PostgreSQL{ratelimit.NewPostgreSQL(ps[0]), ratelimit.NewPostgreSQL(ps[1])}
	rule := ratelimit.Rule{Every: 10 * time.Second, Burst: 10}
	now := time.Unix(1_000_000, 0)
	var passed, refused atomic.Int32
	burst(60, func(i int) {
		ok, wait, err := stores[i%2].Take(context.Background(), "door|10.0.0.1", rule, 1, now)
		switch {
		case err != nil:
			t.Error(err)
		case ok:
			passed.Add(1)
		case wait <= 0 || wait > rule.Every:
			t.Errorf("refused with wait %s, want (0, %s]", wait, rule.Every)
		default:
			refused.Add(1)
		}
	})
	if passed.Load() != int32(rule.Burst) || refused.Load() != 60-int32(rule.Burst) {
		t.Fatalf("passed %d, refused %d; want exactly %d passed", passed.Load(), refused.Load(), rule.Burst)
	}
	// Another key has its own bucket; after one period one more call passes, not two.
	if ok, _, _ := stores[0].Take(context.Background(), "door|10.0.0.2", rule, 1, now); !ok {
		t.Error("another key was refused")
	}
	later := now.Add(rule.Every)
	if ok, _, _ := stores[1].Take(context.Background(), "door|10.0.0.1", rule, 1, later); !ok {
		t.Error("refused after a period had refilled a token")
	}
	if ok, _, _ := stores[0].Take(context.Background(), "door|10.0.0.1", rule, 1, later); ok {
		t.Error("a period refilled more than one token")
	}
}

// UnaryShared refuses a client across replicas with 429's error (Exhausted with the wait),
// and lets calls through on the local bucket when the store fails.
func TestUnarySharedAcrossInterceptors(t *testing.T) {
	t.Parallel()
	ps := pools(t, 2)
	rules := map[string]ratelimit.Rule{"/svc/Door": {Every: time.Minute, Burst: 4}}
	key := func(context.Context) string { return "10.0.0.9" }
	var replicas []grpc.UnaryServerInterceptor
	for _, p := range ps {
		replicas = append(replicas, ratelimit.UnaryShared(rules, key, time.Now, ratelimit.NewPostgreSQL(p), nil))
	}
	info := &grpc.UnaryServerInfo{FullMethod: "/svc/Door"}
	handler := func(context.Context, any) (any, error) { return "ok", nil }
	passed := 0
	var last error
	for i := range 8 { // alternating replicas: each sees 4, within its local burst
		if _, err := replicas[i%2](context.Background(), nil, info, handler); err == nil {
			passed++
		} else {
			last = err
		}
	}
	if passed != 4 || errs.CodeOf(last) != errs.Exhausted || errs.RetryAfterOf(last) <= 0 {
		t.Fatalf("passed %d of 8 over two replicas (last error %v); want 4 and Exhausted with a wait", passed, last)
	}
	other := &grpc.UnaryServerInfo{FullMethod: "/svc/Other"}
	if _, err := replicas[0](context.Background(), nil, other, handler); err != nil {
		t.Errorf("a method without a rule was limited: %v", err)
	}
	broken := ratelimit.UnaryShared(rules, key, time.Now, failing{}, nil)
	if _, err := broken(context.Background(), nil, info, handler); err != nil {
		t.Errorf("a failing store closed the door: %v", err)
	}
}

type failing struct{}

func (failing) Take(context.Context, string, ratelimit.Rule, int, time.Time) (bool, time.Duration, error) {
	return false, 0, context.DeadlineExceeded
}
