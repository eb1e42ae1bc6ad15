package app_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
	"github.com/hangar/hangar/services/checkout/internal/order"
	"github.com/hangar/hangar/services/checkout/internal/ports"

	"github.com/jackc/pgx/v5/pgxpool"
)

// clock is the injected clock of a renewal test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

// fakePayments behaves like payments' Charge: once per idempotency key (a repeated key
// answers the first outcome). decline answers whether a new charge is declined.
type fakePayments struct {
	mu      sync.Mutex
	byKey   map[string]order.Charge
	paid    map[string]int // successful charges per customer
	calls   int
	decline func(customer string) bool
	// outage, when it answers an error, is answered instead of a charge (processor down).
	outage func(customer string) error
	// block, when set, holds every charge until it is closed (a slow processor).
	block chan struct{}
	// fences is the newest fencing token seen per key, as payments keeps it: a charge
	// under an older one is refused before anything is charged.
	fences map[string]int64
}

// fence records a request's token for key and reports whether a newer one is recorded
// (f.mu held).
func (f *fakePayments) fence(key string, token int64) (fenced bool) {
	if token == 0 {
		return false
	}
	if f.fences == nil {
		f.fences = map[string]int64{}
	}
	if f.fences[key] > token {
		return true
	}
	f.fences[key] = token
	return false
}

