package adapters_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/services/notifications/internal/adapters"
	"github.com/hangar/hangar/services/notifications/internal/domain"
)

func newStore(t *testing.T) (*adapters.Store, *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dbtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	return adapters.NewStore(pool), pool
}

func queue(t *testing.T, pool *pgxpool.Pool, s *adapters.Store, msgs ...domain.Message) {
	t.Helper()
	ctx := context.Background()
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		traces := map[string]map[string]string{}
		for _, m := range msgs {
			traces[m.EventID] = map[string]string{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
		}
		_, err := s.In(tx).Queue(ctx, traces, 0, msgs...)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

func mail(i int, template string) domain.Message {
	ev := fmt.Sprintf("ev-%04d", i)
	return domain.Message{ID: ev + "." + template, EventID: ev, Template: template, To: fmt.Sprintf("u%d@example.com", i),
		Subject: "s", Text: "text " + ev, HTML: "<p>" + ev + "</p>"}
}

// Senders claiming batches at once never get the same message, and between them get every
// due one; one statement queues many messages, and queueing one again changes nothing.
func TestConcurrentClaimsShareTheQueue(t *testing.T) {
	t.Parallel()
	s, pool := newStore(t)
	const n = 300
	var msgs []domain.Message
	for i := range n {
		msgs = append(msgs, mail(i, "receipt"))
	}
	queue(t, pool, s, msgs...)
	again := mail(0, "receipt")
	again.Subject = "changed"
	queue(t, pool, s, again)

	var mu sync.Mutex
	claimed := map[string]int{}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				batch, _, err := s.Claim(context.Background(), time.Minute, 7)
				if err != nil {
					errs <- err
					return
				}
				if len(batch) == 0 {
					return
				}
				mu.Lock()
				for _, o := range batch {
					claimed[o.ID]++
					if o.Attempts != 1 || o.Trace["traceparent"] == "" || o.Text != "text "+o.EventID || (o.ID == again.ID && o.Subject != "s") {
						errs <- fmt.Errorf("claimed %+v", o)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if len(claimed) != n {
		t.Errorf("%d messages claimed, want %d", len(claimed), n)
	}
	for id, k := range claimed {
		if k != 1 {
			t.Errorf("%s claimed %d times", id, k)
		}
	}
}

// Issue 41: a gift certificate's code (a bearer balance) is at rest only until its mails
// are sent: the buyer's and the recipient's bodies are blanked then, as a link's are.
// Before, they stayed in messages for good.
func TestGiftMailsKeepNoCodeOnceSent(t *testing.T) {
	t.Parallel()
	s, pool := newStore(t)
	ctx := context.Background()
	queue(t, pool, s, mail(1, "gift-buyer"), mail(2, "gift-recipient"), mail(3, "receipt"))
	batch, _, err := s.Claim(ctx, time.Minute, 10)
	if err != nil || len(batch) != 3 {
		t.Fatalf("Claim = %d, %v; want 3", len(batch), err)
	}
	held := make([]domain.Held, 0, len(batch))
	for _, o := range batch {
		held = append(held, o.Held())
	}
	if err := s.Sent(ctx, held...); err != nil {
		t.Fatal(err)
	}
	var kept int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM messages WHERE template LIKE 'gift-%' AND (text_body <> '' OR html_body <> '')`).Scan(&kept); err != nil || kept != 0 {
		t.Errorf("sent gift mails keeping their bodies = %d (%v), want none", kept, err)
	}
	var receipt string
	if err := pool.QueryRow(ctx, `SELECT text_body FROM messages WHERE template = 'receipt'`).Scan(&receipt); err != nil || receipt == "" {
		t.Errorf("the receipt's body = %q (%v), want kept", receipt, err)
	}
}

// A sent batch is recorded in one statement (a verification code's bodies blanked); a
// released message is due again at once without the attempt its claim counted; a leased
// one is not claimed again.
func TestSentAndReleased(t *testing.T) {
	t.Parallel()
	s, pool := newStore(t)
	ctx := context.Background()
	queue(t, pool, s, mail(1, "eligibility-code"), mail(2, "receipt"), mail(3, "welcome"))
	batch, _, err := s.Claim(ctx, time.Minute, 10)
	if err != nil || len(batch) != 3 {
		t.Fatalf("Claim = %d, %v; want 3", len(batch), err)
	}
	held := map[string]domain.Held{}
	for _, o := range batch {
		held[o.ID] = o.Held()
	}
	if err := s.Sent(ctx, held["ev-0001.eligibility-code"], held["ev-0002.receipt"]); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, held["ev-0003.welcome"]); err != nil {
		t.Fatal(err)
	}
	again, _, err := s.Claim(ctx, time.Minute, 10)
	if err != nil || len(again) != 1 || again[0].ID != "ev-0003.welcome" || again[0].Attempts != 1 {
		t.Fatalf("Claim after release = %+v, %v; want the welcome, attempt 1", again, err)
	}
	if none, _, err := s.Claim(ctx, time.Minute, 10); err != nil || len(none) != 0 {
		t.Errorf("Claim of leased messages = %+v, %v; want none", none, err)
	}
	var sent int
	var codeText string
	if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE sent_at IS NOT NULL),
		max(text_body) FILTER (WHERE template = 'eligibility-code') FROM messages`).Scan(&sent, &codeText); err != nil {
		t.Fatal(err)
	}
	if sent != 2 || codeText != "" {
		t.Errorf("sent %d (want 2), code text %q (want blank)", sent, codeText)
	}
	if n, _, err := s.Pending(ctx); err != nil || n != 1 {
		t.Errorf("Pending = %d, %v; want 1", n, err)
	}
}
