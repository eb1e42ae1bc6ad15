package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// A submit whose charge failed because payments was down (restarting, circuit open) is
// tried again by the buyer's retry with the same key at once; one charge. Before, the retry
// was told "This order is being processed" (409) until the lease ran out (2 minutes), then
// "could not be completed" (scripts/chaos.sh: 14 of 208 purchases failed so while payments
// was killed).
func TestSubmitRetriedAfterPaymentsOutage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newRenewalEnv(t)
	e.pipe.Register("retry-test", order.FulfillerFunc(func(context.Context, order.Tx, *order.Placed) ([]kafka.Event, error) { return nil, nil }))
	down := true
	e.pay.outage = func(string) error {
		if down {
			return errs.E(errs.Unavailable, "payments is unavailable (circuit open)")
		}
		return nil
	}
	pu := func() *order.Purchase {
		return &order.Purchase{Kind: "retry-test", AccountID: app.SeedPilot, Email: "pilot@demo.hangar.test", Currency: "USD",
			SubtotalInCents: 1000, TotalInCents: 1000}
	}
	pay := order.Payment{Token: "tok-1"}

	// Retry at once.
	if _, err := e.pipe.Place(ctx, "key-1", "h1", pu(), pay); errs.CodeOf(err) != errs.Unavailable {
		t.Fatalf("first attempt during the outage: %v", err)
	}
	down = false
	p1, err := e.pipe.Place(ctx, "key-1", "h1", pu(), pay)
	if err != nil || p1.InvoiceID == "" {
		t.Fatalf("retry right after the outage: %v", err)
	}

	if again, err := e.pipe.Place(ctx, "key-1", "h1", pu(), pay); err != nil || again.InvoiceID != p1.InvoiceID {
		t.Errorf("replay: %v", err)
	}
	// An abandoned key stays closed (the renewer moves on to a fresh key after it).
	down = true
	if _, err := e.pipe.Place(ctx, "key-2", "h2", pu(), pay); errs.CodeOf(err) != errs.Unavailable {
		t.Fatalf("second key during the outage: %v", err)
	}
	e.clock.Set(e.clock.Now().Add(time.Second))
	if _, err := e.pipe.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	down = false
	if _, err := e.pipe.Place(ctx, "key-2", "h2", pu(), pay); errs.CodeOf(err) != errs.Conflict {
		t.Errorf("retry of the abandoned key: %v, want the 'not charged' conflict", err)
	}
	if n := e.pay.paid[app.SeedPilot]; n != 1 {
		t.Errorf("%d charges for one order", n)
	}
	var orders int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM orders WHERE kind = 'retry-test'`).Scan(&orders); err != nil || orders != 1 {
		t.Errorf("%d orders, want 1 (%v)", orders, err)
	}
}
