package app_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
	"github.com/hangar/hangar/services/checkout/internal/app"
)

// A crash between the charge and the write: the order reconciler writes the order from
// the stored purchase, and the next renewal attempt finds the attempt's key completed and
// records the renewal without charging again.
func TestRenewalCrashBetweenChargeAndWriteRecoveredOnce(t *testing.T) {
	t.Parallel()
	e := newRenewalEnvWith(t, crashAfterFirstCharge)
	id := e.onlyPilot(t)
	r := e.renewer()
	start := e.termEnd.Add(-12 * time.Hour)
	e.clock.Set(start)
	if res, err := r.Run(context.Background()); err != nil || res.Renewed != 0 || res.Outages != 1 {
		t.Fatalf("crashed pass %+v %v", res, err)
	}
	if e.pay.paid[app.SeedPilot] != 1 {
		t.Fatalf("charged %d times before the crash", e.pay.paid[app.SeedPilot])
	}
	// After the order's lease the reconciler finishes the order (the term moves on).
	e.clock.Set(start.Add(3 * time.Minute))
	expireSubmissions(t, e.pool)
	if n, err := e.pipe.Reconcile(context.Background()); err != nil || n != 1 {
		t.Fatalf("reconcile %d %v", n, err)
	}
	if end, _ := e.termEndOf(t, id); !end.Equal(e.termEnd.AddDate(1, 0, 0)) {
		t.Fatalf("term end after reconcile %v", end)
	}
	// The renewal's retry after the outage delay records it, charging nothing more.
	e.clock.Set(start.Add(11 * time.Minute))
	if res := e.run(t, r); res.Renewed != 1 || res.Declined != 0 {
		t.Fatalf("recovery pass %+v", res)
	}
	e.clock.Set(start.Add(2 * time.Hour))
	e.run(t, r)
	var status string
	var orders int
	if err := e.pool.QueryRow(context.Background(), `SELECT rn.status, (SELECT count(*) FROM orders) FROM renewals rn
		JOIN orders o ON o.invoice_id = rn.invoice_id WHERE rn.subscription_id = $1`, id).Scan(&status, &orders); err != nil {
		t.Fatal(err)
	}
	if status != "renewed" || orders != 1 || e.pay.paid[app.SeedPilot] != 1 {
		t.Errorf("status %s, orders %d, charged %d", status, orders, e.pay.paid[app.SeedPilot])
	}
}

// A processor outage is retried with the same key after the outage delay, without a
// decline, a dunning notice or a move of the retry schedule.
func TestRenewalOutageIsNotADecline(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	e.onlyPilot(t)
	down := true
	e.pay.outage = func(string) error {
		if down {
			return errs.E(errs.Unavailable, "processor unavailable")
		}
		return nil
	}
	r := e.renewer()
	start := e.termEnd.Add(-12 * time.Hour)
	e.clock.Set(start)
	if res, err := r.Run(context.Background()); err != nil || res.Outages != 1 || res.Declined != 0 {
		t.Fatalf("outage pass %+v %v", res, err)
	}
	if len(e.notices(t)) != 0 {
		t.Error("an outage sent a dunning notice")
	}
	// Not before the outage delay: the payments lease and the reconciler settle first.
	e.clock.Set(start.Add(5 * time.Minute))
	if res := e.run(t, r); res.Due != 0 {
		t.Fatalf("retried early %+v", res)
	}
	down = false
	e.clock.Set(start.Add(11 * time.Minute))
	if res := e.run(t, r); res.Renewed != 1 {
		t.Fatalf("after the outage %+v", res)
	}
	var declines, outages int
	if err := e.pool.QueryRow(context.Background(), `SELECT declines, outages FROM renewals`).Scan(&declines, &outages); err != nil {
		t.Fatal(err)
	}
	if declines != 0 || outages != 1 || e.pay.paid[app.SeedPilot] != 1 {
		t.Errorf("declines %d outages %d paid %d", declines, outages, e.pay.paid[app.SeedPilot])
	}
}

