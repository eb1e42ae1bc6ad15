package app_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// Issue 39: exactly once when something is slow rather than dead.

// stallPayments is a process's way to payments with a pause in it: the first charge
// through it announces itself (entered) and waits for resume, as a process stopped there
// (SIGSTOP, a long GC, a slow network) would.
type stallPayments struct {
	order.Payments
	once            sync.Once
	entered, resume chan struct{}
	// during, when set, runs in the first charge instead of waiting for resume.
	during func()
}

func newStall(p order.Payments) *stallPayments {
	return &stallPayments{Payments: p, entered: make(chan struct{}), resume: make(chan struct{})}
}

func (s *stallPayments) Charge(ctx context.Context, r order.ChargeRequest) (order.Charge, error) {
	s.once.Do(func() {
		close(s.entered)
		if s.during != nil {
			s.during()
			return
		}
		<-s.resume
	})
	return s.Payments.Charge(ctx, r)
}

// commandProcess is the `checkout renew -as-of` command beside the running service: its
// own order pipeline and service on e's database, paying through pay, its clock the pass's
// -as-of (which selects and prices the pass), wired as services/checkout/app/renew.go
// wires it.
func (e *renewalEnv) commandProcess(t testing.TB, pay order.Payments, asOf time.Time, po order.Options, ro app.RenewalOptions) *app.Renewer {
	t.Helper()
	return e.commandProcessOn(t, adapters.NewOrderStore(e.pool, propagation.TraceContext{}), pay, asOf, po, ro)
}

// commandProcessOn is commandProcess with its order pipeline on store.
func (e *renewalEnv) commandProcessOn(t testing.TB, store order.Store, pay order.Payments, asOf time.Time, po order.Options, ro app.RenewalOptions) *app.Renewer {
	t.Helper()
	clock := func() time.Time { return asOf }
	po.Now = clock
	pipe := order.NewPipeline(store, pay, discardLog(), po)
	subs := adapters.NewStore(e.pool)
	svc := app.New(subs, nil, discardLog(), app.Options{Now: clock, QuoteKey: []byte("k"), Orders: pipe, Subs: subs})
	cat, err := domaintest.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	svc.SetCatalog(cat)
	if err := svc.RefreshPromotions(context.Background()); err != nil {
		t.Fatal(err)
	}
	pipe.Register(order.KindSubscription, app.SubscriptionFulfiller{Catalog: svc.Catalog})
	if ro.Window == 0 {
		ro.Window = 48 * time.Hour
	}
	return app.NewRenewer(svc, e.renewals(), discardLog(), ro)
}

// manyDue makes n more subscriptions due with the pilot's: copies of it, each of an
// account of its own (one customer each), and answers how many a pass renews.
func (e *renewalEnv) manyDue(t testing.TB, n int) int {
	t.Helper()
	if _, err := e.pool.Exec(context.Background(), `INSERT INTO subscriptions SELECT (jsonb_populate_record(s, jsonb_build_object(
			'id', '20000000-0000-4000-8000-' || lpad(i::text, 12, '0'), 'account_id', '10000000-0000-4000-8000-' || lpad(i::text, 12, '0'),
			'payment_method_token', 'tok-' || i))).*
		FROM subscriptions s, generate_series(0, $2 - 1) i WHERE s.id = $1`, app.SeedSubscriptionID(app.SeedPilot), n); err != nil {
		t.Fatal(err)
	}
	var due int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM subscriptions WHERE payment_method = 'CREDIT_CARD' AND auto_renew
		AND valid AND lapsed_at IS NULL AND payment_source = 'CREDIT_CARD' AND term_end < $1`, e.termEnd.Add(36*time.Hour)).Scan(&due); err != nil {
		t.Fatal(err)
	}
	return due
}

// expireLeases: the time a process was stopped for has outrun every lease (on the
// database's clock, which a test does not move).
func (e *renewalEnv) expireLeases(t testing.TB) {
	t.Helper()
	if _, err := e.pool.Exec(context.Background(), `UPDATE submissions SET lease_until = least(lease_until, clock_timestamp()) - interval '1 millisecond'
		WHERE status = 'pending'`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(context.Background(), `UPDATE renewals SET lease_until = clock_timestamp() - interval '1 millisecond'
		WHERE lease_until IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
}

