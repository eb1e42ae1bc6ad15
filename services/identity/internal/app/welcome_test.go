package app_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/telemetry"
	"github.com/hangar/hangar/services/identity/internal/adapters"
	iapp "github.com/hangar/hangar/services/identity/internal/app"
	"github.com/hangar/hangar/services/identity/internal/domain"
	"github.com/hangar/hangar/services/identity/internal/ports"
)

const welcomeTTL = 72 * time.Hour

func welcomeSetup(t *testing.T) *env {
	return setup(t, func(p *iapp.Policies) { p.Links = domain.LinkPolicy{WelcomeTTL: welcomeTTL, ResetTTL: time.Hour} })
}

// welcomes is the order-completed handler as identity's consumer runs it: the events'
// writes in the batch's transaction, their events carrying its trace context.
func (e *env) welcomes() kafka.InboxBatchHandler {
	return ports.OrderCompletions(e.svc, func(tx pgx.Tx) iapp.Inbox { return adapters.InTxPropagating(tx, telemetry.Propagator()) })
}

// welcomeConsumer is identity's order-completed consumer without a broker: HandleBatch
// records a batch in the inbox and handles it in one transaction, as a fetched batch is.
func (e *env) welcomeConsumer() *kafka.InboxBatchConsumer {
	return kafka.NewInboxBatchConsumer(kafka.ConsumerConfig{Group: "identity-welcomes", Pool: e.pool}, events.TopicOrderCompleted, e.welcomes(), kafka.BatchOptions{})
}

// orderCompleted is checkout's order-completed event id of an order of account.
func orderCompleted(t testing.TB, id, account string) kafka.Envelope {
	t.Helper()
	env := envelope(t, &eventsv1.OrderCompleted{OrderId: "ord-" + id, AccountId: account, OrderKind: "subscription", Currency: "USD"})
	env.ID, env.Topic = id, events.TopicOrderCompleted
	return env
}

func (e *env) passwordless(t testing.TB, email string) string {
	t.Helper()
	id, created, passwordless, err := e.svc.ProvisionAccount(context.Background(), email, false, false)
	if err != nil || !created || !passwordless {
		t.Fatalf("ProvisionAccount(%s) = %v, %v, %v", email, created, passwordless, err)
	}
	return id
}

