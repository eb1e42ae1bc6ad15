package app_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// leasePayments is fakePayments with hooks: a charge that waits, declines by token, and a
// look-up that fails (payments unreachable).
type leasePayments struct {
	*fakePayments
	mu         sync.Mutex
	hold       chan struct{} // a charge waits for it to close
	entered    chan struct{}
	declines   map[string]bool
	lookupDown bool
}

func (l *leasePayments) Charge(ctx context.Context, r order.ChargeRequest) (order.Charge, error) {
	l.mu.Lock()
	hold, entered := l.hold, l.entered
	l.hold, l.entered = nil, nil
	declined := l.declines[r.Payment.Token]
	l.mu.Unlock()
	if hold != nil {
		close(entered)
		<-hold
	}
	if declined {
		l.fakePayments.mu.Lock()
		defer l.fakePayments.mu.Unlock()
		if c, ok := l.byKey[r.Key]; ok {
			return c, nil
		}
		c := order.Charge{ID: "ch-" + r.Key, Status: "FAILED", FailureCode: "declined", FailureMessage: "Do Not Honor"}
		l.byKey[r.Key] = c
		return c, nil
	}
	return l.fakePayments.Charge(ctx, r)
}

func (l *leasePayments) ChargeByKey(ctx context.Context, key string, fence int64) (order.Charge, error) {
	l.mu.Lock()
	down := l.lookupDown
	l.mu.Unlock()
	if down {
		return order.Charge{}, errs.E(errs.Unavailable, "payments is unavailable")
	}
	return l.fakePayments.ChargeByKey(ctx, key, fence)
}

type leaseEnv struct {
	*renewalEnv
	pay  *leasePayments
	pipe *order.Pipeline
}

func newLeaseEnv(t *testing.T, opts order.Options) *leaseEnv {
	e := newRenewalEnv(t)
	l := &leasePayments{fakePayments: e.pay, declines: map[string]bool{}}
	opts.Now = e.clock.Now
	pipe := order.NewPipeline(adapters.NewOrderStore(e.pool, propagation.TraceContext{}), l, discardLog(), opts)
	pipe.Register("lease-test", order.FulfillerFunc(func(context.Context, order.Tx, *order.Placed) ([]kafka.Event, error) { return nil, nil }))
	return &leaseEnv{renewalEnv: e, pay: l, pipe: pipe}
}

// expireSubmissions ends the leases of the pending submissions: their holders' time has
// run out. Leases run on the database's clock, which a test does not move.
func expireSubmissions(t testing.TB, pool *pgxpool.Pool) {
	t.Helper()
	if _, err := pool.Exec(context.Background(),
		`UPDATE submissions SET lease_until = least(lease_until, clock_timestamp()) - interval '1 millisecond' WHERE status = 'pending'`); err != nil {
		t.Fatal(err)
	}
}

func leasePurchase() *order.Purchase {
	return &order.Purchase{Kind: "lease-test", AccountID: app.SeedPilot, Email: "pilot@demo.hangar.test", Currency: "USD",
		SubtotalInCents: 2500, TotalInCents: 2500}
}

func (e *leaseEnv) orders(t *testing.T) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM orders WHERE kind = 'lease-test'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Checkout dies after the charge, before the write: the buyer's retry completes the order
// once the dead request's lease runs out — DefaultLease (seconds), not 2 minutes — and a
// retry that tokenised the card again (a new nonce, same key) gets the order, not "key
// reused".
func TestRetryTakesOverADeadSubmitWithinSeconds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	crashed := false
	e := newLeaseEnv(t, order.Options{AfterCharge: func(string) error {
		if !crashed {
			crashed = true
			return errors.New("checkout killed after the charge")
		}
		return nil
	}})
	if order.DefaultLease > 15*time.Second {
		t.Fatalf("the default lease is %v: a buyer caught by a crash waits that long", order.DefaultLease)
	}
	if _, err := e.pipe.Place(ctx, "dead-1", "h", leasePurchase(), order.Payment{Token: "tok-first"}); err == nil {
		t.Fatal("the injected crash did not happen")
	}
	// At once: the dead request still holds the key.
	if _, err := e.pipe.Place(ctx, "dead-1", "h", leasePurchase(), order.Payment{Token: "tok-again"}); !errors.Is(err, order.ErrInProgress) {
		t.Fatalf("retry within the lease: %v, want in progress", err)
	}
	expireSubmissions(t, e.pool)
	placed, err := e.pipe.Place(ctx, "dead-1", "h", leasePurchase(), order.Payment{Token: "tok-again"})
	if err != nil || placed.InvoiceID == "" {
		t.Fatalf("retry after the lease: %v", err)
	}
	if n := e.pay.paid[app.SeedPilot]; n != 1 {
		t.Errorf("%d charges, want 1 (the retry completes the first attempt with its payment)", n)
	}
	if n := e.orders(t); n != 1 {
		t.Errorf("%d orders, want 1", n)
	}
}

