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

	"github.com/hangar/hangar/internal/platform/lease"
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

// Inbox is the queue's writes in the inbox transaction of a batch of events. The inbox
// consumer (internal/platform/kafka), not the store, begins and commits that transaction:
// the batch's event ids commit with its mails, or neither does.
type Inbox struct{ tx pgx.Tx }

// In answers the queue's writes in tx, the inbox transaction of a batch of events.
func (s *Store) In(tx pgx.Tx) Inbox { return Inbox{tx: tx} }

// Queue writes msgs in the inbox transaction of their events, in one statement, each
// with the trace context its send continues (traces, by event id), and answers the ids it
// wrote. A message already queued (same id) is left as it is, and not answered.
//
// With lease 0 the messages are due at once, for any sender's Claim. With a lease they are
// written claimed, as Claim leaves what it takes (an attempt counted, held from other
// senders for lease, counted from the statement), for this process's senders to take
// without a claim; should they not (the process died), Claim takes them once the lease ran
// out.
func (q Inbox) Queue(ctx context.Context, traces map[string]map[string]string, leaseFor time.Duration, msgs ...domain.Message) ([]string, error) {
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
	// A mail written claimed counts its claim's attempt and carries its first fencing
	// token (domain.FirstFence); one written due has neither.
	attempts, fence := 0, int64(0)
	if leaseFor > 0 {
		attempts, fence = 1, domain.FirstFence
	}
	// The lease runs from this statement on the database's clock (lease.Until is
	// clock_timestamp(), not the transaction's start), after the caller read its own clock
	// for the send window (see SendBatch).
	rows, err := q.tx.Query(ctx, `INSERT INTO messages (id, event_id, template, recipient, subject, text_body, html_body, trace, attempts,
			next_attempt_at, lease_until, fence)
		SELECT id, event_id, template, recipient, subject, text_body, html_body, trace::jsonb, $9, `+lease.Until("$10")+`,
			`+lease.Until("$10")+`, $11
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
			AS u(id, event_id, template, recipient, subject, text_body, html_body, trace)
		ON CONFLICT (id) DO NOTHING RETURNING id`, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7], attempts,
		lease.Interval(leaseFor), fence)
	if err != nil {
		return nil, fmt.Errorf("queue %d messages: %w", len(msgs), err)
	}
	written, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("queue %d messages: %w", len(msgs), err)
	}
	return written, nil
}

// Claim takes up to n due messages, oldest first, and leases them for lease (no other
// sender takes them meanwhile; a crashed sender's lease runs out). It answers none when
// none is due.
//
// A due message already handed to the relay (Handing, with no outcome recorded: its sender
// died mid-send, or could not record the send) is not taken but recorded as sent, its
// outcome unknown: the relay most likely has it (the send takes milliseconds, the record
// after it is what a database restart loses), and a second copy is what the buyer would
// see. Those are answered as doubtful, for the log.
//
// The lease is taken with internal/platform/lease on the database's clock: a mail is
// claimable once due and its lease (if any) ran out, and the claim raises its fencing
// token, so the sender that held it before writes nothing about it any more (Handing,
// Sent, Retry, Failed, Release carry the token). next_attempt_at moves with the lease so
// the poll's index skips held mails.
func (s *Store) Claim(ctx context.Context, d time.Duration, n int) (claimed []domain.Outgoing, doubtful []string, err error) {
	rows, err := s.pool.Query(ctx, `UPDATE messages SET `+lease.Take("$1")+`,
			next_attempt_at = CASE WHEN handed_at IS NULL THEN `+lease.Until("$1")+` ELSE next_attempt_at END,
			attempts = attempts + CASE WHEN handed_at IS NULL THEN 1 ELSE 0 END,
			sent_at = handed_at,
			last_error = CASE WHEN handed_at IS NULL THEN last_error ELSE $3 END,
			text_body = CASE WHEN handed_at IS NOT NULL AND template = ANY($4) THEN '' ELSE text_body END,
			html_body = CASE WHEN handed_at IS NOT NULL AND template = ANY($4) THEN '' ELSE html_body END
		WHERE id = ANY(ARRAY(SELECT id FROM messages WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()
				AND (lease_until IS NULL OR `+lease.Expired+`)
			ORDER BY next_attempt_at, created_at LIMIT $2 FOR UPDATE SKIP LOCKED))
		RETURNING id, event_id, template, recipient, subject, text_body, html_body, trace, attempts, fence, created_at, sent_at IS NOT NULL`,
		lease.Interval(d), n, OutcomeUnknown, domain.LinkTemplates)
	if err != nil {
		return nil, nil, fmt.Errorf("claim messages: %w", err)
	}
	type row struct {
		domain.Outgoing
		created  time.Time
		doubtful bool
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var o row
		err := r.Scan(&o.ID, &o.EventID, &o.Template, &o.To, &o.Subject, &o.Text, &o.HTML, &o.Trace, &o.Attempts, &o.Fence, &o.created, &o.doubtful)
		return o, err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("claim messages: %w", err)
	}
	// RETURNING has no order: send the oldest first.
	slices.SortFunc(out, func(a, b row) int { return a.created.Compare(b.created) })
	for _, o := range out {
		if o.doubtful {
			doubtful = append(doubtful, o.ID)
		} else {
			claimed = append(claimed, o.Outgoing)
		}
	}
	return claimed, doubtful, nil
}

