package adapters_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// orderWrites is the order store on a pool whose statements are counted.
type orderWrites struct {
	pool  *pgxpool.Pool
	store *adapters.OrderStore
	reg   *prometheus.Registry
}

func newOrderWrites(tb testing.TB) *orderWrites {
	tb.Helper()
	pool := migratedTB(tb)
	reg := prometheus.NewPedanticRegistry()
	if err := db.RegisterPool(reg, pool, "main"); err != nil {
		tb.Fatal(err)
	}
	return &orderWrites{pool: pool, store: adapters.NewOrderStore(pool, propagation.TraceContext{}), reg: reg}
}

// migratedTB is migrated for a benchmark too.
func migratedTB(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(tb), 4)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		tb.Fatal(err)
	}
	return pool
}

// subscriptionOrder claims a new buyer's subscription order of three lines, as a checkout
// of the buy page does, and answers the key it holds and the order to write.
func (w *orderWrites) subscriptionOrder(tb testing.TB, i int) (order.Held, *order.Placed) {
	tb.Helper()
	pu := order.Purchase{Kind: order.KindSubscription, AccountID: uuid.NewString(), Email: fmt.Sprintf("buyer-%d@example.com", i),
		BuyerKind: "individual", Currency: "USD", SubtotalInCents: 47000, TotalInCents: 47000, TaxLabel: "Tax", TaxJurisdiction: "US-OR",
		PaymentMethod: "CREDIT_CARD", BillingName: "Amelia Earhart", BillingCountry: "US", BillingZip: "97201",
		Lines: []order.Line{
			{Key: "PLAN:performance", Type: "PLAN", AddOnCode: "performance", PlanType: "individual", Description: "Premium — 1 year",
				Reason: "the plan you chose", UnitAmountInCents: 37000, Quantity: 1, AmountInCents: 37000},
			{Key: "PLAN_ADD_ON:included_geo_us", Type: "PLAN_ADD_ON", AddOnCode: "included_geo_us", PlanType: "region",
				Description: "United States (included) — 1 year", Reason: "included with your plan", Quantity: 1},
			{Key: "PLAN_ADD_ON:add_geo_eu", Type: "PLAN_ADD_ON", AddOnCode: "add_geo_eu", PlanType: "region", Description: "Europe — 1 year",
				Reason: "region added to your plan", UnitAmountInCents: 10000, Quantity: 1, AmountInCents: 10000},
		}}
	key := fmt.Sprintf("write-%d-%s", i, uuid.NewString())
	ok, err := w.store.Claim(context.Background(), order.Claim{Key: key, RequestHash: "hash", Kind: pu.Kind,
		Stored: order.Stored{Purchase: pu, Payment: order.Payment{Nonce: "nonce"}}, ChargeKey: "charge-" + key, Lease: time.Minute})
	if err != nil || !ok {
		tb.Fatalf("claim %s = %v, %v", key, ok, err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	return order.Held{Key: key, Fence: order.FirstFence}, &order.Placed{Purchase: pu, InvoiceID: uuid.NewString(), ChargeID: "ch-" + key,
		CardBrand: "Visa", CardLast4: "1111", PaymentMethodToken: "pm-" + key, CreatedAt: now}
}

// subscriptionFulfil is what a subscription order's fulfiller and the pipeline do in the
// order's transaction: the subscription written, the number waited for, and the two events
// (order-completed and subscription-changed) answered.
func subscriptionFulfil(o *order.Placed, wrote *error) order.WriteFunc {
	return func(ctx context.Context, tx order.Tx) ([]kafka.Event, error) {
		w := &order.SubscriptionWrite{Subscription: domain.Subscription{ID: uuid.NewString(), AccountID: o.AccountID, Email: o.Email,
			Name: "Premium", PlanCode: "performance", AddOns: []string{"performance", "included_geo_us", "add_geo_eu"}, Quantity: 1,
			Currency: o.Currency, PriceInCents: 47000, TermStart: o.CreatedAt, TermEnd: o.CreatedAt.AddDate(1, 0, 0),
			PaymentMethod: "CREDIT_CARD", BillingCountry: o.BillingCountry, BillingZip: o.BillingZip, BillingName: o.BillingName},
			InvoiceID: o.InvoiceID, PaymentMethodToken: o.PaymentMethodToken}
		*wrote = tx.WriteSubscriptions(ctx, []*order.SubscriptionWrite{w})
		if *wrote != nil {
			return nil, *wrote
		}
		if err := tx.Numbered(ctx); err != nil {
			return nil, err
		}
		if w.Version != 1 || !w.AutoRenew || o.InvoiceNumber == "" {
			return nil, fmt.Errorf("written subscription version %d, auto-renew %v; invoice number %q", w.Version, w.AutoRenew, o.InvoiceNumber)
		}
		return []kafka.Event{
			{Topic: "hangar.checkout.order-completed.v1", Key: o.AccountID, Payload: []byte(o.InvoiceNumber)},
			{Topic: "hangar.checkout.subscription-changed.v1", Key: o.AccountID, Payload: []byte(w.ID)},
		}, nil
	}
}

// A subscription order's transaction costs two round trips: BEGIN, the order's statement
// and the subscription's upsert | both outbox rows and the COMMIT.
func TestWriteSubscriptionOrderRoundTrips(t *testing.T) {
	t.Parallel()
	w := newOrderWrites(t)
	h, o := w.subscriptionOrder(t, 0)
	before := dbtest.Gather(t, w.reg)["main"]
	var wrote error
	done, err := w.store.Write(context.Background(), h, o, subscriptionFulfil(o, &wrote))
	if err != nil || done != nil || wrote != nil {
		t.Fatalf("Write = %+v, %v (subscription: %v)", done, err, wrote)
	}
	if got, want := dbtest.Gather(t, w.reg)["main"].Minus(before), (dbtest.Counts{Batched: 6, Transactions: 1}); got != want {
		t.Errorf("%+v, want %+v", got, want)
	}
	var subs, outbox int
	if err := w.pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM subscriptions WHERE last_invoice_id = $1),
		(SELECT count(*) FROM outbox)`, o.InvoiceID).Scan(&subs, &outbox); err != nil || subs != 1 || outbox != 2 {
		t.Fatalf("subscriptions %d, outbox rows %d, %v; want 1 and 2", subs, outbox, err)
	}
}

// A write whose fence was superseded (the key taken over) writes neither the order nor the
// subscription its fulfiller sent with the order's statement, and answers the key's
// submission as it is.
func TestWriteSupersededWritesNoSubscription(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newOrderWrites(t)
	h, o := w.subscriptionOrder(t, 0)
	if _, err := w.pool.Exec(ctx, `UPDATE submissions SET fence = fence + 1 WHERE key = $1`, h.Key); err != nil {
		t.Fatal(err)
	}
	var wrote error
	done, err := w.store.Write(ctx, h, o, subscriptionFulfil(o, &wrote))
	if err != nil || done == nil || done.Status != "pending" || wrote == nil {
		t.Fatalf("Write = %+v, %v (subscription: %v); want the pending submission answered, the subscription refused", done, err, wrote)
	}
	var orders, subs, outbox int
	if err := w.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM subscriptions),
		(SELECT count(*) FROM outbox)`).Scan(&orders, &subs, &outbox); err != nil || orders+subs+outbox != 0 {
		t.Fatalf("orders %d, subscriptions %d, outbox rows %d, %v; want none", orders, subs, outbox, err)
	}
}

