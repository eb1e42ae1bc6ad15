package app

import (
	"context"
	"errors"
	"testing"

	"github.com/hangar/hangar/services/notifications/internal/domain"
)

// Issue 30, "a PostgreSQL fast restart sent one welcome e-mail twice 45 s apart": the send
// succeeded, its record did not, and once the lease ran out another claim sent it again.
// The mail is marked handed to the relay before the send, so the next claim records it
// sent instead; a mail the relay refused (temporarily) is still retried.
func TestSendWhoseRecordFailedIsNotSentAgain(t *testing.T) {
	t.Parallel()
	s, pool, clock := newService(t, 2)
	ctx := context.Background()
	m := &mailer{clock: clock, fail: map[string]error{"ev-1.welcome": errors.New("421 try later")}}
	s.recordSent = func(context.Context, ...domain.Held) error { return errors.New("the database restarted") } // the crash between send and record
	if _, err := s.SendBatch(ctx, m, SenderPolicy{Batch: 10}); err == nil {
		t.Fatal("SendBatch: no error, want the failed record's")
	}
	if len(m.sent) != 1 || m.sent[0] != "ev-0.welcome" {
		t.Fatalf("sent %v, want ev-0 once", m.sent)
	}

	// Both leases (and the retry's backoff) run out; the relay accepts everything now.
	if _, err := pool.Exec(ctx, `UPDATE messages SET next_attempt_at = now() - interval '1 second', lease_until = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	m.fail = nil
	if _, err := s.SendBatch(ctx, m, SenderPolicy{Batch: 10}); err == nil {
		t.Fatal("SendBatch: no error, want the failed record's") // ev-1's record still fails
	}
	s.recordSent = nil
	if n, err := s.SendBatch(ctx, m, SenderPolicy{Batch: 10}); err != nil || n != 0 {
		t.Fatalf("SendBatch = %d, %v; want nothing left to send", n, err)
	}
	if len(m.sent) != 2 || m.sent[1] != "ev-1.welcome" {
		t.Fatalf("sent %v, want ev-0 once and then the refused ev-1 once", m.sent)
	}
	if _, err := pool.Exec(ctx, `UPDATE messages SET next_attempt_at = now() - interval '1 second', lease_until = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	if n, err := s.SendBatch(ctx, m, SenderPolicy{Batch: 10}); err != nil || n != 0 || len(m.sent) != 2 {
		t.Fatalf("SendBatch = %d, %v, sent %v; want nothing sent again", n, err, m.sent)
	}
	for id, r := range rows(t, pool) {
		if !r.sent {
			t.Errorf("%s: %+v, want recorded sent", id, r)
		}
	}
}