// welcomeEvents are the password-link-issued events in the outbox, by account.
func (e *env) welcomeEvents(t testing.TB) map[string][]*eventsv1.PasswordLinkIssued {
	t.Helper()
	rows, err := e.pool.Query(context.Background(), `SELECT key, payload FROM outbox WHERE topic = $1 ORDER BY id`, events.TopicPasswordLinkIssued)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]*eventsv1.PasswordLinkIssued{}
	for rows.Next() {
		var key, payload []byte
		ev := &eventsv1.PasswordLinkIssued{}
		if err := rows.Scan(&key, &payload); err != nil || proto.Unmarshal(payload, ev) != nil || string(key) != ev.GetAccountUuid() {
			t.Fatalf("event %q: %v", key, err)
		}
		out[string(key)] = append(out[string(key)], ev)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// welcomeLinks counts the welcome links stored, by account.
func (e *env) welcomeLinks(t testing.TB) map[string]int {
	t.Helper()
	rows, err := e.pool.Query(context.Background(), `SELECT account_uuid::text FROM password_links WHERE purpose = 'welcome'`)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, id := range ids {
		out[id]++
	}
	return out
}

// Issue 41, batched (issue 44): a checkout account's welcome link is issued when an order
// of it completes, in the inbox transaction of the batch of checkout's order-completed
// events, marked as after the order so notifications mails it at once: the link never
// waits at rest in a held mail. Once per account: a second order in the batch, a later
// order, a redelivery issue nothing, nor does an account with a password, an unknown one,
// or an order without an account. Each link has its own token, and its event is the one
// a single order issued before: purpose welcome, after the order, the link with the
// token whose hash is stored, its expiry, the account's kind, keyed by the account.
func TestWelcomeLinksIssuedForABatchOfFirstOrders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := welcomeSetup(t)
	first, second := e.passwordless(t, "first.order@example.com"), e.passwordless(t, "second.buyer@example.com")
	welcomed := e.passwordless(t, "welcomed.before@example.com")
	withPassword := e.account(t, "has.password@example.com").Account.UUID
	const unknown = "00000000-0000-4000-8000-00000000ffff"
	c := e.welcomeConsumer()
	if err := c.HandleBatch(ctx, []kafka.Envelope{orderCompleted(t, "ev-0", welcomed)}); err != nil {
		t.Fatal(err)
	}

	batch := []kafka.Envelope{
		orderCompleted(t, "ev-1", first), orderCompleted(t, "ev-2", withPassword), orderCompleted(t, "ev-3", welcomed),
		orderCompleted(t, "ev-4", unknown), orderCompleted(t, "ev-5", second), orderCompleted(t, "ev-6", first),
		orderCompleted(t, "ev-7", ""), orderCompleted(t, "ev-8", "not-a-uuid"),
	}
	counts := dbtest.Counter(t, e.pool)
	before := counts()
	if err := c.HandleBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	// BEGIN, the inbox's insert, the links (the accounts' locks and the insert, pipelined),
	// the events' insert, COMMIT: one transaction.
	if got, want := counts().Minus(before), (dbtest.Counts{Query: 4, Batched: 2, Transactions: 1}); got != want {
		t.Errorf("the batch cost %+v, want %+v", got, want)
	}

	if got := e.welcomeLinks(t); len(got) != 3 || got[first] != 1 || got[second] != 1 || got[welcomed] != 1 {
		t.Errorf("welcome links by account %v, want one each for %s, %s and %s", got, first, second, welcomed)
	}
	evs := e.welcomeEvents(t)
	if len(evs) != 3 || len(evs[first]) != 1 || len(evs[second]) != 1 || len(evs[welcomed]) != 1 {
		t.Fatalf("welcome events by account %v, want one each for the three welcomed accounts", evs)
	}
	tokens := map[string]bool{}
	for account, email := range map[string]string{first: "first.order@example.com", second: "second.buyer@example.com"} {
		ev := evs[account][0]
		if ev.GetEmail() != email || ev.GetPurpose() != domain.LinkWelcome || !ev.GetAfterOrder() || ev.GetAccountKind() != string(domain.Individual) ||
			!ev.GetExpiresAt().AsTime().Equal(e.clock.Now().Add(welcomeTTL)) || !strings.HasSuffix(ev.GetLink(), "&welcome=1") {
			t.Errorf("welcome event of %s = %v, want the welcome, after the order, to %s expiring in %v", account, ev, email, welcomeTTL)
		}
		token, _, _ := strings.Cut(strings.TrimPrefix(ev.GetLink(), domain.SetPasswordPath+"#token="), "&")
		tokens[token] = true
		if l, err := e.store.PasswordLink(ctx, domain.HashToken(token)); err != nil || l.AccountUUID != account || l.Purpose != domain.LinkWelcome ||
			!l.ExpiresAt.Equal(e.clock.Now().Add(welcomeTTL)) || !l.UsedAt.IsZero() {
			t.Errorf("the link of %s's event = %+v, %v; want the account's stored welcome link", account, l, err)
		}
	}
	if len(tokens) != 2 {
		t.Errorf("the two accounts' links share a token")
	}

	// A redelivered batch is skipped by the inbox, and a later order issues nothing.
	before = counts()
	if err := c.HandleBatch(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if got, want := counts().Minus(before), (dbtest.Counts{Query: 3, Transactions: 1}); got != want {
		t.Errorf("the redelivered batch cost %+v, want %+v (the inbox only)", got, want)
	}
	if err := c.HandleBatch(ctx, []kafka.Envelope{orderCompleted(t, "ev-9", first)}); err != nil {
		t.Fatal(err)
	}
	if got := e.welcomeLinks(t); len(got) != 3 || got[first] != 1 {
		t.Errorf("welcome links after a redelivery and a later order %v, want still one each", got)
	}
	if got := e.welcomeEvents(t); len(got) != 3 || len(got[first]) != 1 {
		t.Errorf("welcome events after a redelivery and a later order %v, want still one each", got)
	}
}

// A batch of order-completed events costs identity the same statements however many
// accounts it welcomes: BEGIN, the inbox, the accounts' locks pipelined with the links'
// insert, the events' insert, COMMIT. (Handled one at a time, each order cost six
// statements and a transaction: BEGIN, inbox, account lock, link, event, COMMIT.)
func TestWelcomeBatchCostsTheSameStatementsAtAnySize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := welcomeSetup(t)
	c := e.welcomeConsumer()
	counts := dbtest.Counter(t, e.pool)
	n := 0
	for _, size := range []int{1, 2, 12} {
		batch := make([]kafka.Envelope, size)
		for i := range batch {
			n++
			batch[i] = orderCompleted(t, fmt.Sprintf("ev-%d", n), e.passwordless(t, fmt.Sprintf("buyer-%d@example.com", n)))
		}
		before := counts()
		if err := c.HandleBatch(ctx, batch); err != nil {
			t.Fatal(err)
		}
		// From eight events on the outbox insert is a COPY: the same one statement.
		if got := counts().Minus(before); got.Statements() != 6 || got.Batched != 2 || got.Transactions != 1 {
			t.Errorf("a batch of %d welcomes cost %+v, want 6 statements (2 of them pipelined) in 1 transaction", size, got)
		}
	}
	if got := e.welcomeEvents(t); len(got) != n {
		t.Errorf("%d accounts welcomed, want %d", len(got), n)
	}
}