func (f *fakePayments) Charge(_ context.Context, r order.ChargeRequest) (order.Charge, error) {
	if f.block != nil {
		<-f.block
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.fence(r.Key, r.Fence) {
		return order.Charge{}, &errs.Error{Code: errs.Precondition, Reason: order.FencedReason, Message: "fenced"}
	}
	if r.Payment.Token == "" {
		return order.Charge{}, errs.E(errs.Invalid, "no method")
	}
	if c, ok := f.byKey[r.Key]; ok {
		return c, nil
	}
	if f.outage != nil {
		if err := f.outage(r.CustomerID); err != nil {
			return order.Charge{}, err
		}
	}
	c := order.Charge{ID: "ch-" + r.Key, Status: "CAPTURED", CardBrand: "Visa", CardLast4: "1111"}
	if f.decline != nil && f.decline(r.CustomerID) {
		c = order.Charge{ID: "ch-" + r.Key, Status: "FAILED", FailureCode: "card_declined", FailureMessage: "Your card was declined."}
	} else {
		f.paid[r.CustomerID]++
	}
	f.byKey[r.Key] = c
	return c, nil
}

func (f *fakePayments) ChargeByKey(_ context.Context, key string, fence int64) (order.Charge, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fence(key, fence)
	if c, ok := f.byKey[key]; ok {
		return c, nil
	}
	return order.Charge{}, errs.E(errs.NotFound, "no charge")
}

func (f *fakePayments) Refund(context.Context, string, string, string) error { return nil }

type renewalEnv struct {
	pool  *pgxpool.Pool
	clock *clock
	pay   *fakePayments
	svc   *app.Service
	pipe  *order.Pipeline
	store *adapters.Store // the service's store, also the renewals' batch reader
	// termEnd is the seeded subscriptions' term end.
	termEnd time.Time
}

func newRenewalEnv(t *testing.T) *renewalEnv { return newRenewalEnvWith(t, nil) }

// newRenewalEnvWith lets a test set the order pipeline's options (crash injection).
func newRenewalEnvWith(t testing.TB, pipeOpts func(*order.Options)) *renewalEnv {
	t.Helper()
	return newRenewalEnvOpts(t, pipeOpts, nil)
}

// newRenewalEnvOpts lets a test set the service's options too (its other services).
func newRenewalEnvOpts(t testing.TB, pipeOpts func(*order.Options), svcOpts func(*app.Options)) *renewalEnv {
	t.Helper()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", log); err != nil {
		t.Fatal(err)
	}
	store := adapters.NewStore(pool)
	seeded := time.Date(2026, 7, 10, 12, 0, 0, 0, time.UTC)
	if err := app.SeedDemo(ctx, store, seeded, domaintest.MustCatalog(t)); err != nil {
		t.Fatal(err)
	}
	e := &renewalEnv{pool: pool, clock: &clock{t: seeded}, pay: &fakePayments{byKey: map[string]order.Charge{}, paid: map[string]int{}}}
	if err := pool.QueryRow(ctx, `SELECT term_end FROM subscriptions WHERE id = $1`, app.SeedSubscriptionID(app.SeedPilot)).
		Scan(&e.termEnd); err != nil {
		t.Fatal(err)
	}
	po := order.Options{Now: e.clock.Now}
	if pipeOpts != nil {
		pipeOpts(&po)
	}
	e.pipe = order.NewPipeline(adapters.NewOrderStore(pool, propagation.TraceContext{}), e.pay, log, po)
	pipe := e.pipe
	so := app.Options{Now: e.clock.Now, QuoteKey: []byte("k"), Orders: pipe, Subs: store}
	if svcOpts != nil {
		svcOpts(&so)
	}
	e.svc = app.New(store, nil, log, so)
	e.store = store
	cat, err := domaintest.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	e.svc.SetCatalog(cat)
	if err := e.svc.RefreshPromotions(ctx); err != nil {
		t.Fatal(err)
	}
	pipe.Register(order.KindSubscription, app.SubscriptionFulfiller{Catalog: e.svc.Catalog})
	// Every card subscription has a vaulted method; the seed's own events are not the pass's.
	if _, err := pool.Exec(ctx, `UPDATE subscriptions SET payment_method_token = 'tok-' || id`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM outbox`); err != nil {
		t.Fatal(err)
	}
	return e
}

// crashAfterFirstCharge makes the pipeline's first order fail between its charge and its
// write, as a process killed there would leave it (pending, charged, its lease running out).
func crashAfterFirstCharge(o *order.Options) {
	var crashed atomic.Bool
	o.AfterCharge = func(string) error {
		if crashed.CompareAndSwap(false, true) {
			return errors.New("process killed after the charge")
		}
		return nil
	}
}

// onlyPilot moves every other subscription's term a year out, out of the pass's window.
func (e *renewalEnv) onlyPilot(t *testing.T) string {
	t.Helper()
	id := app.SeedSubscriptionID(app.SeedPilot)
	if _, err := e.pool.Exec(context.Background(), `UPDATE subscriptions SET term_end = term_end + interval '1 year' WHERE id <> $1`, id); err != nil {
		t.Fatal(err)
	}
	return id
}

func (e *renewalEnv) renewer(retries ...time.Duration) *app.Renewer {
	return app.NewRenewer(e.svc, e.renewals(), slog.New(slog.NewTextHandler(io.Discard, nil)),
		app.RenewalOptions{Window: 48 * time.Hour, Retries: retries, Reader: e.store})
}

// renewals is the renewal engine's store on e's database.
func (e *renewalEnv) renewals() *adapters.Renewals {
	return adapters.NewRenewals(e.pool, propagation.TraceContext{})
}

// methodsConsumer is the consumer of payments' payment-method-updated, on e's database.
func (e *renewalEnv) methodsConsumer() *kafka.InboxBatchConsumer {
	return ports.PaymentMethodUpdates{Renewer: e.renewer(), Store: e.renewals()}.Consumer(kafka.ConsumerConfig{Pool: e.pool})
}

func (e *renewalEnv) run(t *testing.T, r *app.Renewer) app.RenewalResult {
	t.Helper()
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 0 {
		t.Fatalf("failed renewals: %+v", res)
	}
	return res
}

// topics counts the outbox events by topic.
func (e *renewalEnv) topics(t *testing.T) map[string]int {
	t.Helper()
	rows, err := e.pool.Query(context.Background(), `SELECT topic, count(*) FROM outbox GROUP BY topic`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			t.Fatal(err)
		}
		out[k] = n
	}
	return out
}

func (e *renewalEnv) notices(t *testing.T) []*eventsv1.DunningNotice {
	t.Helper()
	rows, err := e.pool.Query(context.Background(), `SELECT payload FROM outbox WHERE topic = $1 ORDER BY id`, events.TopicDunningNotice)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []*eventsv1.DunningNotice
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		n := &eventsv1.DunningNotice{}
		if err := proto.Unmarshal(b, n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func (e *renewalEnv) termEndOf(t *testing.T, id string) (time.Time, bool) {
	t.Helper()
	var end time.Time
	var valid bool
	if err := e.pool.QueryRow(context.Background(), `SELECT term_end, valid FROM subscriptions WHERE id = $1`, id).Scan(&end, &valid); err != nil {
		t.Fatal(err)
	}
	return end, valid
}

func TestRenewalAtTermEnd(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	id := e.onlyPilot(t)
	r := e.renewer()
	// A week before the term ends: outside the 48h window, nothing happens.
	e.clock.Set(e.termEnd.Add(-7 * 24 * time.Hour))
	if res := e.run(t, r); !reflect.DeepEqual(res, app.RenewalResult{}) {
		t.Fatalf("early pass did something: %+v", res)
	}
	dry, err := r.DryRun(context.Background())
	if err != nil || len(dry) != 0 {
		t.Fatalf("early dry run %+v %v", dry, err)
	}
	e.clock.Set(e.termEnd.Add(-12 * time.Hour))
	dry, err = r.DryRun(context.Background())
	if err != nil || len(dry) != 1 || dry[0].SubscriptionID != id || dry[0].TotalInCents <= 0 || dry[0].Currency != "USD" || !dry[0].AutoRenew {
		t.Fatalf("dry run %+v %v", dry, err)
	}
	if e.pay.calls != 0 || len(e.topics(t)) != 0 {
		t.Fatal("the dry run charged or published")
	}
	if res := e.run(t, r); res.Renewed != 1 || res.Declined != 0 {
		t.Fatalf("%+v", res)
	}
	end, valid := e.termEndOf(t, id)
	if !valid || !end.Equal(e.termEnd.AddDate(1, 0, 0)) {
		t.Errorf("term end %v (was %v) valid %v", end, e.termEnd, valid)
	}
	var total int64
	var status string
	if err := e.pool.QueryRow(context.Background(), `SELECT o.total_in_cents, rn.status FROM renewals rn JOIN orders o ON o.invoice_id = rn.invoice_id
		WHERE rn.subscription_id = $1`, id).Scan(&total, &status); err != nil {
		t.Fatal(err)
	}
	if total != dry[0].TotalInCents || status != "renewed" {
		t.Errorf("order total %d, dry run %d, status %s", total, dry[0].TotalInCents, status)
	}
	if tp := e.topics(t); tp[events.TopicOrderCompleted] != 1 || tp[events.TopicSubscriptionChanged] != 1 {
		t.Errorf("events %v", tp)
	}
	// Another pass (same time, and later) charges nothing more.
	e.run(t, r)
	e.clock.Set(e.termEnd.Add(24 * time.Hour))
	e.run(t, r)
	if e.pay.paid[app.SeedPilot] != 1 {
		t.Errorf("charged %d times", e.pay.paid[app.SeedPilot])
	}
}

func TestRenewalDeclineThenSuccessOnSecondRetry(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	id := e.onlyPilot(t)
	declines := 0
	e.pay.decline = func(string) bool { declines++; return declines <= 2 }
	r := e.renewer(24*time.Hour, 3*24*time.Hour, 5*24*time.Hour)
	start := e.termEnd.Add(-12 * time.Hour)
	e.clock.Set(start)
	if res := e.run(t, r); res.Declined != 1 || res.Renewed != 0 {
		t.Fatalf("first attempt %+v", res)
	}
	// Before the first retry is due nothing is tried.
	e.clock.Set(start.Add(23 * time.Hour))
	if res := e.run(t, r); res.Due != 0 {
		t.Fatalf("retried early %+v", res)
	}
	e.clock.Set(start.Add(24 * time.Hour))
	if res := e.run(t, r); res.Declined != 1 {
		t.Fatalf("first retry %+v", res)
	}
	e.clock.Set(start.Add(3 * 24 * time.Hour))
	if res := e.run(t, r); res.Renewed != 1 {
		t.Fatalf("second retry %+v", res)
	}
	// Paid in the grace period: the new term still starts at the old term's end (the grace
	// days are part of the renewed term; no days are lost or added).
	if end, valid := e.termEndOf(t, id); !valid || !end.Equal(e.termEnd.AddDate(1, 0, 0)) {
		t.Errorf("term end %v valid %v", end, valid)
	}
	ns := e.notices(t)
	if len(ns) != 2 || ns[0].Kind != "renewal-declined" || ns[0].Reason != "Your card was declined." ||
		!ns[0].NextAttempt.AsTime().Equal(start.Add(24*time.Hour)) || !ns[1].NextAttempt.AsTime().Equal(start.Add(3*24*time.Hour)) ||
		ns[0].ActionUrl == "" || ns[0].Amount.GetAmountInCents() <= 0 {
		t.Errorf("notices %v", ns)
	}
	if e.pay.paid[app.SeedPilot] != 1 {
		t.Errorf("paid %d times", e.pay.paid[app.SeedPilot])
	}
}

func TestRenewalLapsesAfterLastRetry(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	id := e.onlyPilot(t)
	e.pay.decline = func(string) bool { return true }
	r := e.renewer(24*time.Hour, 3*24*time.Hour)
	start := e.termEnd.Add(-12 * time.Hour)
	for i, at := range []time.Duration{0, 24 * time.Hour, 3 * 24 * time.Hour} {
		e.clock.Set(start.Add(at))
		res := e.run(t, r)
		if last := i == 2; (last && res.Lapsed != 1) || (!last && res.Declined != 1) {
			t.Fatalf("attempt %d: %+v", i+1, res)
		}
	}
	e.clock.Set(start.Add(30 * 24 * time.Hour))
	if res := e.run(t, r); !reflect.DeepEqual(res, app.RenewalResult{}) {
		t.Fatalf("a lapsed subscription was tried again: %+v", res)
	}
	if _, valid := e.termEndOf(t, id); valid {
		t.Error("still valid after lapsing")
	}
	rows, err := e.pool.Query(context.Background(), `SELECT payload FROM outbox WHERE topic = $1`, events.TopicSubscriptionChanged)
	if err != nil {
		t.Fatal(err)
	}
	var changes []*eventsv1.SubscriptionChanged
	for rows.Next() {
		var b []byte
		_ = rows.Scan(&b)
		c := &eventsv1.SubscriptionChanged{}
		if err := proto.Unmarshal(b, c); err != nil {
			t.Fatal(err)
		}
		changes = append(changes, c)
	}
	rows.Close()
	if len(changes) != 1 || changes[0].Status != "lapsed" || changes[0].SubscriptionId != id || changes[0].Version < 2 {
		t.Errorf("changes %v", changes)
	}
	var kinds []string
	for _, n := range e.notices(t) {
		kinds = append(kinds, n.Kind)
	}
	if strings.Join(kinds, ",") != "renewal-declined,renewal-declined,subscription-lapsed" {
		t.Errorf("notices %v", kinds)
	}
	if e.pay.paid[app.SeedPilot] != 0 || e.pay.calls != 3 {
		t.Errorf("paid %d, calls %d", e.pay.paid[app.SeedPilot], e.pay.calls)
	}
}

func TestRenewalAutoRenewOff(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	id := e.onlyPilot(t)
	if _, err := e.pool.Exec(context.Background(), `UPDATE subscriptions SET auto_renew = false WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	r := e.renewer()
	e.clock.Set(e.termEnd.Add(-12 * time.Hour))
	if res := e.run(t, r); res.Ending != 1 || res.Due != 0 {
		t.Fatalf("%+v", res)
	}
	e.run(t, r) // told once
	if e.pay.calls != 0 {
		t.Error("charged with auto-renew off")
	}
	ns := e.notices(t)
	if len(ns) != 1 || ns[0].Kind != "auto-renew-off" || ns[0].SubscriptionId != id || !ns[0].Date.AsTime().Equal(e.termEnd) {
		t.Errorf("notices %v", ns)
	}
	if end, _ := e.termEndOf(t, id); !end.Equal(e.termEnd) {
		t.Errorf("term moved to %v", end)
	}
}

func TestConcurrentRenewalPassesChargeEachTermOnce(t *testing.T) {
	t.Parallel()
	e := newRenewalEnv(t)
	e.clock.Set(e.termEnd.Add(-12 * time.Hour))
	var due int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM subscriptions WHERE payment_method = 'CREDIT_CARD' AND auto_renew`).
		Scan(&due); err != nil || due < 4 {
		t.Fatalf("due %d %v", due, err)
	}
	const passes = 4
	results := make([]app.RenewalResult, passes)
	errsCh := make(chan error, passes)
	var wg sync.WaitGroup
	for i := range passes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			results[i], err = e.renewer().Run(context.Background())
			errsCh <- err
		}()
	}
	wg.Wait()
	close(errsCh)
	for err := range errsCh {
		if err != nil {
			t.Fatal(err)
		}
	}
	renewed := 0
	for _, r := range results {
		renewed += r.Renewed
		if r.Failed != 0 {
			t.Errorf("failed: %+v", r)
		}
	}
	if renewed != due {
		t.Errorf("renewed %d of %d: %+v", renewed, due, results)
	}
	for acct, n := range e.pay.paid {
		if n != 1 {
			t.Errorf("%s charged %d times", acct, n)
		}
	}
	var orders int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM orders`).Scan(&orders); err != nil || orders != renewed {
		t.Errorf("orders %d, renewed %d (%v)", orders, renewed, err)
	}
}

// Vault is never called by renewals (they charge a stored method).
func (f *fakePayments) Vault(context.Context, order.VaultRequest) (order.Charge, error) {
	return order.Charge{}, errs.E(errs.Invalid, "renewals charge a stored method; nothing is vaulted")
}
