package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/app"
)

// methodUpdated is payments' payment-method-updated as the consumer hands it over, with
// event id id; an empty token is a check payer's (no method a renewal can charge).
func methodUpdated(t testing.TB, id, account, method, token, expiry string) kafka.Envelope {
	t.Helper()
	b, err := proto.Marshal(&eventsv1.PaymentMethodUpdated{AccountId: account, PaymentMethod: method, PaymentMethodToken: token,
		ExpirationDate: expiry, UpdatedAt: timestamppb.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return kafka.Envelope{ID: id, Topic: events.TopicPaymentMethodUpdated, Data: b}
}

// inGrace declines every due card renewal of e's seed once (their grace period starts)
// and clears the outbox, so what the payment-method updates publish is all it holds.
func (e *renewalEnv) inGrace(t *testing.T) {
	t.Helper()
	e.pay.decline = func(string) bool { return true }
	start := e.termEnd.Add(-12 * time.Hour)
	e.clock.Set(start)
	if res := e.run(t, e.renewer()); res.Declined < 3 {
		t.Fatalf("declined %+v, want the seed's card renewals", res)
	}
	e.pay.decline = nil
	e.clock.Set(start.Add(2 * time.Hour))
	if _, err := e.pool.Exec(context.Background(), `DELETE FROM outbox`); err != nil {
		t.Fatal(err)
	}
}

// methodsState is what payment-method updates change in checkout's database: the card
// subscriptions' stored methods, the renewals' schedule, the outbox and the inbox.
func methodsState(t *testing.T, pool interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) string {
	t.Helper()
	var out strings.Builder
	for _, q := range []string{
		`SELECT id || ' ' || account_id || ' ' || payment_method || ' ' || coalesce(payment_method_token, '-') || ' ' || coalesce(card_expires_at::text, '-')
			FROM subscriptions ORDER BY id`,
		`SELECT subscription_id || ' ' || term_end || ' ' || status || ' ' || declines || ' ' || next_attempt_at
			FROM renewals ORDER BY subscription_id, term_end`,
		`SELECT DISTINCT topic || ' ' || key || ' ' || encode(payload, 'hex') FROM outbox ORDER BY 1`,
		`SELECT consumer || ' ' || event_id FROM inbox ORDER BY 1`,
	} {
		rows, err := pool.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString(strings.Join(lines, "\n") + "\n--\n")
	}
	return out.String()
}

// A batch of payment-method updates leaves what the same events handled one at a time
// (each a batch of one, as the consumer falls back to) leave: an account's later card wins
// over its earlier one in the same batch, a check payer's update (no token) changes
// nothing and does not undo a card before it, an event fetched twice in the batch and one
// redelivered after it change nothing, and every account in its grace period gets its
// renewal made due at once.
func TestPaymentMethodUpdatesBatchEqualsOneAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const unknown = "00000000-0000-4000-8000-0000000000ff" // no subscriptions here
	batch := []kafka.Envelope{
		methodUpdated(t, "ev-1", app.SeedPilot, "CREDIT_CARD", "tok-p1", "01/2031"),
		methodUpdated(t, "ev-2", app.SeedBusiness, "CHECK", "", ""),
		methodUpdated(t, "ev-3", app.SeedPilot, "CREDIT_CARD", "tok-p2", "02/2032"),
		methodUpdated(t, "ev-4", app.SeedMilitary, "PAYPAL", "tok-m", ""),
		methodUpdated(t, "ev-5", app.SeedLegacy, "CREDIT_CARD", "tok-l", "12/2030"),
		methodUpdated(t, "ev-6", app.SeedLegacy, "CHECK", "", ""),
		methodUpdated(t, "ev-1", app.SeedPilot, "CREDIT_CARD", "tok-p1", "01/2031"),
		methodUpdated(t, "ev-7", unknown, "CREDIT_CARD", "tok-u", "05/2029"),
	}
	redelivered := batch[0]

	var states []string
	for _, batched := range []bool{false, true} {
		e := newRenewalEnv(t)
		e.inGrace(t)
		c := e.methodsConsumer()
		handle := func(envs ...kafka.Envelope) {
			t.Helper()
			if err := c.HandleBatch(ctx, envs); err != nil {
				t.Fatal(err)
			}
		}
		if batched {
			handle(batch...)
		} else {
			for _, env := range batch {
				handle(env)
			}
		}
		handle(redelivered)
		states = append(states, methodsState(t, e.pool))

		want := map[string]string{app.SeedPilot: "tok-p2 2032-03-01", app.SeedMilitary: "tok-m -", app.SeedLegacy: "tok-l 2031-01-01"}
		rows, err := e.pool.Query(ctx, `SELECT DISTINCT account_id::text, payment_method_token || ' ' || coalesce(to_char(card_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), '-'),
			(SELECT count(*) FROM renewals rn WHERE rn.subscription_id = s.id AND rn.next_attempt_at = $1)
			FROM subscriptions s WHERE payment_method = 'CREDIT_CARD' AND payment_source = 'CREDIT_CARD'`, e.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var acct, method string
			var retried int
			if err := rows.Scan(&acct, &method, &retried); err != nil {
				t.Fatal(err)
			}
			w, updated := want[acct]
			if !updated {
				w = "tok-"
			}
			if !strings.HasPrefix(method, w) || (retried == 1) != updated {
				t.Errorf("batched %v: %s has %q, retried now %d; want %q, retried %v", batched, acct, method, retried, w, updated)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if states[0] != states[1] {
		t.Errorf("one batch:\n%s\nwant (one at a time):\n%s", states[1], states[0])
	}
}

// A poison event (a payload that does not decode) fails its batch with a permanent error
// and the batch changes nothing; the consumer then handles the events one at a time, the
// others apply and the poison one is dead-lettered (InboxBatchConsumer's fallback).
func TestPaymentMethodUpdatesPoisonEventFailsItsBatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newRenewalEnv(t)
	c := e.methodsConsumer()
	good := methodUpdated(t, "ev-good", app.SeedPilot, "CREDIT_CARD", "tok-new", "01/2031")
	poison := kafka.Envelope{ID: "ev-poison", Topic: events.TopicPaymentMethodUpdated, Data: []byte("not a protobuf \xff\xff")}
	before := methodsState(t, e.pool)
	if err := c.HandleBatch(ctx, []kafka.Envelope{good, poison}); !kafka.IsPermanent(err) {
		t.Fatalf("batch with a poison event: %v, want a permanent error", err)
	}
	if after := methodsState(t, e.pool); after != before {
		t.Errorf("the failed batch changed:\n%s\nwas:\n%s", after, before)
	}
	if err := c.HandleBatch(ctx, []kafka.Envelope{good}); err != nil {
		t.Fatal(err)
	}
	var tok string
	if err := e.pool.QueryRow(ctx, `SELECT payment_method_token FROM subscriptions WHERE account_id = $1`, app.SeedPilot).Scan(&tok); err != nil || tok != "tok-new" {
		t.Errorf("token %q (%v), want tok-new", tok, err)
	}
}

// What payment-method updates cost checkout's database: a batch is one transaction of
// four round trips (BEGIN, the inbox insert of its ids, the subscriptions' and renewals'
// updates of every account pipelined in one, COMMIT), whatever its size; a redelivered
// batch stops at the inbox; a renewal in its grace period costs nothing more (it is made due
// in the renewals table, the workers' queue: it was an outbox insert of its job when jobs
// went through Kafka). One at a time it was five round trips and a transaction per event.
// A change that adds a statement per event fails here.
func TestPaymentMethodUpdatesStatementsAndTransactions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newRenewalEnv(t)
	c := e.methodsConsumer()
	counts := dbtest.Counter(t, e.pool)
	step := func(name string, want dbtest.Counts, envs ...kafka.Envelope) {
		t.Helper()
		before := counts()
		if err := c.HandleBatch(ctx, envs); err != nil {
			t.Fatal(err)
		}
		if got := counts().Minus(before); got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	var ten []kafka.Envelope
	for i := range 10 {
		ten = append(ten, methodUpdated(t, fmt.Sprint("ev-", i), fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1), "CREDIT_CARD", fmt.Sprint("tok-", i), "01/2031"))
	}
	step("one update", dbtest.Counts{Query: 3, Batched: 2, Transactions: 1}, ten[0])
	step("ten updates in one batch", dbtest.Counts{Query: 3, Batched: 2, Transactions: 1}, ten[1:]...)
	step("a redelivered batch", dbtest.Counts{Query: 3, Transactions: 1}, ten...)
	step("a check payer's update", dbtest.Counts{Query: 3, Transactions: 1}, methodUpdated(t, "ev-check", app.SeedBusiness, "CHECK", "", ""))

	e.inGrace(t)
	step("an update in the grace period", dbtest.Counts{Query: 3, Batched: 2, Transactions: 1},
		methodUpdated(t, "ev-grace", app.SeedPilot, "CREDIT_CARD", "tok-grace", "01/2031"))
	if tp := e.topics(t); len(tp) != 0 {
		t.Errorf("events %v, want none", tp)
	}
}

// BenchmarkPaymentMethodUpdates: b.N new buyers' payment-method updates (one per order, an
// account with one card subscription) handled in the consumer's batches of 100; reports
// checkout's statements, round trips and transactions per event (the handler's
// statements; the consumer's fetch and offset commits are the broker's).
func BenchmarkPaymentMethodUpdates(b *testing.B) {
	ctx := context.Background()
	e := newRenewalEnvWith(b, nil)
	c := e.methodsConsumer()
	// The buyers' subscriptions: copies of the pilot's, each of an account of its own.
	if _, err := e.pool.Exec(ctx, `INSERT INTO subscriptions SELECT (jsonb_populate_record(s, jsonb_build_object(
			'id', '20000000-0000-4000-8000-' || lpad(i::text, 12, '0'), 'account_id', '10000000-0000-4000-8000-' || lpad(i::text, 12, '0')))).*
		FROM subscriptions s, generate_series(0, $2 - 1) i WHERE s.id = $1`, app.SeedSubscriptionID(app.SeedPilot), b.N); err != nil {
		b.Fatal(err)
	}
	envs := make([]kafka.Envelope, b.N)
	for i := range envs {
		envs[i] = methodUpdated(b, fmt.Sprint("ev-", i), fmt.Sprintf("10000000-0000-4000-8000-%012d", i), "CREDIT_CARD", fmt.Sprint("tok-", i), "01/2031")
	}
	counts := dbtest.Counter(b, e.pool)
	before := counts()
	b.ResetTimer()
	for len(envs) > 0 {
		n := min(len(envs), 100)
		if err := c.HandleBatch(ctx, envs[:n]); err != nil {
			b.Fatal(err)
		}
		envs = envs[n:]
	}
	b.StopTimer()
	got, n := counts().Minus(before), float64(b.N)
	b.ReportMetric((got.Query+got.Batched+got.Copy)/n, "stmts/event")
	b.ReportMetric((got.Query+got.Copy)/n, "roundtrips/event")
	b.ReportMetric(got.Transactions/n, "txs/event")
}

// An update naming the method a subscription already holds (a redelivery, or the page
// saving the card on file again) leaves the row as it is: no new row version, updated_at
// kept. A different card still writes.
func TestPaymentMethodUpdateOfTheHeldMethodWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newRenewalEnv(t)
	c := e.methodsConsumer()
	version := func() string {
		t.Helper()
		var v string
		if err := e.pool.QueryRow(ctx, `SELECT xmin::text || ' ' || updated_at::text || ' ' || coalesce(payment_method_token, '-') || ' ' || coalesce(card_expires_at::text, '-')
			FROM subscriptions WHERE account_id = $1`, app.SeedPilot).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	handle := func(id, token string) {
		t.Helper()
		if err := c.HandleBatch(ctx, []kafka.Envelope{methodUpdated(t, id, app.SeedPilot, "CREDIT_CARD", token, "01/2031")}); err != nil {
			t.Fatal(err)
		}
	}
	before := version()
	handle("ev-new-card", "tok-new")
	written := version()
	if written == before || !strings.Contains(written, " tok-new ") {
		t.Fatalf("a new card: %q, want the row rewritten with tok-new (was %q)", written, before)
	}
	handle("ev-same-card", "tok-new")
	if got := version(); got != written {
		t.Errorf("the held card again: %q, want the row untouched %q", got, written)
	}
}
