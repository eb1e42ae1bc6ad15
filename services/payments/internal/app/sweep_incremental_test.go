package app_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/services/payments/internal/adapters"
	"github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// searches records the windows the sweeper asks the processor for, and moves the test's
// clock a minute on after each: a sweep a minute, however long the machine takes over one.
type searches struct {
	gateway.Gateway
	windows chan [2]time.Time
	minutes *atomic.Int64
}

func (g *searches) Search(ctx context.Context, from, to time.Time, limit int) ([]gateway.Record, error) {
	select {
	case g.windows <- [2]time.Time{from, to}:
	default: // the test has what it needs
	}
	defer g.minutes.Add(1)
	return g.Gateway.Search(ctx, from, to, limit)
}

// Issue 44: every minute the sweeper read the processor's whole last hour, so each
// transaction was read, decoded and looked up sixty times (the payments service's largest
// CPU per order at 10 orders a second, and an hour of it after traffic stopped). A sweep
// now starts where the replica's last one ended (less settle, the overlap), and the whole
// window is swept again once a window. Here each sweep is a minute after the last.
func TestSweeperReadsEachTransactionOnceAWindowNotEveryMinute(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool, log := sweepPool(t)
	var minutes atomic.Int64
	base := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return base.Add(time.Duration(minutes.Load()) * time.Minute) }
	gw := &searches{Gateway: gateway.NewSandbox(adapters.NewSandboxStore(pool), []byte("k"), 3*time.Hour, clock),
		windows: make(chan [2]time.Time, 64), minutes: &minutes}
	svc := app.New(adapters.NewStore(pool, propagation.TraceContext{}), gw, app.Policies{}, clock, log)
	const window, start, settle = 10 * time.Minute, 24 * time.Hour, 10 * time.Second
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.RunSweeper(ctx, 10*time.Millisecond, window, start, settle)
	}()
	var got [][2]time.Time
	for len(got) < 30 {
		got = append(got, <-gw.windows)
	}
	cancel()
	<-done

	if span := got[0][1].Sub(got[0][0]); span != start-settle {
		t.Errorf("the start-up sweep went over %v, want the start window less settle, %v", span, start-settle)
	}
	var incremental, whole int
	for i := 1; i < len(got); i++ {
		from, to, prevTo := got[i][0], got[i][1], got[i-1][1]
		switch span := to.Sub(from); {
		case from.Equal(prevTo.Add(-settle)):
			incremental++
		case span == window-settle:
			whole++
		default:
			t.Errorf("sweep %d went over [%v, %v) after one that ended at %v: neither from there less settle nor the whole window", i, from, to, prevTo)
		}
		if from.After(prevTo) {
			t.Errorf("sweep %d starts at %v, after the last one ended (%v): a gap no sweep reads", i, from, prevTo)
		}
	}
	// 29 sweeps over 29 minutes: the whole window at the 10th and 20th, the rest from where
	// the last ended.
	if incremental != 27 || whole != 2 {
		t.Errorf("%d sweeps from where the last one ended and %d of the whole window, want 27 and 2", incremental, whole)
	}
}