// exactlyOnce checks that every customer was charged once, every due term renewed with
// an order that exists, and no order written twice for a term.
func (e *renewalEnv) exactlyOnce(t *testing.T, due int) {
	t.Helper()
	ctx := context.Background()
	e.pay.mu.Lock()
	doubled, charged := 0, 0
	for _, n := range e.pay.paid {
		charged++
		if n != 1 {
			doubled++
		}
	}
	e.pay.mu.Unlock()
	if doubled != 0 || charged != due {
		t.Errorf("%d customers charged, %d of them more than once; want %d charged once each", charged, doubled, due)
	}
	var renewed, withOrder, orders int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE rn.status = 'renewed'),
			count(*) FILTER (WHERE rn.status = 'renewed' AND EXISTS (SELECT 1 FROM orders o WHERE o.invoice_id = rn.invoice_id)),
			(SELECT count(*) FROM orders WHERE submission_key LIKE 'renewal:%')
		FROM renewals rn`).Scan(&renewed, &withOrder, &orders); err != nil {
		t.Fatal(err)
	}
	if renewed != due || withOrder != due || orders != due {
		t.Errorf("%d terms renewed (%d with an order that exists), %d renewal orders; want %d each", renewed, withOrder, orders, due)
	}
}

// The stalled owner after an abandon (reproduced with a 25 s stall after the claim): the
// submit's request stops between its claim and its charge past its lease; the reconciler
// finds no charge for the key and closes it as abandoned. The request then wakes. It used
// to charge the card and answer 200 with an invoice id that exists in no table; now
// payments refuses its charge (its fence is older than the reconciler's) and the buyer is
// told the truth: not completed, not charged.
func TestStalledSubmitAfterAbandonIsNeitherChargedNorToldOfAnInvoice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newLeaseEnv(t, order.Options{})
	stall := newStall(e.pay)
	owner := order.NewPipeline(adapters.NewOrderStore(e.pool, propagation.TraceContext{}), stall, discardLog(), order.Options{Now: e.clock.Now})
	owner.Register("lease-test", order.FulfillerFunc(func(context.Context, order.Tx, *order.Placed) ([]kafka.Event, error) { return nil, nil }))
	type answer struct {
		placed *order.Placed
		err    error
	}
	done := make(chan answer, 1)
	go func() {
		pl, err := owner.Place(ctx, "stalled-1", "h", leasePurchase(), order.Payment{Token: "tok-1"})
		done <- answer{pl, err}
	}()
	<-stall.entered
	// The stall outlives the lease (25 s): on every clock.
	e.clock.Set(e.clock.Now().Add(25 * time.Second))
	expireSubmissions(t, e.pool)
	if n, err := e.pipe.Reconcile(ctx); err != nil || n != 1 {
		t.Fatalf("reconcile during the stall: %d settled, %v", n, err)
	}
	var status string
	if err := e.pool.QueryRow(ctx, `SELECT status FROM submissions WHERE key = 'stalled-1'`).Scan(&status); err != nil || status != "abandoned" {
		t.Fatalf("the reconciler left the key %q (%v), want abandoned", status, err)
	}
	close(stall.resume)
	got := <-done
	if got.err == nil {
		var exists bool
		if err := e.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM orders WHERE invoice_id::text = $1)`, got.placed.InvoiceID).Scan(&exists); err != nil {
			t.Fatal(err)
		}
		t.Errorf("the stalled request answered success with invoice %s (exists: %v), want 'not completed'", got.placed.InvoiceID, exists)
	} else if !errors.Is(got.err, order.ErrAttemptClosed) {
		t.Errorf("the stalled request answered %v, want %v", got.err, order.ErrAttemptClosed)
	}
	if n := e.pay.paid[app.SeedPilot]; n != 0 {
		t.Errorf("the abandoned key was charged %d times by its old owner, want 0", n)
	}
	if n := e.orders(t); n != 0 {
		t.Errorf("%d orders, want 0", n)
	}
}