// The legacy plan is replaced at renewal, as the renewal price shows it.
func TestRenewalReplacesLegacyPlan(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	id := app.SeedSubscriptionID(app.SeedLegacy)
	if _, err := e.pool.Exec(context.Background(), `UPDATE subscriptions SET term_end = term_end + interval '1 year' WHERE id <> $1`, id); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(e.termEnd.Add(-12 * time.Hour))
	pv, err := e.svc.RenewalPrice(context.Background(), id)
	if err != nil || !pv.Cart.LegacyReplaced {
		t.Fatalf("renewal price %+v %v", pv, err)
	}
	if res := e.run(t, e.renewer()); res.Renewed != 1 {
		t.Fatalf("%+v", res)
	}
	var plan string
	var total int64
	if err := e.pool.QueryRow(context.Background(), `SELECT s.plan_code, o.total_in_cents FROM subscriptions s JOIN orders o ON o.invoice_id = s.last_invoice_id
		WHERE s.id = $1`, id).Scan(&plan, &total); err != nil {
		t.Fatal(err)
	}
	if plan == "pro_us" || plan != pv.Cart.Plan.Code || total != pv.Invoice.TotalInCents {
		t.Errorf("renewed as %s for %d; the renewal price said %s for %d", plan, total, pv.Cart.Plan.Code, pv.Invoice.TotalInCents)
	}
}

// Issue 17: a legacy plan renewed inside a non-zero renewal window (40 hours before its
// term ends, window 48 hours) is a renewal at the renewal price (the successor's price,
// the term extended from its end), not a plan change restarting the term today with a
// credit for the unused day.
func TestRenewalOfLegacyPlanInsideTheWindowIsARenewal(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	ctx := context.Background()
	id := app.SeedSubscriptionID(app.SeedLegacy)
	if _, err := e.pool.Exec(ctx, `UPDATE subscriptions SET term_end = term_end + interval '1 year' WHERE id <> $1`, id); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(e.termEnd.Add(-40 * time.Hour))
	pv, err := e.svc.RenewalPrice(ctx, id)
	if err != nil || !pv.Cart.LegacyReplaced {
		t.Fatalf("renewal price %+v %v", pv, err)
	}
	if pv.Change != "renewal" || pv.Invoice.CreditInCents != 0 || pv.PlanChange.NeedsConfirmation {
		t.Errorf("renewal price is a %q with credit %d, plan change %+v", pv.Change, pv.Invoice.CreditInCents, pv.PlanChange)
	}
	if res := e.run(t, e.renewer()); res.Renewed != 1 {
		t.Fatalf("%+v", res)
	}
	var termStart, termEnd time.Time
	var total, credit int64
	if err := e.pool.QueryRow(ctx, `SELECT s.term_start, s.term_end, o.total_in_cents,
			(SELECT coalesce(sum(amount_in_cents), 0) FROM invoice_lines l WHERE l.invoice_id = o.invoice_id AND l.type = 'SUBSCRIPTION_CREDIT')
		FROM subscriptions s JOIN orders o ON o.invoice_id = s.last_invoice_id WHERE s.id = $1`, id).Scan(&termStart, &termEnd, &total, &credit); err != nil {
		t.Fatal(err)
	}
	months := pv.Cart.Plan.Months()
	if !termStart.Equal(e.termEnd) || !termEnd.Equal(e.termEnd.AddDate(0, months, 0)) {
		t.Errorf("renewed term %v..%v, want %v..%v", termStart, termEnd, e.termEnd, e.termEnd.AddDate(0, months, 0))
	}
	if credit != 0 || total != pv.Invoice.TotalInCents {
		t.Errorf("charged %d with credit %d; the renewal price said %d", total, credit, pv.Invoice.TotalInCents)
	}
}

