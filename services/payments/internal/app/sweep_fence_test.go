package app_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/services/payments/internal/adapters"
	"github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// pausingGateway counts the money a sweeper gives back and, with listed set, stops the
// sweeper right after it listed the processor's transactions until resume closes: a
// process paused (SIGSTOP, a stalled node) between its look-up and its action.
type pausingGateway struct {
	gateway.Gateway
	listed, resume chan struct{}
	once           sync.Once
	givenBack      atomic.Int32
}

func (g *pausingGateway) Search(ctx context.Context, from, to time.Time, n int) ([]gateway.Record, error) {
	recs, err := g.Gateway.Search(ctx, from, to, n)
	if g.listed != nil {
		g.once.Do(func() { close(g.listed); <-g.resume })
	}
	return recs, err
}

func (g *pausingGateway) Refund(ctx context.Context, txID string, amount int64, key string) (string, error) {
	g.givenBack.Add(1)
	return g.Gateway.Refund(ctx, txID, amount, key)
}

func (g *pausingGateway) Void(ctx context.Context, txID string) (gateway.Transaction, error) {
	g.givenBack.Add(1)
	return g.Gateway.Void(ctx, txID)
}

// Issue 39/43: two replicas' sweepers and an orphan capture. The first lists it and is
// paused; while it holds the sweep's lease the second finds the sweep busy and does
// nothing; once the first was paused past its lease, the second takes the sweep over and
// gives the capture back. The first resumes with its stale list: its token no longer holds
// the lease, so it gives nothing back a second time (it stops, told the lease was taken).
func TestPausedSweeperDoesNotActTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", log); err != nil {
		t.Fatal(err)
	}
	sandbox := gateway.NewSandbox(adapters.NewSandboxStore(pool), []byte("k"), 3*time.Hour, time.Now)
	store := adapters.NewStore(pool, propagation.TraceContext{})
	pausedGW := &pausingGateway{Gateway: sandbox, listed: make(chan struct{}), resume: make(chan struct{})}
	otherGW := &pausingGateway{Gateway: sandbox}
	paused := app.New(store, pausedGW, app.Policies{}, time.Now, log)
	other := app.New(store, otherGW, app.Policies{}, time.Now, log)

	start := time.Now().Add(-time.Minute)
	tx, err := sandbox.Charge(ctx, gateway.AuthRequest{IdempotencyKey: "somebody-else", Amount: 1200, Currency: "USD",
		Nonce: nonce(t, sandbox, "4111111111111111")})
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now().Add(time.Minute)
	type result struct {
		res app.SweepResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := paused.Sweep(ctx, start, end)
		done <- result{res, err}
	}()
	<-pausedGW.listed

	if res, err := other.Sweep(ctx, start, end); err != nil || !res.Busy || res.GivenBack != 0 {
		t.Fatalf("sweep beside a running one: %+v, %v; want busy, nothing given back", res, err)
	}
	// The paused sweeper's lease runs out on the database's clock.
	if _, err := pool.Exec(ctx, `UPDATE sweeper_leases SET lease_until = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	if res, err := other.Sweep(ctx, start, end); err != nil || res.GivenBack != 1 {
		t.Fatalf("takeover sweep: %+v, %v; want the orphan given back", res, err)
	}
	close(pausedGW.resume)
	r := <-done
	if n := pausedGW.givenBack.Load(); n != 0 || r.res.GivenBack != 0 {
		t.Errorf("the resumed sweeper gave back %d (result %+v, %v); want nothing: its lease was taken over", n, r.res, r.err)
	}
	if r.err == nil {
		t.Errorf("the resumed sweeper answered no error; want the lost lease")
	}
	var refunded int64
	if err := pool.QueryRow(ctx, `SELECT refunded FROM sandbox_transactions WHERE id = $1`, tx.ID).Scan(&refunded); err != nil || refunded != 1200 {
		t.Errorf("orphan refunded %d (%v), want 1200 once", refunded, err)
	}
}