// `checkout renew -as-of <today>` beside the running service (no fault: 4 of 1,200
// customers were charged twice and 4 charges left without an invoice). The command's
// claims were leased on its frozen clock, so the service's reconciler, on its own clock,
// found them stale at once and closed the keys the command was charging; the service's
// worker then charged the next attempt. Here the service's reconciler runs once the
// command's first charges are in flight, and the service's worker starts beside it.
func TestRenewCommandBesideTheServiceChargesEachTermOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newRenewalEnv(t)
	due := e.manyDue(t, 1000)
	asOf := e.termEnd.Add(-12 * time.Hour).Truncate(24 * time.Hour) // -as-of <date>: midnight
	e.clock.Set(asOf.Add(9 * time.Hour))                            // the service runs on the time of day
	service := e.renewer()
	var wg sync.WaitGroup
	pay := newStall(e.pay)
	pay.during = func() {
		if _, err := e.pipe.Reconcile(ctx); err != nil {
			t.Error(err)
		}
		wg.Go(func() {
			if _, err := service.Run(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	command := e.commandProcess(t, pay, asOf, order.Options{}, app.RenewalOptions{})
	if _, err := command.Run(ctx); err != nil {
		t.Error(err)
	}
	wg.Wait()
	// What either left (a term retried later) the service's next pass finishes.
	e.clock.Set(e.clock.Now().Add(15 * time.Minute))
	e.run(t, service)
	e.exactlyOnce(t, due)
}

// The pass paused 45 s (40 customers charged without an order, 39 twice): the command is
// stopped inside its first batch's charges past its leases; the service's reconciler
// closes the keys nothing was charged for, its worker renews the terms with the next
// attempts. The command then wakes: its charges are refused (their fences are old), and
// it records nothing false.
func TestPausedRenewCommandChargesNothingTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newRenewalEnv(t)
	due := e.manyDue(t, 1000)
	asOf := e.termEnd.Add(-12 * time.Hour)
	e.clock.Set(asOf)
	pay := newStall(e.pay)
	// A stopped process renews no lease.
	command := e.commandProcess(t, pay, asOf, order.Options{Heartbeat: -1}, app.RenewalOptions{Heartbeat: -1})
	done := make(chan app.RenewalResult, 1)
	go func() {
		res, err := command.Run(ctx)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-pay.entered
	// Stopped 45 s: past every lease, on every clock (the service's is the time of day).
	e.clock.Set(asOf.Add(45 * time.Second))
	e.expireLeases(t)
	for {
		n, err := e.pipe.Reconcile(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	e.run(t, e.renewer())
	close(pay.resume)
	<-done
	e.clock.Set(asOf.Add(15 * time.Minute))
	e.run(t, e.renewer())
	e.exactlyOnce(t, due)
}

// A pass killed mid-way, rerun with the same arguments (36 customers were left charged
// with no renewal until an operator guessed a later -as-of): the rerun takes over the
// killed pass's attempts once their leases ran out on the database's clock — whatever
// the -as-of — and finishes them, charging nothing twice.
func TestKilledRenewCommandRerunWithTheSameArgumentsFinishesIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newRenewalEnv(t)
	due := e.manyDue(t, 1000)
	asOf := e.termEnd.Add(-12 * time.Hour)
	e.clock.Set(asOf)
	// The killed process: stopped for good right after its charges, before any write
	// (released at the end, when its answers no longer matter). Its leases are the
	// shortest there are, so the rerun need not wait for them.
	killed := make(chan struct{})
	var once sync.Once
	entered := make(chan struct{})
	dead := e.commandProcess(t, e.pay, asOf, order.Options{Lease: time.Microsecond, AfterCharge: func(string) error {
		once.Do(func() { close(entered) })
		<-killed
		return errors.New("killed")
	}}, app.RenewalOptions{Lease: time.Microsecond, Heartbeat: -1})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		_, _ = dead.Run(ctx)
	}()
	<-entered
	rerun := e.commandProcess(t, e.pay, asOf, order.Options{}, app.RenewalOptions{})
	res, err := rerun.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Renewed != due {
		t.Errorf("rerun with the same arguments: %+v; want all %d renewed", res, due)
	}
	close(killed)
	<-finished
	e.exactlyOnce(t, due)
}

// The pass paused past its leases with nobody else renewing: the reconciler closes the
// keys it had claimed and not charged (abandoned). The same command rerun with the same
// arguments, on the same clock, renews those terms at once: an abandoned attempt's next
// attempt is due at once, not after the outage retry (ten minutes: the terms stayed
// unrenewed and a rerun reported them "retry not due yet" until then).
func TestPausedRenewCommandRerunRenewsWhatItLeftAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newRenewalEnv(t)
	due := e.manyDue(t, 300)
	asOf := e.termEnd.Add(-12 * time.Hour)
	e.clock.Set(asOf)
	pay := newStall(e.pay)
	command := e.commandProcess(t, pay, asOf, order.Options{Heartbeat: -1}, app.RenewalOptions{Heartbeat: -1})
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := command.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	<-pay.entered
	e.expireLeases(t)
	for {
		n, err := e.pipe.Reconcile(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	close(pay.resume)
	<-done
	rerun := e.commandProcess(t, e.pay, asOf, order.Options{}, app.RenewalOptions{})
	res, err := rerun.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 0 {
		t.Errorf("rerun with the same arguments skipped %+v; want nothing left waiting", res.Skipped)
	}
	e.exactlyOnce(t, due)
}

// lookupThen is an order store whose first LookupMany, once answered, runs then: what
// another process does between a renewal worker's look-up of its keys and its next step.
type lookupThen struct {
	*adapters.OrderStore
	once sync.Once
	then func()
}

func (l *lookupThen) LookupMany(ctx context.Context, keys []string) (map[string]*order.Submission, error) {
	seen, err := l.OrderStore.LookupMany(ctx, keys)
	l.once.Do(l.then)
	return seen, err
}

// A pass killed between its charges and its writes, and the same command rerun: the rerun
// takes the killed pass's renewals over and looks their keys up (pending, the dead pass's),
// and the service's reconciler settles those keys right then: it completes the one whose
// charge it finds (the subscription's term moves on) and closes the rest (nothing was
// charged). The rerun records the completed term renewed with the reconciler's order, not
// "superseded" (the renewals row said nothing was charged for a term charged once), and
// takes the closed keys for closed, not "being processed" (which put them off by the
// outage retry, ten minutes): their next attempts renew them at once.
func TestRenewalFinishedByTheReconcilerMeanwhileIsRecordedRenewed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newRenewalEnv(t)
	due := e.manyDue(t, 40)
	asOf := e.termEnd.Add(-12 * time.Hour)
	e.clock.Set(asOf)
	killed, entered := make(chan struct{}), make(chan struct{})
	var once sync.Once
	dead := e.commandProcess(t, e.pay, asOf, order.Options{Lease: time.Microsecond, AfterCharge: func(string) error {
		once.Do(func() { close(entered) })
		<-killed
		return errors.New("killed")
	}}, app.RenewalOptions{Lease: time.Microsecond, Heartbeat: -1})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		_, _ = dead.Run(ctx)
	}()
	<-entered
	store := &lookupThen{OrderStore: adapters.NewOrderStore(e.pool, propagation.TraceContext{}), then: func() {
		for {
			n, err := e.pipe.Reconcile(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			if n == 0 {
				return
			}
		}
	}}
	rerun := e.commandProcessOn(t, store, e.pay, asOf, order.Options{}, app.RenewalOptions{})
	res, err := rerun.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 0 {
		t.Errorf("rerun skipped %+v; want nothing left waiting (the keys the reconciler closed are tried again at once)", res.Skipped)
	}
	close(killed)
	<-finished
	e.exactlyOnce(t, due)
}

// Two due terms of one account that holds a balance, renewed in one batch: both are priced
// with the balance, the first order spends it, the second cannot be written ("Your account
// balance changed") and its charge is refunded. That attempt is closed with nothing kept,
// so the pass renews the term at once with a fresh attempt (priced without the balance),
// not after the outage retry (ten minutes: the pass left it "retry not due yet").
func TestRenewalRefundedForASpentBalanceIsRenewedAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newRenewalEnv(t)
	pilot := app.SeedSubscriptionID(app.SeedPilot)
	var account string
	var balance int64
	if err := e.pool.QueryRow(ctx, `SELECT s.account_id::text, b.balance_in_cents FROM subscriptions s
		JOIN account_balances b ON b.account_id = s.account_id WHERE s.id = $1`, pilot).Scan(&account, &balance); err != nil || balance <= 0 {
		t.Fatalf("the pilot's balance: %d, %v; the seed should give it one", balance, err)
	}
	if _, err := e.pool.Exec(ctx, `INSERT INTO subscriptions SELECT (jsonb_populate_record(s, jsonb_build_object(
			'id', '20000000-0000-4000-8000-00000000b001'))).* FROM subscriptions s WHERE s.id = $1`, pilot); err != nil {
		t.Fatal(err)
	}
	asOf := e.termEnd.Add(-12 * time.Hour)
	e.clock.Set(asOf)
	res, err := e.commandProcess(t, e.pay, asOf, order.Options{}, app.RenewalOptions{}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 0 {
		t.Errorf("pass skipped %+v; want both terms renewed now", res.Skipped)
	}
	var renewed, withOrder int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE rn.status = 'renewed'),
			count(*) FILTER (WHERE EXISTS (SELECT 1 FROM orders o WHERE o.invoice_id = rn.invoice_id))
		FROM renewals rn JOIN subscriptions s ON s.id = rn.subscription_id WHERE s.account_id = $1`, account).Scan(&renewed, &withOrder); err != nil {
		t.Fatal(err)
	}
	if renewed != 2 || withOrder != 2 {
		t.Errorf("the account's terms: %d renewed, %d with an order; want both", renewed, withOrder)
	}
}

// A renewer paused past its lease, whose renewal row another renewer took over (the
// fence moved on), records neither its outage nor a next attempt when it wakes: those
// writes carry its fence, so the new holder's attempt, retry time and lease stand.
func TestPausedRenewerWritesNoOutageOrNextAttemptAfterATakeover(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	ctx := context.Background()
	pilot := app.SeedSubscriptionID(app.SeedPilot)
	if _, err := e.pool.Exec(ctx, `INSERT INTO renewals (subscription_id, term_end, next_attempt_at) VALUES ($1, $2, $2)`,
		pilot, e.termEnd); err != nil {
		t.Fatal(err)
	}
	r := e.renewals()
	now := e.termEnd.Add(time.Hour)
	paused, holder := e.takenOver(t, r, now)
	type row struct {
		attempt, outages int
		next             time.Time
		held             bool
	}
	read := func() row {
		t.Helper()
		var x row
		if err := e.pool.QueryRow(ctx, `SELECT attempt, outages, next_attempt_at, coalesce(lease_until >= clock_timestamp(), false)
			FROM renewals WHERE subscription_id = $1`, pilot).Scan(&x.attempt, &x.outages, &x.next, &x.held); err != nil {
			t.Fatal(err)
		}
		return x
	}
	before := read()
	if err := r.Outage(ctx, paused, now.Add(time.Hour), "UNAVAILABLE", "payments down"); err != nil {
		t.Fatal(err)
	}
	if err := r.NextAttempt(ctx, paused, now.Add(2*time.Hour), "UNAVAILABLE"); err != nil {
		t.Fatal(err)
	}
	if after := read(); after != before || !after.held {
		t.Errorf("after the paused renewer's writes: %+v; want the holder's row unchanged (%+v) and its lease held", after, before)
	}
	// The holder's own outage is recorded.
	if err := r.Outage(ctx, holder, now.Add(time.Hour), "UNAVAILABLE", "payments down"); err != nil {
		t.Fatal(err)
	}
	if after := read(); after.outages != before.outages+1 || after.held {
		t.Errorf("after the holder's outage: %+v; want one more outage and the lease given back", after)
	}
}

// A renewer paused past its lease, whose renewal row another renewer took over, records
// nothing when it wakes, whatever it came to record: a decline's retry, the last decline's
// lapse, the term's end (renewed, superseded, ending), or a batch's renewed terms. Each
// write carries the claim's fence; the holder's own write is recorded.
func TestPausedRenewerRecordsNoDeclineLapseOrEndAfterATakeover(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	ctx := context.Background()
	pilot := app.SeedSubscriptionID(app.SeedPilot)
	r := e.renewals()
	now := e.termEnd.Add(time.Hour)
	const invoice = "00000000-0000-4000-8000-00000000f39a"
	type row struct {
		status            string
		attempt, declines int
		next              time.Time
		invoice           string
		held              bool
	}
	read := func(t *testing.T) row {
		t.Helper()
		var x row
		if err := e.pool.QueryRow(ctx, `SELECT status, attempt, declines, next_attempt_at, coalesce(invoice_id::text, ''),
				coalesce(lease_until >= clock_timestamp(), false)
			FROM renewals WHERE subscription_id = $1`, pilot).Scan(&x.status, &x.attempt, &x.declines, &x.next, &x.invoice, &x.held); err != nil {
			t.Fatal(err)
		}
		return x
	}
	// write records j's outcome and answers whether the row took it.
	writes := map[string]func(t *testing.T, j *app.RenewalJob) bool{
		"retry": func(t *testing.T, j *app.RenewalJob) bool {
			var ok bool
			if _, err := r.InTx(ctx, false, func(tx app.RenewalTx) (err error) {
				ok, err = tx.Retry(ctx, j, now.Add(72*time.Hour), now, "card_declined", "declined")
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return ok
		},
		"lapse": func(t *testing.T, j *app.RenewalJob) bool {
			var ok bool
			if _, err := r.InTx(ctx, false, func(tx app.RenewalTx) (err error) {
				ok, err = tx.LapseRenewal(ctx, j, "card_declined", "declined")
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return ok
		},
		"finish": func(t *testing.T, j *app.RenewalJob) bool {
			ok, err := r.Finish(ctx, j, "renewed", invoice)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		},
		"finish a batch": func(t *testing.T, j *app.RenewalJob) bool {
			turned, err := r.FinishRenewed(ctx, []app.Renewed{{Job: j, InvoiceID: invoice, Currency: "USD", Total: 37000}})
			if err != nil {
				t.Fatal(err)
			}
			return len(turned) == 1
		},
	}
	for name, write := range writes {
		t.Run(name, func(t *testing.T) {
			if _, err := e.pool.Exec(ctx, `DELETE FROM renewals WHERE subscription_id = $1`, pilot); err != nil {
				t.Fatal(err)
			}
			if _, err := e.pool.Exec(ctx, `INSERT INTO renewals (subscription_id, term_end, next_attempt_at) VALUES ($1, $2, $2)`,
				pilot, e.termEnd); err != nil {
				t.Fatal(err)
			}
			paused, holder := e.takenOver(t, r, now)
			before := read(t)
			if write(t, paused) {
				t.Errorf("the paused renewer's write was recorded")
			}
			if after := read(t); after != before || !after.held {
				t.Errorf("after the paused renewer's write: %+v; want the holder's row unchanged (%+v) and its lease held", after, before)
			}
			if !write(t, holder) {
				t.Errorf("the holder's write was not recorded")
			}
			if after := read(t); after == before || after.held {
				t.Errorf("after the holder's write: %+v; want it recorded and the lease given back", after)
			}
		})
	}
}

// takenOver claims the one due renewal, lets its lease run out and claims it again: the
// first claim is the paused renewer's, the second the holder's, with a newer fence for the
// same attempt.
func (e *renewalEnv) takenOver(t *testing.T, r *adapters.Renewals, now time.Time) (paused, holder *app.RenewalJob) {
	t.Helper()
	claim := func() *app.RenewalJob {
		t.Helper()
		jobs, err := r.Claim(context.Background(), now, time.Minute, 10)
		if err != nil || len(jobs) != 1 {
			t.Fatalf("Claim = %d jobs, %v; want the pilot's renewal", len(jobs), err)
		}
		return jobs[0]
	}
	paused = claim()
	e.expireLeases(t)
	holder = claim()
	if holder.Fence <= paused.Fence || holder.Attempt != paused.Attempt {
		t.Fatalf("takeover: fence %d → %d, attempt %d → %d; want the fence moved on, the attempt kept",
			paused.Fence, holder.Fence, paused.Attempt, holder.Attempt)
	}
	return paused, holder
}
