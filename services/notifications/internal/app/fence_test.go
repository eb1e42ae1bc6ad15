package app

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// expireLeases moves the database's view of every claim past its lease, as a sender paused
// (SIGSTOP, a stalled VM) longer than its lease sees it when it resumes.
func expireLeases(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), `UPDATE messages SET next_attempt_at = now() - interval '1 second',
		lease_until = now() - interval '1 second' WHERE sent_at IS NULL`); err != nil {
		t.Fatal(err)
	}
}

// Issue 39/43: a sender paused past its lease, whose mail another sender took over and
// sent, resumes with the mail in hand. The takeover raised the mail's fencing token, so
// the paused sender's hand-over mark is refused: it does not send the mail a second time.
func TestPausedSenderWhoseLeaseWasTakenOverDoesNotSendAgain(t *testing.T) {
	t.Parallel()
	paused, pool, clock := newService(t, 1)
	other, _, _ := newService(t, 0)
	other.store = paused.store // another replica, on the same database
	ctx := context.Background()
	p := SenderPolicy{}.withDefaults()
	held, err := paused.claim(ctx, p, 1)
	if err != nil || len(held) != 1 {
		t.Fatalf("claim = %d, %v; want the mail", len(held), err)
	}
	expireLeases(t, pool) // paused past its lease

	m := &mailer{clock: clock}
	if n, err := other.SendBatch(ctx, m, p); err != nil || n != 1 {
		t.Fatalf("takeover SendBatch = %d, %v; want the mail", n, err)
	}
	late := &mailer{clock: clock}
	if err := paused.sendClaimed(ctx, late, p, held); err != nil {
		t.Fatalf("resumed sender: %v", err)
	}
	if !slices.Equal(m.sent, []string{"ev-0.welcome"}) || len(late.sent) != 0 {
		t.Errorf("sent by the new holder %v, by the resumed sender %v; want once, by the new holder", m.sent, late.sent)
	}
	if r := rows(t, pool)["ev-0.welcome"]; !r.sent || r.attempts != 2 {
		t.Errorf("ev-0: %+v, want sent at the takeover's attempt", r)
	}
}

// The same pause where the new holder's send was refused (a retry is scheduled): the
// resumed sender neither sends the mail nor records it sent, so the retry still happens
// and nothing says a mail went out that did not.
func TestPausedSenderWhoseLeaseWasTakenOverDoesNotMarkSent(t *testing.T) {
	t.Parallel()
	paused, pool, clock := newService(t, 1)
	other, _, _ := newService(t, 0)
	other.store = paused.store
	ctx := context.Background()
	p := SenderPolicy{}.withDefaults()
	held, err := paused.claim(ctx, p, 1)
	if err != nil || len(held) != 1 {
		t.Fatalf("claim = %d, %v; want the mail", len(held), err)
	}
	expireLeases(t, pool)

	refused := &mailer{clock: clock, fail: map[string]error{"ev-0.welcome": errors.New("421 try later")}}
	if n, err := other.SendBatch(ctx, refused, p); err != nil || n != 1 {
		t.Fatalf("takeover SendBatch = %d, %v; want the mail", n, err)
	}
	late := &mailer{clock: clock}
	if err := paused.sendClaimed(ctx, late, p, held); err != nil {
		t.Fatalf("resumed sender: %v", err)
	}
	if len(late.sent) != 0 {
		t.Errorf("resumed sender sent %v; want nothing (its lease was taken over)", late.sent)
	}
	if r := rows(t, pool)["ev-0.welcome"]; r.sent || r.given || r.due || r.attempts != 2 {
		t.Errorf("ev-0: %+v, want the takeover's retry still scheduled, not recorded sent", r)
	}
}