// Two replicas' batches naming the same new accounts (a rebalance hands a partition over
// while the old member's batch is in flight; another order of the account) welcome each
// account once: the second batch waits for the first's locks and then sees its links. The
// locks are taken in one order, so batches naming the accounts in opposite orders do not
// deadlock.
func TestConcurrentWelcomeBatchesIssueOneLinkEach(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := welcomeSetup(t)
	x, y := e.passwordless(t, "x@example.com"), e.passwordless(t, "y@example.com")
	h := e.welcomes()

	a, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Rollback(ctx) }()
	if err := h(ctx, a, []kafka.Envelope{orderCompleted(t, "ev-a1", x), orderCompleted(t, "ev-a2", y)}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error {
			return h(ctx, tx, []kafka.Envelope{orderCompleted(t, "ev-b1", y), orderCompleted(t, "ev-b2", x)})
		})
	}()
	// The second batch waits for the first's locks before the first commits.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var waiting int
		if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).
			Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second batch never waited for the first's locks")
		}
	}
	if err := a.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the second batch: %v", err)
	}
	if got := e.welcomeLinks(t); len(got) != 2 || got[x] != 1 || got[y] != 1 {
		t.Errorf("welcome links %v, want one each for %s and %s", got, x, y)
	}
	if got := e.welcomeEvents(t); len(got) != 2 || len(got[x]) != 1 || len(got[y]) != 1 {
		t.Errorf("welcome events %v, want one each", got)
	}

	// Free-running: batches of the same new accounts in shuffled orders, at once.
	accounts := make([]string, 5)
	for i := range accounts {
		accounts[i] = e.passwordless(t, fmt.Sprintf("race-%d@example.com", i))
	}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			order := rand.Perm(len(accounts))
			batch := make([]kafka.Envelope, len(order))
			for i, j := range order {
				batch[i] = orderCompleted(t, fmt.Sprintf("ev-%d-%d", g, i), accounts[j])
			}
			if err := pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error { return h(ctx, tx, batch) }); err != nil {
				t.Errorf("concurrent batch %d: %v", g, err)
			}
		})
	}
	wg.Wait()
	links, evs := e.welcomeLinks(t), e.welcomeEvents(t)
	for _, id := range accounts {
		if links[id] != 1 || len(evs[id]) != 1 {
			t.Errorf("account %s: %d links and %d events, want one of each", id, links[id], len(evs[id]))
		}
	}
}
