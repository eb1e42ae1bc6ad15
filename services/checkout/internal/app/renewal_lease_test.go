package app_test

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hangar/hangar/services/checkout/internal/app"
)

// dueCardSubscriptions counts the seeded subscriptions a pass renews.
func (e *renewalEnv) dueCardSubscriptions(t *testing.T) int {
	t.Helper()
	var due int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM subscriptions WHERE payment_method = 'CREDIT_CARD' AND auto_renew`).
		Scan(&due); err != nil || due < 2 {
		t.Fatalf("due %d %v", due, err)
	}
	return due
}

// Issue 30: "a rerun with the same -as-of reported 'renewed 0' with no reason" while a
// killed pass's leases held its renewals, for 5 minutes, on the pass's clock (so a rerun
// as of the same time never took them over). Leases now run on the database's clock: a
// rerun reports the renewals it skipped and why, and takes them over once the dead
// pass's lease ran out, charging each term once.
func TestRerunOfAKilledPassSaysWhatItSkippedThenTakesOver(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	due := e.dueCardSubscriptions(t)
	asOf := e.termEnd.Add(-12 * time.Hour)
	e.clock.Set(asOf)
	ctx := context.Background()
	// The killed pass: it recorded the due terms and claimed them, then died (here: its
	// claims written as it left them, leased and never renewed again).
	if _, err := e.renewer().Run(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(ctx, `UPDATE renewals SET status = 'due', invoice_id = NULL, lease_until = clock_timestamp() + interval '1 hour'`); err != nil {
		t.Fatal(err)
	}

	res := e.run(t, e.renewer())
	if res.Renewed != 0 || len(res.Skipped) != 1 || res.Skipped[0].Reason != app.SkipLeased || res.Skipped[0].Count != due ||
		res.Skipped[0].Next.IsZero() {
		t.Fatalf("rerun while leased: %+v; want renewed 0 and %d skipped as %q with the lease's end", res, due, app.SkipLeased)
	}

	// The dead pass's leases run out (no heartbeat renews them).
	if _, err := e.pool.Exec(ctx, `UPDATE renewals SET lease_until = clock_timestamp() - interval '1 millisecond'`); err != nil {
		t.Fatal(err)
	}
	res = e.run(t, e.renewer())
	if res.Renewed != due || res.Skipped != nil {
		t.Fatalf("rerun after the lease: %+v; want %d renewed, none skipped", res, due)
	}
	for acct, n := range e.pay.paid {
		if n != 1 {
			t.Errorf("%s charged %d times", acct, n)
		}
	}
}

// A live worker renews its leases while it works, however long its charges take: a
// second pass meanwhile skips its renewals (and says so) instead of taking them over.
func TestRenewalLeaseIsRenewedWhileItsWorkerLives(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	due := e.dueCardSubscriptions(t)
	e.clock.Set(e.termEnd.Add(-12 * time.Hour))
	ctx := context.Background()
	const lease = time.Second
	const beat = 10 * time.Millisecond
	var beats atomic.Int64
	outlived := make(chan struct{}) // closed once the heartbeats covered more than a lease
	a := app.NewRenewer(e.svc, e.renewals(), slog.New(slog.NewTextHandler(io.Discard, nil)),
		app.RenewalOptions{Window: 48 * time.Hour, Reader: e.store, Lease: lease, Heartbeat: beat, OnHeartbeat: func() {
			if beats.Add(1) == int64(2*lease/beat) {
				close(outlived)
			}
		}})
	e.pay.block = make(chan struct{})
	done := make(chan app.RenewalResult, 1)
	go func() {
		res, err := a.Run(ctx)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-outlived // A's charges have been stuck for twice its lease

	b := app.NewRenewer(e.svc, e.renewals(), slog.New(slog.NewTextHandler(io.Discard, nil)),
		app.RenewalOptions{Window: 48 * time.Hour, Lease: lease, Reader: e.store})
	res, err := b.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Due != 0 || len(res.Skipped) != 1 || res.Skipped[0].Reason != app.SkipLeased || res.Skipped[0].Count != due {
		t.Errorf("second pass while the first lives: %+v; want nothing taken, %d skipped as leased", res, due)
	}
	close(e.pay.block)
	if res := <-done; res.Renewed != due {
		t.Errorf("first pass: %+v, want %d renewed", res, due)
	}
	for acct, n := range e.pay.paid {
		if n != 1 {
			t.Errorf("%s charged %d times", acct, n)
		}
	}
}
