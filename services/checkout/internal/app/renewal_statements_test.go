package app_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// What a renewal pass that takes over a dead worker's attempt costs checkout's database.
// The attempt's key is pending (the worker died between the charge and the write); the
// pass reads its claimed batch's keys once, in one statement, and hands a key seen before
// to order.Pipeline.Resume, as a submit's retry does (app.Service.placeOnce). It used to
// read the key three times (the batch's Seen, renew's Lookup, and Place's Lookup after an
// INSERT that met the existing row): 25 round trips and 17 transactions, where the
// counts below are 22 and 14. The rest of the pass is pinned with it: the scheduler's
// transaction, the claim, the subscription, the take-over, the order's transaction, the
// renewal's record and the empty claim that ends the pass.
func TestRenewalTakeOverReadsTheKeyOnce(t *testing.T) {
	t.Parallel()
	e := newRenewalEnvWith(t, func(o *order.Options) {
		crashAfterFirstCharge(o)
		o.Heartbeat = -1 // no lease renewal to count
	})
	e.onlyPilot(t)
	r := app.NewRenewer(e.svc, e.renewals(), slog.New(slog.NewTextHandler(io.Discard, nil)),
		app.RenewalOptions{Window: 48 * time.Hour, Heartbeat: -1, Reader: e.store})
	start := e.termEnd.Add(-12 * time.Hour)
	e.clock.Set(start)
	if res, err := r.Run(context.Background()); err != nil || res.Outages != 1 {
		t.Fatalf("crashed pass %+v %v", res, err)
	}
	// After the outage delay the attempt is due again and its key's lease has run out.
	e.clock.Set(start.Add(11 * time.Minute))
	expireSubmissions(t, e.pool)
	counts := dbtest.Counter(t, e.pool)
	before := counts()
	if res := e.run(t, r); res.Renewed != 1 {
		t.Fatalf("take-over pass %+v", res)
	}
	got := counts().Minus(before)
	if want := (dbtest.Counts{Query: 22, Batched: 5, Transactions: 14}); got != want {
		t.Errorf("take-over pass: %+v, want %+v", got, want)
	}
	if e.pay.paid[app.SeedPilot] != 1 {
		t.Errorf("charged %d times", e.pay.paid[app.SeedPilot])
	}
}
