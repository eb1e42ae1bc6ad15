// Package adapters stores the notifications service's messages in its own PostgreSQL
// database and sends them over SMTP.
package adapters

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hangar/hangar/services/notifications/internal/domain"
)

// Migrations are the notifications database's schema migrations.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Store is the messages table.
type Store struct{ pool *pgxpool.Pool }

// NewStore uses pool, already migrated.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// Outgoing is a message waiting to be sent, with its delivery state.
type Outgoing struct {
	domain.Message
	Trace    map[string]string // trace context of the event's consumer span
	Attempts int
}

// Queue writes msgs in tx, the inbox transaction of their events, in one statement, each
// with the trace context its send continues (traces, by event id), and answers the ids it
// wrote. A message already queued (same id) is left as it is, and not answered.
//
// With lease 0 the messages are due at once, for any sender's Claim. With a lease they are
// written claimed, as Claim leaves what it takes (an attempt counted, held from other
// senders for lease, counted from the statement), for this process's senders to take
// without a claim; should they not (the process died), Claim takes them once the lease ran
// out.
func (s *Store) Queue(ctx context.Context, tx pgx.Tx, traces map[string]map[string]string, lease time.Duration, msgs ...domain.Message) ([]string, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	cols := make([][]string, 8)
	for _, m := range msgs {
		tc := traces[m.EventID]
		if tc == nil {
			tc = map[string]string{}
		}
		tr, err := json.Marshal(tc)
		if err != nil {
			return nil, fmt.Errorf("queue message %s: %w", m.ID, err)
		}
		for i, v := range []string{m.ID, m.EventID, m.Template, m.To, m.Subject, m.Text, m.HTML, string(tr)} {
			cols[i] = append(cols[i], v)
		}
	}
	attempts := 0
	if lease > 0 {
		attempts = 1
	}
	// clock_timestamp(), not now() (the transaction's start): the lease runs from this
	// statement, after the caller read its clock for the send window (see SendBatch).
	rows, err := tx.Query(ctx, `INSERT INTO messages (id, event_id, template, recipient, subject, text_body, html_body, trace, attempts, next_attempt_at)
		SELECT id, event_id, template, recipient, subject, text_body, html_body, trace::jsonb, $9, clock_timestamp() + $10::interval
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
			AS u(id, event_id, template, recipient, subject, text_body, html_body, trace)
		ON CONFLICT (id) DO NOTHING RETURNING id`, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7], attempts, interval(lease))
	if err != nil {
		return nil, fmt.Errorf("queue %d messages: %w", len(msgs), err)
	}
	written, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("queue %d messages: %w", len(msgs), err)
	}
	return written, nil
}

// interval is d as a PostgreSQL interval parameter.
func interval(d time.Duration) string { return fmt.Sprintf("%d milliseconds", d.Milliseconds()) }

// Claim takes up to n due messages, oldest first, and leases them for lease (no other
// sender takes them meanwhile; a crashed sender's lease runs out). It answers none when
// none is due.
func (s *Store) Claim(ctx context.Context, lease time.Duration, n int) ([]Outgoing, error) {
	rows, err := s.pool.Query(ctx, `UPDATE messages SET next_attempt_at = now() + $1::interval, attempts = attempts + 1
		WHERE id = ANY(ARRAY(SELECT id FROM messages WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()
			ORDER BY next_attempt_at, created_at LIMIT $2 FOR UPDATE SKIP LOCKED))
		RETURNING id, event_id, template, recipient, subject, text_body, html_body, trace, attempts, created_at`,
		interval(lease), n)
	if err != nil {
		return nil, fmt.Errorf("claim messages: %w", err)
	}
	type claimed struct {
		Outgoing
		created time.Time
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (claimed, error) {
		var o claimed
		err := r.Scan(&o.ID, &o.EventID, &o.Template, &o.To, &o.Subject, &o.Text, &o.HTML, &o.Trace, &o.Attempts, &o.created)
		return o, err
	})
	if err != nil {
		return nil, fmt.Errorf("claim messages: %w", err)
	}
	// RETURNING has no order: send the oldest first.
	slices.SortFunc(out, func(a, b claimed) int { return a.created.Compare(b.created) })
	msgs := make([]Outgoing, len(out))
	for i, o := range out {
		msgs[i] = o.Outgoing
	}
	return msgs, nil
}

// Sent records the delivery of the messages ids, in one statement. The bodies of a mail
// that carries a code or a single-use link (domain.LinkTemplates) are blanked then: the
// credential should not linger in a table once delivered.
func (s *Store) Sent(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := s.pool.Exec(ctx, `UPDATE messages SET sent_at = now(), last_error = '',
		text_body = CASE WHEN template = ANY($2) THEN '' ELSE text_body END,
		html_body = CASE WHEN template = ANY($2) THEN '' ELSE html_body END WHERE id = ANY($1)`, ids, domain.LinkTemplates)
	if err != nil {
		return fmt.Errorf("mark %d messages sent: %w", len(ids), err)
	}
	return nil
}

// Release hands claimed messages that were not attempted back to the queue, due now and
// without the attempt their claim counted.
func (s *Store) Release(ctx context.Context, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := s.pool.Exec(ctx, `UPDATE messages SET next_attempt_at = now(), attempts = attempts - 1 WHERE id = ANY($1)`, ids)
	if err != nil {
		return fmt.Errorf("release %d messages: %w", len(ids), err)
	}
	return nil
}

// Retry records a failed attempt and when to try again.
func (s *Store) Retry(ctx context.Context, id string, at time.Time, cause error) error {
	_, err := s.pool.Exec(ctx, `UPDATE messages SET next_attempt_at = $2, last_error = $3 WHERE id = $1`, id, at, cause.Error())
	if err != nil {
		return fmt.Errorf("reschedule message %s: %w", id, err)
	}
	return nil
}

// Failed gives up on a message (a permanent SMTP refusal, or too many attempts).
func (s *Store) Failed(ctx context.Context, id string, cause error) error {
	_, err := s.pool.Exec(ctx, `UPDATE messages SET failed_at = now(), last_error = $2 WHERE id = $1`, id, cause.Error())
	if err != nil {
		return fmt.Errorf("mark message %s failed: %w", id, err)
	}
	return nil
}

// MessagesOf answers the messages of an event (for tests and support).
func (s *Store) MessagesOf(ctx context.Context, eventID string) ([]domain.Message, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, event_id, template, recipient, subject, text_body, html_body FROM messages WHERE event_id = $1 ORDER BY id`, eventID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Message, error) {
		var m domain.Message
		err := r.Scan(&m.ID, &m.EventID, &m.Template, &m.To, &m.Subject, &m.Text, &m.HTML)
		return m, err
	})
}

// Pending counts messages not yet sent nor given up, and the age of the oldest.
func (s *Store) Pending(ctx context.Context) (n int64, oldest time.Duration, err error) {
	var secs float64
	err = s.pool.QueryRow(ctx, `SELECT count(*), coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8
		FROM messages WHERE sent_at IS NULL AND failed_at IS NULL`).Scan(&n, &secs)
	return n, time.Duration(secs * float64(time.Second)), err
}