// A fulfiller's error rolls the written order back.
func TestWriteFulfilErrorRollsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newOrderWrites(t)
	h, o := w.subscriptionOrder(t, 0)
	boom := errors.New("boom")
	var wrote error
	fulfil := subscriptionFulfil(o, &wrote)
	_, err := w.store.Write(ctx, h, o, func(ctx context.Context, tx order.Tx) ([]kafka.Event, error) {
		if _, err := fulfil(ctx, tx); err != nil {
			return nil, err
		}
		return nil, boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want %v", err, boom)
	}
	var orders, subs int
	var status string
	if err := w.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM subscriptions),
		(SELECT status FROM submissions WHERE key = $1)`, h.Key).Scan(&orders, &subs, &status); err != nil || orders+subs != 0 || status != "pending" {
		t.Fatalf("orders %d, subscriptions %d, submission %s, %v; want none written, the key pending", orders, subs, status, err)
	}
}

// BenchmarkWriteSubscriptionOrder is checkout's transaction of a paid subscription order
// (OrderStore.Write: the key closed, the order and its lines, the subscription, two outbox
// rows) against real PostgreSQL; the claim before it is not timed. Its time is mostly the
// COMMIT's wait for the disk: it reports the round trips and this process's CPU per order.
func BenchmarkWriteSubscriptionOrder(b *testing.B) {
	w := newOrderWrites(b)
	ctx := context.Background()
	write := func(h order.Held, o *order.Placed) {
		var wrote error
		if done, err := w.store.Write(ctx, h, o, subscriptionFulfil(o, &wrote)); err != nil || done != nil {
			b.Fatalf("Write = %+v, %v", done, err)
		}
	}
	for i := range 5 { // the statement caches
		write(w.subscriptionOrder(b, -1-i))
	}
	var rounds float64
	var cpu time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		h, o := w.subscriptionOrder(b, i)
		before := dbtest.Gather(b, w.reg)["main"]
		c0 := processCPU(b)
		b.StartTimer()
		write(h, o)
		b.StopTimer()
		cpu += processCPU(b) - c0
		d := dbtest.Gather(b, w.reg)["main"].Minus(before)
		rounds += d.Query + d.Copy + 2 // and Write's two batches: the BEGIN's and the COMMIT's
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(rounds/float64(b.N), "roundtrips/order")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/order")
}

// processCPU answers the process's user and system CPU time so far.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