// OutcomeUnknown is the last error of a mail recorded sent because it had been handed to
// the relay and its outcome was never recorded.
const OutcomeUnknown = "outcome unknown: handed to the relay, never recorded; not sent again"

// heldUnsettled is "neither sent nor given up" for the statements that name their messages
// by id (m.id = u.id from an unnest): written so that it does not imply messages_pending's
// predicate (sent_at IS NULL AND failed_at IS NULL). Spelled as that predicate, the planner
// read the batch's rows through messages_pending, every pending entry of it (and the dead
// ones of messages sent since the last vacuum), instead of one primary-key probe per id:
// 3.3 ms a batch, a fifth of the queue's statements' time, at 160 orders/s.
const heldUnsettled = `coalesce(m.sent_at, m.failed_at) IS NULL`

// handingSQL marks held messages as handed to the relay (Handing).
const handingSQL = `UPDATE messages m SET handed_at = clock_timestamp()
	FROM unnest($1::text[], $2::bigint[]) AS u(id, f)
	WHERE m.id = u.id AND m.fence = u.f AND ` + heldUnsettled + ` AND m.` + lease.Held + `
	RETURNING m.id`

// Handing records, committed, that the held messages are about to be handed to the relay,
// in one statement for a sender's batch: from now on a claim takes each for sent unless
// Retry records a refusal or Release puts it back (see Claim). It answers the ids still
// held; no send may start unless its id is there: one missing is a message whose lease ran
// out or was taken over (its sender was paused, or its database slow), which must not go.
func (s *Store) Handing(ctx context.Context, held ...domain.Held) (map[string]bool, error) {
	if len(held) == 0 {
		return map[string]bool{}, nil
	}
	ids, fences := heldRows(held)
	rows, err := s.pool.Query(ctx, handingSQL, ids, fences)
	if err != nil {
		return nil, fmt.Errorf("mark %d messages handed to the relay: %w", len(held), err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("mark %d messages handed to the relay: %w", len(held), err)
	}
	handed := make(map[string]bool, len(got))
	for _, id := range got {
		handed[id] = true
	}
	return handed, nil
}

// heldRows splits held into the id and token arrays of a statement's unnest.
func heldRows(held []domain.Held) (ids []string, fences []int64) {
	ids, fences = make([]string, len(held)), make([]int64, len(held))
	for i, h := range held {
		ids[i], fences[i] = h.ID, h.Fence
	}
	return ids, fences
}

// Sent records the delivery of the held messages, in one statement; a message whose
// token is no longer the newest (taken over: the claim that took it recorded it sent, see
// Claim) is left to its new holder. The bodies of a mail that carries a code or a
// single-use link (domain.LinkTemplates) are blanked then: the credential should not
// linger in a table once delivered.
func (s *Store) Sent(ctx context.Context, held ...domain.Held) error {
	if len(held) == 0 {
		return nil
	}
	ids, fences := heldRows(held)
	_, err := s.pool.Exec(ctx, `UPDATE messages m SET sent_at = now(), last_error = '', lease_until = NULL,
		text_body = CASE WHEN template = ANY($3) THEN '' ELSE text_body END,
		html_body = CASE WHEN template = ANY($3) THEN '' ELSE html_body END
		FROM unnest($1::text[], $2::bigint[]) AS u(id, f) WHERE m.id = u.id AND m.fence = u.f AND m.sent_at IS NULL`,
		ids, fences, domain.LinkTemplates)
	if err != nil {
		return fmt.Errorf("mark %d messages sent: %w", len(held), err)
	}
	return nil
}

// Release hands held messages that were not attempted back to the queue, due now and
// without the attempt their claim counted. None was handed to the relay: a mark whose
// statement failed after all (Handing) is cleared with it. A message taken over meanwhile
// is its new holder's (its mark, if any, stays).
func (s *Store) Release(ctx context.Context, held ...domain.Held) error {
	if len(held) == 0 {
		return nil
	}
	ids, fences := heldRows(held)
	_, err := s.pool.Exec(ctx, `UPDATE messages m SET next_attempt_at = now(), attempts = attempts - 1, handed_at = NULL, lease_until = NULL
		FROM unnest($1::text[], $2::bigint[]) AS u(id, f) WHERE m.id = u.id AND m.fence = u.f AND `+heldUnsettled,
		ids, fences)
	if err != nil {
		return fmt.Errorf("release %d messages: %w", len(held), err)
	}
	return nil
}

// RenewLeases extends the leases of the held messages by d on the database's clock, in
// one statement (the sender's heartbeat); a lease that ran out or was taken over stays so.
func (s *Store) RenewLeases(ctx context.Context, held []domain.Held, d time.Duration) error {
	if len(held) == 0 {
		return nil
	}
	ids, fences := heldRows(held)
	_, err := s.pool.Exec(ctx, `UPDATE messages m SET lease_until = `+lease.Until("$3")+`, next_attempt_at = `+lease.Until("$3")+`
		FROM unnest($1::text[], $2::bigint[]) AS u(id, f)
		WHERE m.id = u.id AND m.fence = u.f AND `+heldUnsettled+` AND m.`+lease.Held, ids, fences, lease.Interval(d))
	if err != nil {
		return fmt.Errorf("renew the leases of %d messages: %w", len(held), err)
	}
	return nil
}

// Retry records a failed attempt of a held message and when to try again: the relay
// refused the mail, so it is no longer in doubt (handed_at cleared).
func (s *Store) Retry(ctx context.Context, h domain.Held, at time.Time, cause error) error {
	_, err := s.pool.Exec(ctx, `UPDATE messages SET next_attempt_at = $3, last_error = $4, handed_at = NULL, lease_until = NULL
		WHERE id = $1 AND fence = $2 AND sent_at IS NULL AND failed_at IS NULL`, h.ID, h.Fence, at, cause.Error())
	if err != nil {
		return fmt.Errorf("reschedule message %s: %w", h.ID, err)
	}
	return nil
}

// Failed gives up on a held message (a permanent SMTP refusal, or too many attempts).
func (s *Store) Failed(ctx context.Context, h domain.Held, cause error) error {
	_, err := s.pool.Exec(ctx, `UPDATE messages SET failed_at = now(), last_error = $3, lease_until = NULL
		WHERE id = $1 AND fence = $2 AND sent_at IS NULL AND failed_at IS NULL`, h.ID, h.Fence, cause.Error())
	if err != nil {
		return fmt.Errorf("mark message %s failed: %w", h.ID, err)
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

// Gate is the welcome gate of an inbox transaction: the accounts with a completed order
// in its events (ordered), and the welcomes to hold until their account's first completed
// order (held, by account). Rows of welcome_gate are upserted in account order (their
// locks order a welcome against its account's first order whichever commits first, without
// deadlocks between batches). It answers the mails to send now: each held welcome whose
// account already has an order, and those earlier held for the accounts ordering now. The
// rest are written to held_mails.
func (q Inbox) Gate(ctx context.Context, ordered []string, held map[string]domain.HeldWelcome, traces map[string]map[string]string) (release []domain.HeldWelcome, err error) {
	accounts := slices.Clone(ordered)
	for a := range held {
		accounts = append(accounts, a)
	}
	slices.Sort(accounts)
	accounts = slices.Compact(accounts)
	if len(accounts) == 0 {
		return nil, nil
	}
	isOrdered := make([]bool, len(accounts))
	for i, a := range accounts {
		isOrdered[i] = slices.Contains(ordered, a)
	}
	rows, err := q.tx.Query(ctx, `INSERT INTO welcome_gate AS g (account_uuid, ordered_at)
		SELECT a, CASE WHEN o THEN now() END FROM unnest($1::text[], $2::bool[]) WITH ORDINALITY AS u(a, o, i) ORDER BY i
		ON CONFLICT (account_uuid) DO UPDATE SET ordered_at = coalesce(g.ordered_at, EXCLUDED.ordered_at)
		RETURNING account_uuid, ordered_at IS NOT NULL`, accounts, isOrdered)
	if err != nil {
		return nil, fmt.Errorf("welcome gate: %w", err)
	}
	hasOrder := map[string]bool{}
	err = collectEach(rows, func(r pgx.CollectableRow) error {
		var a string
		var o bool
		err := r.Scan(&a, &o)
		hasOrder[a] = o
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("welcome gate: %w", err)
	}
	if len(ordered) > 0 {
		rows, err := q.tx.Query(ctx, `DELETE FROM held_mails WHERE account_uuid = ANY($1)
			RETURNING id, event_id, template, recipient, subject, text_body, html_body, trace, account_kind, link_expires_at`, ordered)
		if err != nil {
			return nil, fmt.Errorf("release held welcomes: %w", err)
		}
		err = collectEach(rows, func(r pgx.CollectableRow) error {
			var o domain.HeldWelcome
			var expires *time.Time
			err := r.Scan(&o.ID, &o.EventID, &o.Template, &o.To, &o.Subject, &o.Text, &o.HTML, &o.Trace, &o.AccountKind, &expires)
			if expires != nil {
				o.LinkExpiresAt = *expires
			}
			release = append(release, o)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("release held welcomes: %w", err)
		}
	}
	cols := make([][]string, 10)
	var expiries []*time.Time
	for a, h := range held {
		m := h.Message
		if hasOrder[a] {
			h.Trace = traces[m.EventID]
			release = append(release, h)
			continue
		}
		tr, err := json.Marshal(traces[m.EventID])
		if err != nil {
			return nil, fmt.Errorf("hold message %s: %w", m.ID, err)
		}
		for i, v := range []string{m.ID, a, m.EventID, m.Template, m.To, m.Subject, m.Text, m.HTML, string(tr), h.AccountKind} {
			cols[i] = append(cols[i], v)
		}
		var exp *time.Time
		if !h.LinkExpiresAt.IsZero() {
			exp = &h.LinkExpiresAt
		}
		expiries = append(expiries, exp)
	}
	if len(cols[0]) > 0 {
		_, err := q.tx.Exec(ctx, `INSERT INTO held_mails (id, account_uuid, event_id, template, recipient, subject, text_body, html_body, trace,
				account_kind, link_expires_at)
			SELECT id, a, e, t, r, s, tb, hb, coalesce(nullif(tr, 'null'), '{}')::jsonb, k, x
			FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
				$10::text[], $11::timestamptz[]) AS u(id, a, e, t, r, s, tb, hb, tr, k, x)
			ON CONFLICT (id) DO NOTHING`, cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7], cols[8], cols[9], expiries)
		if err != nil {
			return nil, fmt.Errorf("hold %d welcomes: %w", len(cols[0]), err)
		}
	}
	return release, nil
}

// collectEach calls f for each row of rows.
func collectEach(rows pgx.Rows, f func(pgx.CollectableRow) error) error {
	_, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (struct{}, error) { return struct{}{}, f(r) })
	return err
}

// Held answers the ids of the welcomes waiting for their account's first order (tests,
// support).
func (s *Store) Held(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM held_mails ORDER BY id`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
