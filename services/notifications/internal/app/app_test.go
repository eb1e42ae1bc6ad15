package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/services/notifications/internal/adapters"
	"github.com/hangar/hangar/services/notifications/internal/domain"
)

// mailer fails the messages named in fail and moves the clock on by each send's duration.
type mailer struct {
	clock *time.Time
	took  time.Duration
	fail  map[string]error
	sent  []string
}

func (m *mailer) Send(_ context.Context, msg domain.Message) error {
	*m.clock = m.clock.Add(m.took)
	if err := m.fail[msg.ID]; err != nil {
		return err
	}
	m.sent = append(m.sent, msg.ID)
	return nil
}

func newService(t *testing.T, n int) (*Service, *pgxpool.Pool, *time.Time) {
	t.Helper()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 8) // Open's pools count their statements
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
	s := New(render, adapters.NewStore(pool), propagation.TraceContext{}, noop.NewTracerProvider(), prometheus.NewRegistry(), slog.New(slog.DiscardHandler))
	clock := time.Now() // retries are scheduled on it, compared with the database's now()
	s.now = func() time.Time { return clock }
	var b Mails
	for i := range n {
		if err := s.Welcome(context.Background(), &b, fmt.Sprintf("ev-%d", i), domain.Welcome{Email: fmt.Sprintf("u%d@example.com", i), AccountKind: "individual"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return s.Queue(ctx, adapters.NewStore(pool).In(tx), &b, nil) }); err != nil {
		t.Fatal(err)
	}
	return s, pool, &clock
}

type row struct {
	attempts    int
	sent, given bool
	due         bool
}

// back: put back in the queue unsent, due at once, its claim's attempt given back.
func (r row) back() bool { return !r.sent && r.due && r.attempts == 0 }

// sentAndBack counts pool's mails recorded sent at their first attempt and those put back
// (row.back), and fails t for any other.
func sentAndBack(t *testing.T, pool *pgxpool.Pool) (sent, back int) {
	t.Helper()
	for id, r := range rows(t, pool) {
		switch {
		case r.sent && r.attempts == 1:
			sent++
		case r.back():
			back++
		default:
			t.Errorf("%s: %+v, want sent at attempt 1 or back in the queue", id, r)
		}
	}
	return sent, back
}

func rows(t *testing.T, pool *pgxpool.Pool) map[string]row {
	t.Helper()
	r, err := pool.Query(context.Background(), `SELECT id, attempts, sent_at IS NOT NULL, failed_at IS NOT NULL, next_attempt_at <= now() FROM messages`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]row{}
	for r.Next() {
		var id string
		var x row
		if err := r.Scan(&id, &x.attempts, &x.sent, &x.given, &x.due); err != nil {
			t.Fatal(err)
		}
		out[id] = x
	}
	return out
}

// A batch's sends start only within the window after its claim (its lease covers the
// window and one more send): a slow relay's batch sends what it can, records it, and puts
// the rest back in the queue, due at once and with their attempt not counted.
func TestBatchSendsWithinItsWindow(t *testing.T) {
	t.Parallel()
	s, pool, clock := newService(t, 5)
	m := &mailer{clock: clock, took: 3 * time.Second}
	n, err := s.SendBatch(context.Background(), m, SenderPolicy{Batch: 10, Window: 5 * time.Second, Lease: 40 * time.Second})
	if err != nil || n != 5 {
		t.Fatalf("SendBatch = %d, %v; want 5 claimed", n, err)
	}
	if len(m.sent) != 2 { // at 0 s and 3 s; at 6 s the window has closed
		t.Fatalf("sent %v, want two", m.sent)
	}
	if sent, back := sentAndBack(t, pool); sent != 2 || back != 3 {
		t.Errorf("%d recorded sent, %d back in the queue; want 2 and 3", sent, back)
	}
}

// In one batch, a refused mail is given up and a temporary failure retried later, while the
// others are recorded as sent.
func TestBatchRecordsEachOutcome(t *testing.T) {
	t.Parallel()
	s, pool, clock := newService(t, 3)
	m := &mailer{clock: clock, fail: map[string]error{
		"ev-1.welcome": fmt.Errorf("%w: 550 no such user", domain.ErrPermanent),
		"ev-2.welcome": errors.New("421 try later"),
	}}
	if n, err := s.SendBatch(context.Background(), m, SenderPolicy{Batch: 10}); err != nil || n != 3 {
		t.Fatalf("SendBatch = %d, %v; want 3 claimed", n, err)
	}
	got := rows(t, pool)
	if r := got["ev-0.welcome"]; !r.sent {
		t.Errorf("ev-0: %+v, want sent", r)
	}
	if r := got["ev-1.welcome"]; !r.given || r.sent {
		t.Errorf("ev-1: %+v, want given up", r)
	}
	if r := got["ev-2.welcome"]; r.sent || r.given || r.due || r.attempts != 1 {
		t.Errorf("ev-2: %+v, want a later retry", r)
	}
}

// SendBatch is one poll done by hand, as another replica's poller does it: it claims up to
// p.Batch due messages and sends them (sendClaimed); it answers how many it claimed.
func (s *Service) SendBatch(ctx context.Context, m Mailer, p SenderPolicy) (int, error) {
	p = p.withDefaults()
	mails, err := s.claim(ctx, p, p.Batch)
	if err != nil || len(mails) == 0 {
		return 0, err
	}
	return len(mails), s.sendClaimed(ctx, m, p, mails)
}
