package ports_test

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/notifications/internal/adapters"
	"github.com/hangar/hangar/services/notifications/internal/app"
	"github.com/hangar/hangar/services/notifications/internal/domain"
	"github.com/hangar/hangar/services/notifications/internal/ports"
)

// mailOnce is the handler over a fresh database, and a way to deliver events to it as the
// inbox consumer does (each batch in one transaction).
type mailOnce struct {
	t       *testing.T
	pool    *pgxpool.Pool
	store   *adapters.Store
	handler kafka.InboxBatchHandler
}

func newMailOnce(t *testing.T) *mailOnce {
	t.Helper()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	render, err := domain.NewRenderer(domain.Site{Name: "Hangar", BaseURL: "https://store.test", Support: "support@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	store := adapters.NewStore(pool)
	svc := app.New(render, store, propagation.TraceContext{}, noop.NewTracerProvider(), prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
	return &mailOnce{t: t, pool: pool, store: store, handler: ports.Handler(svc, store.In)}
}

func (m *mailOnce) deliver(envs ...kafka.Envelope) {
	m.t.Helper()
	ctx := context.Background()
	if err := pgx.BeginFunc(ctx, m.pool, func(tx pgx.Tx) error { return m.handler(ctx, tx, envs) }); err != nil {
		m.t.Fatal(err)
	}
}

func envelope(t *testing.T, id, topic string, ev proto.Message) kafka.Envelope {
	t.Helper()
	b, err := proto.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return kafka.Envelope{ID: id, Topic: topic, Data: b}
}

// welcomeLink is identity's event for an account checkout created (ProvisionAccount).
func welcomeLink(t *testing.T, id, account, email string) kafka.Envelope {
	return welcomeLinkOf(t, id, account, email, "", time.Now().Add(72*time.Hour))
}

// welcomeLinkOf is identity's welcome link event expiring at expires; org names the
// organization of a member its administrator added ("" for a checkout account).
func welcomeLinkOf(t *testing.T, id, account, email, org string, expires time.Time) kafka.Envelope {
	return envelope(t, id, events.TopicPasswordLinkIssued, &eventsv1.PasswordLinkIssued{AccountUuid: account, Email: email,
		Purpose: "welcome", Link: "/account/set-password#token=tok-" + account + "&welcome=1", AccountKind: "individual",
		ExpiresAt: timestamppb.New(expires), OrganizationName: org})
}

func accountCreated(t *testing.T, id, account, email string, passwordless bool) kafka.Envelope {
	return envelope(t, id, events.TopicAccountCreated, &eventsv1.AccountCreated{AccountUuid: account, Email: email,
		AccountKind: "individual", Passwordless: passwordless, CreatedAt: timestamppb.Now()})
}

func orderCompleted(t *testing.T, id, account, email string) kafka.Envelope {
	return envelope(t, id, events.TopicOrderCompleted, &eventsv1.OrderCompleted{OrderId: "ord-" + id, InvoiceId: "inv-" + id,
		AccountId: account, Email: email, OrderKind: "oneoff", Currency: "USD", SubtotalInCents: 1000, TotalInCents: 1000,
		CompletedAt: timestamppb.Now()})
}

// welcomes answers the queued welcome e-mails to e-mail, with their text.
func (m *mailOnce) welcomes(email string) []string {
	m.t.Helper()
	rows, err := m.pool.Query(context.Background(), `SELECT text_body FROM messages WHERE template = 'welcome' AND recipient = $1`, email)
	if err != nil {
		m.t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		m.t.Fatal(err)
	}
	return out
}

// Issue 30, "welcome e-mails go to accounts whose purchase then failed": checkout creates
// the buyer's account before the charge, and identity issues the welcome link at once. A
// declined buyer's welcome is held, never queued; a paid buyer's is queued once, with its
// set-password link, whichever of the two events comes first.
func TestWelcomeOnlyAfterFirstOrder(t *testing.T) {
	t.Parallel()
	m := newMailOnce(t)

	// Declined: the account and its link exist, no order ever completes.
	m.deliver(accountCreated(t, "ev-d1", "acct-declined", "declined@example.com", true),
		welcomeLink(t, "ev-d2", "acct-declined", "declined@example.com"))
	if got := m.welcomes("declined@example.com"); len(got) != 0 {
		t.Errorf("declined buyer: %d welcomes queued, want none", len(got))
	}

	// Paid: link first, the order in a later batch.
	m.deliver(welcomeLink(t, "ev-p1", "acct-paid", "paid@example.com"))
	if got := m.welcomes("paid@example.com"); len(got) != 0 {
		t.Fatalf("paid buyer before the order: %d welcomes queued, want none yet", len(got))
	}
	m.deliver(orderCompleted(t, "ev-p2", "acct-paid", "paid@example.com"))
	m.deliver(orderCompleted(t, "ev-p3", "acct-paid", "paid@example.com")) // a second order: no second welcome
	got := m.welcomes("paid@example.com")
	if len(got) != 1 || !strings.Contains(got[0], "set-password#token=tok-acct-paid") {
		t.Fatalf("paid buyer: welcomes %q, want exactly one with the set-password link", got)
	}

	// Paid, the order event consumed before the link's (another topic, another partition).
	m.deliver(orderCompleted(t, "ev-q1", "acct-quick", "quick@example.com"))
	m.deliver(welcomeLink(t, "ev-q2", "acct-quick", "quick@example.com"))
	m.deliver(welcomeLink(t, "ev-q2", "acct-quick", "quick@example.com")) // redelivered: the inbox would drop it; the message id does too
	if got := m.welcomes("quick@example.com"); len(got) != 1 {
		t.Errorf("order before link: %d welcomes, want 1", len(got))
	}

	// Both in one batch.
	m.deliver(welcomeLink(t, "ev-b1", "acct-batch", "batch@example.com"), orderCompleted(t, "ev-b2", "acct-batch", "batch@example.com"))
	if got := m.welcomes("batch@example.com"); len(got) != 1 {
		t.Errorf("one batch: %d welcomes, want 1", len(got))
	}

	// Signed up himself (a password, no link): welcomed at once.
	m.deliver(accountCreated(t, "ev-s1", "acct-self", "self@example.com", false))
	if got := m.welcomes("self@example.com"); len(got) != 1 {
		t.Errorf("self sign-up: %d welcomes, want 1", len(got))
	}

	held, err := m.store.Held(context.Background())
	if err != nil || len(held) != 1 || held[0] != "ev-d2.welcome" {
		t.Errorf("held = %v, %v; want only the declined buyer's", held, err)
	}
}

// A member an organization's administrator added (accounts, issue 28 follow-up) is
// welcomed at once, with the set-password link and the organization's name: no order
// will ever release a held welcome of theirs. Before, it was held like a checkout
// account's, and the member never heard from the store.
func TestMemberWelcomeIsSentAtOnce(t *testing.T) {
	t.Parallel()
	m := newMailOnce(t)
	m.deliver(accountCreated(t, "ev-m1", "acct-crew", "crew@fleet.example", true),
		welcomeLinkOf(t, "ev-m2", "acct-crew", "crew@fleet.example", "Fleet One", time.Now().Add(72*time.Hour)))
	got := m.welcomes("crew@fleet.example")
	if len(got) != 1 || !strings.Contains(got[0], "https://store.test/account/set-password#token=tok-acct-crew") ||
		!strings.Contains(got[0], "added to Fleet One") {
		t.Fatalf("member welcomes %q, want one naming Fleet One with the set-password link", got)
	}
	var subject string
	if err := m.pool.QueryRow(context.Background(), `SELECT subject FROM messages WHERE id = 'ev-m2.welcome'`).Scan(&subject); err != nil ||
		subject != "Welcome to Hangar with Fleet One: choose your password" {
		t.Errorf("subject = %q (%v)", subject, err)
	}
	if held, err := m.store.Held(context.Background()); err != nil || len(held) != 0 {
		t.Errorf("held = %v, %v; want none", held, err)
	}
}

// Issue 41: identity issues a checkout account's welcome link when its first order
// completes, marked after_order; such a welcome is queued at once, its link never at rest
// in held_mails, whether or not this consumer has seen the order yet.
func TestWelcomeAfterTheOrderIsNeverHeld(t *testing.T) {
	t.Parallel()
	m := newMailOnce(t)
	ev := &eventsv1.PasswordLinkIssued{AccountUuid: "acct-new", Email: "new@buyer.example", Purpose: "welcome",
		Link: "/account/set-password#token=tok-new&welcome=1", AccountKind: "individual", ExpiresAt: timestamppb.New(time.Now().Add(72 * time.Hour)),
		AfterOrder: true}
	m.deliver(accountCreated(t, "ev-n1", "acct-new", "new@buyer.example", true), envelope(t, "ev-n2", events.TopicPasswordLinkIssued, ev))
	if got := m.welcomes("new@buyer.example"); len(got) != 1 || !strings.Contains(got[0], "set-password#token=tok-new") {
		t.Fatalf("welcomes %q, want one with its link at once", got)
	}
	var held int
	if err := m.pool.QueryRow(context.Background(), `SELECT count(*) FROM held_mails WHERE text_body LIKE '%tok-new%' OR html_body LIKE '%tok-new%'`).Scan(&held); err != nil || held != 0 {
		t.Errorf("held mails carrying the link = %d (%v), want none", held, err)
	}
}

// A checkout account's welcome waits for the first completed order, for as long as that
// takes; its link does not (IDENTITY_WELCOME_LINK_TTL, 72 h). A buyer declined today who
// buys again next week (the never-activated account may) must not get a welcome whose
// link is dead: released after its link ran out, the welcome is rendered again without
// it, pointing at "Forgot password" for a new one. A welcome released in time keeps its
// link (TestWelcomeOnlyAfterFirstOrder).
func TestHeldWelcomeReleasedAfterItsLinkExpired(t *testing.T) {
	t.Parallel()
	m := newMailOnce(t)
	expired := time.Now().Add(-time.Minute)
	// Held, then released by the order.
	m.deliver(welcomeLinkOf(t, "ev-x1", "acct-late", "late@example.com", "", expired))
	m.deliver(orderCompleted(t, "ev-x2", "acct-late", "late@example.com"))
	// The order first: the welcome is released as it comes.
	m.deliver(orderCompleted(t, "ev-y1", "acct-later", "later@example.com"))
	m.deliver(welcomeLinkOf(t, "ev-y2", "acct-later", "later@example.com", "", expired))
	for _, email := range []string{"late@example.com", "later@example.com"} {
		got := m.welcomes(email)
		if len(got) != 1 || strings.Contains(got[0], "set-password") || !strings.Contains(got[0], "https://store.test/account/forgot-password") {
			t.Errorf("%s: welcomes %q, want one pointing at forgot-password, without the expired link", email, got)
		}
	}
	var html string
	if err := m.pool.QueryRow(context.Background(), `SELECT html_body FROM messages WHERE id = 'ev-x1.welcome'`).Scan(&html); err != nil ||
		strings.Contains(html, "set-password") || !strings.Contains(html, `href="https://store.test/account/forgot-password"`) {
		t.Errorf("html part (%v) carries the dead link or no forgot-password link:\n%s", err, html)
	}
}

// The welcome and the account's first order consumed at once by two transactions (two
// partitions, two replicas): the order's waits on the welcome's gate row, then finds the
// welcome held and queues it. Neither misses the other.
func TestWelcomeAndFirstOrderAtOnce(t *testing.T) {
	t.Parallel()
	m := newMailOnce(t)
	ctx := context.Background()
	tx, err := m.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := m.handler(ctx, tx, []kafka.Envelope{welcomeLink(t, "ev-w", "acct-race", "race@example.com")}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- pgx.BeginFunc(ctx, m.pool, func(tx pgx.Tx) error {
			return m.handler(ctx, tx, []kafka.Envelope{orderCompleted(t, "ev-o", "acct-race", "race@example.com")})
		})
	}()
	// The order's transaction waits for the welcome's gate row.
	for deadline := time.Now().Add(30 * time.Second); ; runtime.Gosched() {
		var waiting bool
		if err := m.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the order's transaction never waited for the welcome's")
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := m.welcomes("race@example.com"); len(got) != 1 {
		t.Errorf("%d welcomes, want 1", len(got))
	}
}
