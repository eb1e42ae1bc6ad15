// Package adapters stores the notifications service's messages in its own PostgreSQL
// database and sends them over SMTP.
package adapters

import (
	"context"
	"embed"
	"errors"
	"fmt"
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

// Queue writes msgs in tx, the inbox transaction of their event. A message already queued
// (same id) is left as it is.
func (s *Store) Queue(ctx context.Context, tx pgx.Tx, trace map[string]string, msgs ...domain.Message) error {
	for _, m := range msgs {
		if _, err := tx.Exec(ctx, `INSERT INTO messages (id, event_id, template, recipient, subject, text_body, html_body, trace)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
			m.ID, m.EventID, m.Template, m.To, m.Subject, m.Text, m.HTML, trace); err != nil {
			return fmt.Errorf("queue message %s: %w", m.ID, err)
		}
	}
	return nil
}

// Claim takes the oldest due message and leases it for lease (another worker will not take
// it meanwhile; a crashed worker's lease runs out). ok is false when none is due.
func (s *Store) Claim(ctx context.Context, lease time.Duration) (o Outgoing, ok bool, err error) {
	err = s.pool.QueryRow(ctx, `UPDATE messages SET next_attempt_at = now() + $1::interval, attempts = attempts + 1
		WHERE id = (SELECT id FROM messages WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()
			ORDER BY next_attempt_at, created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING id, event_id, template, recipient, subject, text_body, html_body, trace, attempts`,
		fmt.Sprintf("%d milliseconds", lease.Milliseconds())).
		Scan(&o.ID, &o.EventID, &o.Template, &o.To, &o.Subject, &o.Text, &o.HTML, &o.Trace, &o.Attempts)
	if errors.Is(err, pgx.ErrNoRows) {
		return Outgoing{}, false, nil
	}
	if err != nil {
		return Outgoing{}, false, fmt.Errorf("claim message: %w", err)
	}
	return o, true, nil
}

// Sent records the delivery. A verification code's bodies are blanked then: the code
// should not linger in a table once delivered.
func (s *Store) Sent(ctx context.Context, id string) error {
	_, err := s.pool.Exec(ctx, `UPDATE messages SET sent_at = now(), last_error = '',
		text_body = CASE WHEN template = 'eligibility-code' THEN '' ELSE text_body END,
		html_body = CASE WHEN template = 'eligibility-code' THEN '' ELSE html_body END WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("mark message %s sent: %w", id, err)
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