// A payment-method update during the grace period retries the renewal at once (a job is
// published), before the next scheduled retry; the new token is charged.
func TestRenewalPaymentMethodUpdateRetriesAtOnce(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	id := e.onlyPilot(t)
	e.pay.decline = func(string) bool { return true }
	r := e.renewer()
	start := e.termEnd.Add(-12 * time.Hour)
	e.clock.Set(start)
	if res := e.run(t, r); res.Declined != 1 {
		t.Fatalf("%+v", res)
	}
	st, err := r.Account().Status(context.Background(), app.Viewer{AccountUUID: app.SeedPilot})
	if err != nil || st.State != "retrying" || st.Declines != 1 || !st.NextAttempt.Equal(start.Add(24*time.Hour)) ||
		!st.GraceEnds.Equal(start.Add(7*24*time.Hour)) || !strings.Contains(st.Message, "Your card was declined.") {
		t.Fatalf("status %+v %v", st, err)
	}
	e.pay.decline = nil
	e.clock.Set(start.Add(2 * time.Hour))
	b, _ := proto.Marshal(&eventsv1.PaymentMethodUpdated{AccountId: app.SeedPilot, PaymentMethod: "CREDIT_CARD",
		PaymentMethodToken: "tok-new", ExpirationDate: "01/2031", UpdatedAt: timestamppb.New(e.clock.Now())})
	if err := e.methodsConsumer().HandleBatch(context.Background(), []kafka.Envelope{{ID: "ev-1", Topic: events.TopicPaymentMethodUpdated, Data: b}}); err != nil {
		t.Fatal(err)
	}
	if res := e.run(t, r); res.Renewed != 1 {
		t.Fatalf("not retried at once: %+v", res)
	}
	var tok string
	var exp time.Time
	if err := e.pool.QueryRow(context.Background(), `SELECT payment_method_token, card_expires_at FROM subscriptions WHERE id = $1`, id).
		Scan(&tok, &exp); err != nil || tok != "tok-new" || !exp.Equal(time.Date(2031, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("stored method %s %v %v", tok, exp, err)
	}
}

// The scheduler sends the annual reminder (amount and date) and the expiring-card notice
// once per term, ReminderBefore/CardNoticeBefore ahead; auto-renew off gets neither.
func TestRenewalReminderAndCardNotice(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	id := e.onlyPilot(t)
	if _, err := e.pool.Exec(context.Background(), `UPDATE subscriptions SET card_expires_at = term_end - interval '10 days' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	r := e.renewer()
	e.clock.Set(e.termEnd.Add(-31 * 24 * time.Hour))
	if res, err := r.Schedule(context.Background()); err != nil || res.Reminders != 0 || res.CardNotices != 0 {
		t.Fatalf("early %+v %v", res, err)
	}
	e.clock.Set(e.termEnd.Add(-29 * 24 * time.Hour))
	for range 2 {
		if _, err := r.Schedule(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	pv, err := e.svc.RenewalPrice(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	ns := e.notices(t)
	if len(ns) != 2 || ns[0].Kind != "renewal-reminder" || ns[0].Amount.GetAmountInCents() != pv.Invoice.TotalInCents ||
		!ns[0].Date.AsTime().Equal(e.termEnd) || ns[1].Kind != "card-expiring" || ns[1].ActionUrl != "/account" {
		t.Errorf("notices %v", ns)
	}
}

// Turning auto-renew off confirms by e-mail; the term is not charged, and at its end the
// subscription lapses with subscription-changed (its allocations expire through it).
func TestAutoRenewOffConfirmedAndTermEnds(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	id := e.onlyPilot(t)
	if _, err := e.svc.SetAutoRenew(context.Background(), app.Viewer{AccountUUID: app.SeedPilot}, "performance", false); err != nil {
		t.Fatal(err)
	}
	ns := e.notices(t)
	if len(ns) != 1 || ns[0].Kind != "auto-renew-disabled" || !ns[0].Date.AsTime().Equal(e.termEnd) {
		t.Fatalf("confirmation %v", ns)
	}
	r := e.renewer()
	e.clock.Set(e.termEnd.Add(-12 * time.Hour))
	if res, err := r.Schedule(context.Background()); err != nil || res.Ending != 1 || res.Recorded != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	e.clock.Set(e.termEnd.Add(time.Minute))
	if res, err := r.Schedule(context.Background()); err != nil || res.Ended != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if _, valid := e.termEndOf(t, id); valid || e.pay.calls != 0 {
		t.Errorf("valid %v after its term, charges %d", valid, e.pay.calls)
	}
	if tp := e.topics(t); tp[events.TopicSubscriptionChanged] != 2 { // the auto-renew change, then the end
		t.Errorf("events %v", tp)
	}
}

// The auto-renew confirmation links where the renewal's e-mails do (CHECKOUT_ACCOUNT_URL),
// not to a fixed "/account" (the store built the notice and wrote that link itself).
func TestAutoRenewOffConfirmationLinksTheAccountURL(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	e.onlyPilot(t)
	store := adapters.NewStore(e.pool)
	svc := app.New(store, nil, slog.New(slog.NewTextHandler(io.Discard, nil)),
		app.Options{Now: e.clock.Now, QuoteKey: []byte("k"), Orders: e.pipe, Subs: store, AccountURL: "https://store.test/account"})
	if _, err := svc.SetAutoRenew(context.Background(), app.Viewer{AccountUUID: app.SeedPilot}, "performance", false); err != nil {
		t.Fatal(err)
	}
	if ns := e.notices(t); len(ns) != 1 || ns[0].Kind != "auto-renew-disabled" || ns[0].ActionUrl != "https://store.test/account" {
		t.Errorf("confirmation %v, want its link https://store.test/account", ns)
	}
}

// Turned off in the grace period (the renewal was declined and is being retried, the term
// has ended): its own confirmation, naming the decline, says the retries stop and the
// subscription ends now (not "active until" a date already past); no retry charges it, and
// the next pass ends the term.
func TestAutoRenewOffInGracePeriodConfirmed(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	id := e.onlyPilot(t)
	e.pay.decline = func(string) bool { return true }
	r := e.renewer()
	start := e.termEnd.Add(-12 * time.Hour)
	e.clock.Set(start)
	if res := e.run(t, r); res.Declined != 1 {
		t.Fatalf("%+v", res)
	}
	e.clock.Set(e.termEnd.Add(2 * time.Hour)) // in the grace period, before the first retry
	pilot := app.Viewer{AccountUUID: app.SeedPilot}
	if sub, err := e.svc.SetAutoRenew(context.Background(), pilot, "performance", false); err != nil || sub.AutoRenew {
		t.Fatalf("set auto-renew: %v %v", sub, err)
	}
	ns := e.notices(t)
	if len(ns) != 2 || ns[0].Kind != "renewal-declined" {
		t.Fatalf("notices %v", ns)
	}
	if n := ns[1]; n.Kind != "auto-renew-disabled-grace" || n.Reason != "Your card was declined." || n.SubscriptionId != id ||
		!n.Date.AsTime().Equal(e.termEnd) || n.ActionUrl != "/account" || n.Email != app.SeedPilotEmail {
		t.Errorf("confirmation %v", n)
	}
	st, err := r.Account().Status(context.Background(), pilot)
	if err != nil || st.State != "ending" || st.AutoRenew || !strings.Contains(st.Message, "ends now") {
		t.Errorf("status %+v %v", st, err)
	}
	// Past every retry date: nothing is charged again, the term ends once.
	e.clock.Set(start.Add(8 * 24 * time.Hour))
	if res := e.run(t, r); res.Due != 0 || res.Lapsed != 1 {
		t.Errorf("after turning it off: %+v", res)
	}
	if _, valid := e.termEndOf(t, id); valid || e.pay.calls != 1 {
		t.Errorf("valid %v, charge attempts %d (want the first only)", valid, e.pay.calls)
	}
	// Turned off before any decline, the confirmation stays the ordinary one.
	if _, err := e.svc.SetAutoRenew(context.Background(), app.Viewer{AccountUUID: app.SeedLegacy}, "pro_us", false); err != nil {
		t.Fatal(err)
	}
	if ns := e.notices(t); len(ns) != 3 || ns[2].Kind != "auto-renew-disabled" || ns[2].Reason != "" {
		t.Errorf("ordinary confirmation %v", ns)
	}
}

// The scheduled pass as the service runs it: two replicas each run the scheduler (the
// advisory lock lets one record at a time) and two renewal workers claiming from the
// renewals table; every due subscription is renewed once, and no term is charged twice.
func TestScheduledPassTwoReplicasOverTheRenewalsQueue(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	e.clock.Set(e.termEnd.Add(-12 * time.Hour))
	var due int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM subscriptions WHERE payment_method = 'CREDIT_CARD' AND payment_source = 'CREDIT_CARD' AND auto_renew`).
		Scan(&due); err != nil || due < 4 {
		t.Fatalf("due %d %v", due, err)
	}
	var workers, schedulers sync.WaitGroup
	var recorded [2]atomic.Int32
	for replica := range 2 {
		r := app.NewRenewer(e.svc, e.renewals(), log, app.RenewalOptions{Window: 48 * time.Hour, ClaimBatch: 2, Reader: e.store})
		workers.Add(1)
		go func() { defer workers.Done(); r.RunWorkers(ctx, 2, 10*time.Millisecond) }()
		schedulers.Add(1)
		go func() {
			defer schedulers.Done()
			res, err := r.Schedule(ctx)
			if err != nil {
				t.Error(err)
			}
			recorded[replica].Store(int32(res.Recorded))
		}()
	}
	schedulers.Wait()
	// Wait for the outcome (every due term renewed), not for a time.
	renewed := e.waitRenewed(t, due)
	cancel()
	workers.Wait()
	if renewed != due {
		t.Fatalf("renewed %d of %d", renewed, due)
	}
	if n := recorded[0].Load() + recorded[1].Load(); int(n) != due {
		t.Errorf("terms recorded %d (replicas %d + %d), want %d", n, recorded[0].Load(), recorded[1].Load(), due)
	}
	for acct, n := range e.pay.paid {
		if n != 1 {
			t.Errorf("%s charged %d times", acct, n)
		}
	}
	var orders int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM orders`).Scan(&orders); err != nil || orders != due {
		t.Errorf("orders %d, due %d (%v)", orders, due, err)
	}
}

// waitRenewed waits (60 s at most) until n renewals are recorded renewed, and answers how
// many are.
func (e *renewalEnv) waitRenewed(t *testing.T, n int) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var renewed int
	for time.Now().Before(deadline) {
		if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM renewals WHERE status = 'renewed'`).Scan(&renewed); err != nil {
			t.Fatal(err)
		}
		if renewed == n {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return renewed
}

// A renewal has one lease: the worker's claim. Recorded by the scheduler, a due renewal is
// the workers' at once (there is no published job in flight to wait for, which kept a
// renewal whose job was lost for CHECKOUT_RENEWAL_JOB_LEASE); claimed by a worker that
// died, it is taken over by another once that claim's lease has run out, and charged once.
func TestRenewalWorkItemHasOneLeaseTakenOverAfterIt(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	due := e.dueCardSubscriptions(t)
	e.clock.Set(e.termEnd.Add(-12 * time.Hour))
	r := e.renewer()
	if res, err := r.Schedule(ctx); err != nil || res.Recorded != due {
		t.Fatalf("schedule %+v %v", res, err)
	}
	// The dead worker: it claimed every due renewal, then died before charging (no heartbeat).
	const lease = 300 * time.Millisecond
	dead, err := e.renewals().Claim(ctx, e.clock.Now(), lease, 100)
	if err != nil || len(dead) != due {
		t.Fatalf("claim %d of %d (%v)", len(dead), due, err)
	}
	var leases int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM renewals WHERE lease_until > clock_timestamp()`).Scan(&leases); err != nil || leases != due {
		t.Fatalf("leased %d of %d (%v)", leases, due, err)
	}
	done := make(chan struct{})
	go func() { defer close(done); r.RunWorkers(ctx, 2, 10*time.Millisecond) }()
	renewed := e.waitRenewed(t, due)
	cancel()
	<-done
	if renewed != due {
		t.Fatalf("renewed %d of %d after the dead worker's lease", renewed, due)
	}
	for acct, n := range e.pay.paid {
		if n != 1 {
			t.Errorf("%s charged %d times", acct, n)
		}
	}
}

// The /account invoice history lists the renewal's invoice, and says where printing an
// invoice is offered: the receipt's rule (EU billing country, business id, EU
// subscription), never on a refund.
func TestAccountInvoicesSayWherePrintingIsOffered(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	e.onlyPilot(t)
	r := e.renewer()
	e.clock.Set(e.termEnd.Add(-12 * time.Hour))
	if res := e.run(t, r); res.Renewed != 1 {
		t.Fatalf("%+v", res)
	}
	pilot := app.Viewer{AccountUUID: app.SeedPilot, Username: app.SeedPilotEmail}
	list := func() []app.InvoiceSummary {
		t.Helper()
		l, err := r.Account().Invoices(context.Background(), pilot)
		if err != nil || len(l) != 1 {
			t.Fatalf("invoices %v %v", l, err)
		}
		return l
	}
	if i := list()[0]; !i.Renewal || i.Status != "paid" || i.TotalInCents <= 0 || i.CanPrintInvoice {
		t.Errorf("US renewal invoice %+v", i)
	}
	if _, err := e.pool.Exec(context.Background(), `UPDATE orders SET billing_country = 'DE'`); err != nil {
		t.Fatal(err)
	}
	if i := list()[0]; !i.CanPrintInvoice {
		t.Errorf("EU invoice not printable: %+v", i)
	}
	if _, err := e.pool.Exec(context.Background(), `UPDATE orders SET status = 'refunded'`); err != nil {
		t.Fatal(err)
	}
	if i := list()[0]; i.CanPrintInvoice {
		t.Errorf("refunded invoice printable: %+v", i)
	}
	if _, err := r.Account().Invoices(context.Background(), app.Viewer{}); errs.CodeOf(err) != errs.Unauthorized {
		t.Errorf("anonymous: %v", err)
	}
}

// Issue 44: idle renewal workers look for due renewals only every CHECKOUT_RENEWAL_POLL
// (30 s; here an hour), and what their replica's scheduler records wakes them: they claim
// it at once, without waiting for the poll.
func TestRenewalWorkersWakeWhenTheSchedulerRecords(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	e.clock.Set(e.termEnd.Add(-12 * time.Hour))
	var due int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM subscriptions WHERE payment_method = 'CREDIT_CARD' AND payment_source = 'CREDIT_CARD' AND auto_renew`).
		Scan(&due); err != nil || due < 4 {
		t.Fatalf("due %d %v", due, err)
	}
	counts := dbtest.Counter(t, e.pool)
	r := app.NewRenewer(e.svc, e.renewals(), log, app.RenewalOptions{Window: 48 * time.Hour, ClaimBatch: 2, Reader: e.store})
	var workers sync.WaitGroup
	workers.Add(1)
	go func() { defer workers.Done(); r.RunWorkers(ctx, 2, time.Hour) }()
	// Both workers' first claims found nothing recorded: they wait for the poll.
	for deadline := time.Now().Add(30 * time.Second); counts().Statements() < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%+v: the workers never claimed", counts())
		}
	}
	res, err := r.Schedule(ctx)
	if err != nil || res.Recorded != due {
		t.Fatalf("scheduled %+v, %v; want %d recorded", res, err, due)
	}
	renewed := e.waitRenewed(t, due)
	cancel()
	workers.Wait()
	if renewed != due {
		t.Fatalf("renewed %d of %d within a minute: the workers waited for their poll", renewed, due)
	}
}