// A live submit renews its lease: a request slower than the lease is neither taken over by
// the reconciler nor by a retry while it runs.
func TestLiveSubmitKeepsItsLease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	beats := make(chan string, 16)
	e := newLeaseEnv(t, order.Options{Heartbeat: time.Millisecond, OnHeartbeat: func(k string) {
		select {
		case beats <- k:
		default:
		}
	}})
	hold, entered := make(chan struct{}), make(chan struct{})
	e.pay.hold, e.pay.entered = hold, entered
	start := e.clock.Now()
	done := make(chan error, 1)
	go func() {
		_, err := e.pipe.Place(ctx, "slow-1", "h", leasePurchase(), order.Payment{Token: "tok-1"})
		done <- err
	}()
	<-entered
	// Most of the lease goes by; a renewal after that carries the lease past its first end.
	e.clock.Set(start.Add(order.DefaultLease * 9 / 10))
	for len(beats) > 0 {
		<-beats
	}
	<-beats
	<-beats // one renewal certainly made at the new time
	e.clock.Set(start.Add(order.DefaultLease + time.Second))
	// Another replica: in this one the retry would join the running request.
	other := order.NewPipeline(adapters.NewOrderStore(e.pool, propagation.TraceContext{}), e.pay, discardLog(), order.Options{Now: e.clock.Now})
	other.Register("lease-test", order.FulfillerFunc(func(context.Context, order.Tx, *order.Placed) ([]kafka.Event, error) { return nil, nil }))
	if n, err := other.Reconcile(ctx); err != nil || n != 0 {
		t.Fatalf("reconcile took over a live submit: %d, %v", n, err)
	}
	if _, err := other.Place(ctx, "slow-1", "h", leasePurchase(), order.Payment{Token: "tok-1"}); !errors.Is(err, order.ErrInProgress) {
		t.Fatalf("a retry while the first request lives: %v, want in progress", err)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := e.orders(t); n != 1 {
		t.Errorf("%d orders, want 1", n)
	}
}

// A reconciler that cannot reach payments gives its claim back: the buyer's retry right
// after payments is back completes the order instead of waiting out the reconciler's lease.
func TestReconcilerReleasesWhatItCouldNotSettle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	crashed := false
	e := newLeaseEnv(t, order.Options{AfterCharge: func(string) error {
		if !crashed {
			crashed = true
			return errors.New("checkout killed after the charge")
		}
		return nil
	}})
	if _, err := e.pipe.Place(ctx, "rec-1", "h", leasePurchase(), order.Payment{Token: "tok-1"}); err == nil {
		t.Fatal("the injected crash did not happen")
	}
	expireSubmissions(t, e.pool)
	e.pay.lookupDown = true
	if n, err := e.pipe.Reconcile(ctx); err != nil || n != 0 {
		t.Fatalf("reconcile with payments down: %d, %v", n, err)
	}
	e.pay.lookupDown = false
	// Same instant: nothing waits for a lease.
	placed, err := e.pipe.Place(ctx, "rec-1", "h", leasePurchase(), order.Payment{Token: "tok-1"})
	if err != nil || placed.InvoiceID == "" {
		t.Fatalf("retry after the failed reconcile: %v", err)
	}
	if n := e.orders(t); n != 1 {
		t.Errorf("%d orders, want 1", n)
	}
}

// Pay, be declined, pay again with another card under the same key: one order, one charge.
// The same declined card again replays the decline without asking payments.
func TestPayAgainAfterADeclineWithTheSameKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newLeaseEnv(t, order.Options{})
	e.pay.declines["tok-bad"] = true
	_, err := e.pipe.Place(ctx, "again-1", "h", leasePurchase(), order.Payment{Token: "tok-bad"})
	if _, ok := order.AsDeclined(err); !ok {
		t.Fatalf("first attempt: %v, want declined", err)
	}
	calls := e.pay.calls
	if _, err := e.pipe.Place(ctx, "again-1", "h", leasePurchase(), order.Payment{Token: "tok-bad"}); err == nil {
		t.Fatal("the same declined card again was not declined")
	} else if _, ok := order.AsDeclined(err); !ok {
		t.Fatalf("the same card again: %v, want the decline replayed", err)
	}
	placed, err := e.pipe.Place(ctx, "again-1", "h", leasePurchase(), order.Payment{Token: "tok-good"})
	if err != nil || placed.InvoiceID == "" {
		t.Fatalf("another card under the key: %v", err)
	}
	again, err := e.pipe.Place(ctx, "again-1", "h", leasePurchase(), order.Payment{Token: "tok-third"})
	if err != nil || again.InvoiceID != placed.InvoiceID || !again.Replayed {
		t.Fatalf("the key after the order: %v %+v", err, again)
	}
	if e.pay.calls != calls+1 {
		t.Errorf("%d charges asked of payments after the first decline, want 1", e.pay.calls-calls)
	}
	if n := e.pay.paid[app.SeedPilot]; n != 1 {
		t.Errorf("%d successful charges, want 1", n)
	}
	if n := e.orders(t); n != 1 {
		t.Errorf("%d orders, want 1", n)
	}
	if _, err := e.pipe.Place(ctx, "again-1", "other-order", leasePurchase(), order.Payment{Token: "tok-good"}); !errors.Is(err, order.ErrKeyReused) {
		t.Errorf("another order under the key: %v, want key reused", err)
	}
}

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
