package adapters

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/lease"
	"github.com/hangar/hangar/services/checkout/internal/app"
)

// Renewals is the renewal engine's PostgreSQL store (app.RenewalStore): the renewals table
// is its work queue, claimed with FOR UPDATE SKIP LOCKED and one lease per row
// (docs/decisions/0001-renewal-work-queue.md).
type Renewals struct {
	pool *pgxpool.Pool
	prop propagation.TextMapPropagator
}

// NewRenewals builds the store; prop carries the trace into the outbox rows.
func NewRenewals(pool *pgxpool.Pool, prop propagation.TextMapPropagator) *Renewals {
	return &Renewals{pool: pool, prop: prop}
}

var _ app.RenewalStore = (*Renewals)(nil)

// schedulerLock is the PostgreSQL advisory lock (transaction-scoped) that decides which
// replica's scheduler records: every replica runs the scheduler; the one that gets the
// lock does a batch, the others skip that batch. The batch itself is idempotent (ON
// CONFLICT, conditional updates), so the lock spares work rather than guarding
// correctness.
const schedulerLock = 0x68616e6761723137 // "hangar17"

// InTx runs fn in one transaction (app.RenewalStore).
func (s *Renewals) InTx(ctx context.Context, lock bool, fn func(tx app.RenewalTx) error) (bool, error) {
	locked := true
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if lock {
			if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, int64(schedulerLock)).Scan(&locked); err != nil || !locked {
				return err
			}
		}
		return fn(s.Tx(tx))
	})
	return locked, err
}

// Tx is the renewal engine's writes in tx (a consumer's inbox transaction).
func (s *Renewals) Tx(tx pgx.Tx) app.RenewalTx { return renewalTx{tx: tx, prop: s.prop} }

type renewalTx struct {
	tx   pgx.Tx
	prop propagation.TextMapPropagator
}

func (t renewalTx) Enqueue(ctx context.Context, evs ...kafka.Event) error {
	if len(evs) == 0 {
		return nil
	}
	return kafka.Enqueue(ctx, t.tx, t.prop, evs...)
}

// dueFilter selects the subscriptions a pass looks at: card-paid, valid, not lapsed, term
// ending within the window ($1). Check-paying (INVOICE), third-party and complimentary
// subscriptions are never charged by card: their payment method or source is not
// CREDIT_CARD. (The partial index subscriptions_renewable matches this filter.)
const dueFilter = `s.valid AND s.lapsed_at IS NULL AND s.payment_method = 'CREDIT_CARD' AND s.payment_source = 'CREDIT_CARD'
	AND s.term_end < $1`

// renewableFilter: card-paid, valid, auto-renewing subscriptions (the ones a renewal
// will charge), whatever their term end.
const renewableFilter = `s.valid AND s.lapsed_at IS NULL AND s.payment_method = 'CREDIT_CARD' AND s.payment_source = 'CREDIT_CARD'
	AND s.auto_renew`

// RecordDue records the auto-renewing terms ending within the window, once each (the
// renewals primary key). One statement, not batches: the anti-join over the due set is
// one hash join, where LIMIT batches would scan the recorded rows again each time.
func (t renewalTx) RecordDue(ctx context.Context, until, now time.Time) (int, error) {
	tag, err := t.tx.Exec(ctx, `INSERT INTO renewals (subscription_id, term_end, next_attempt_at)
		SELECT s.id, s.term_end, $2 FROM subscriptions s WHERE `+dueFilter+` AND s.auto_renew
			AND NOT EXISTS (SELECT 1 FROM renewals rn WHERE rn.subscription_id = s.id AND rn.term_end = s.term_end)
		ON CONFLICT DO NOTHING`, until, now)
	if err != nil {
		return 0, fmt.Errorf("record due renewals: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

func (t renewalTx) RecordEnding(ctx context.Context, until, now time.Time, limit int) ([]app.EndingTerm, error) {
	rows, err := t.tx.Query(ctx, `WITH ins AS (
			INSERT INTO renewals (subscription_id, term_end, next_attempt_at, status)
			SELECT s.id, s.term_end, $2, 'ending' FROM subscriptions s WHERE `+dueFilter+` AND NOT s.auto_renew
				AND NOT EXISTS (SELECT 1 FROM renewals rn WHERE rn.subscription_id = s.id AND rn.term_end = s.term_end)
			LIMIT $3
			ON CONFLICT DO NOTHING RETURNING subscription_id)
		SELECT s.id::text, s.account_id::text, s.email, s.currency, s.price_in_cents, s.term_end FROM ins JOIN subscriptions s ON s.id = ins.subscription_id`,
		until, now, limit)
	if err != nil {
		return nil, fmt.Errorf("record ending subscriptions: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (app.EndingTerm, error) {
		var e app.EndingTerm
		return e, row.Scan(&e.SubscriptionID, &e.AccountID, &e.Email, &e.Currency, &e.PriceInCents, &e.TermEnd)
	})
	if err != nil {
		return nil, fmt.Errorf("read ending subscriptions: %w", err)
	}
	return out, nil
}

func (t renewalTx) EndTerms(ctx context.Context, now time.Time, limit int) ([]app.EndedTerm, error) {
	rows, err := t.tx.Query(ctx, `UPDATE renewals rn SET status = 'ended', updated_at = now()
		FROM subscriptions s WHERE rn.status = 'ending' AND rn.term_end <= $1 AND s.id = rn.subscription_id
			AND (rn.subscription_id, rn.term_end) IN (SELECT subscription_id, term_end FROM renewals
				WHERE status = 'ending' AND term_end <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
		RETURNING rn.subscription_id::text, s.term_end = rn.term_end AND s.valid AND s.lapsed_at IS NULL AND NOT s.auto_renew`, now, limit)
	if err != nil {
		return nil, fmt.Errorf("end terms: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (app.EndedTerm, error) {
		var e app.EndedTerm
		return e, row.Scan(&e.SubscriptionID, &e.Lapse)
	})
	if err != nil {
		return nil, fmt.Errorf("end terms: %w", err)
	}
	return out, nil
}

func (t renewalTx) RecordReminders(ctx context.Context, from, to time.Time, limit int) ([]string, error) {
	rows, err := t.tx.Query(ctx, `INSERT INTO renewal_notices (subscription_id, term_end, kind)
		SELECT s.id, s.term_end, 'renewal-reminder' FROM subscriptions s
		WHERE `+renewableFilter+` AND s.term_end > $1 AND s.term_end <= $2 AND s.term_end >= s.term_start + interval '11 months'
			AND NOT EXISTS (SELECT 1 FROM renewal_notices n WHERE n.subscription_id = s.id AND n.term_end = s.term_end AND n.kind = 'renewal-reminder')
		LIMIT $3
		ON CONFLICT DO NOTHING RETURNING subscription_id::text`, from, to, limit)
	if err != nil {
		return nil, fmt.Errorf("record renewal reminders: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("record renewal reminders: %w", err)
	}
	return ids, nil
}

func (t renewalTx) RecordCardNotices(ctx context.Context, from, to time.Time, limit int) ([]app.EndingTerm, error) {
	rows, err := t.tx.Query(ctx, `WITH ins AS (
			INSERT INTO renewal_notices (subscription_id, term_end, kind)
			SELECT s.id, s.term_end, 'card-expiring' FROM subscriptions s
			WHERE `+renewableFilter+` AND s.term_end > $1 AND s.term_end <= $2 AND s.card_expires_at IS NOT NULL AND s.card_expires_at <= s.term_end
				AND NOT EXISTS (SELECT 1 FROM renewal_notices n WHERE n.subscription_id = s.id AND n.term_end = s.term_end AND n.kind = 'card-expiring')
			LIMIT $3
			ON CONFLICT DO NOTHING RETURNING subscription_id)
		SELECT s.id::text, s.account_id::text, s.email, s.term_end FROM ins JOIN subscriptions s ON s.id = ins.subscription_id`,
		from, to, limit)
	if err != nil {
		return nil, fmt.Errorf("record card notices: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (app.EndingTerm, error) {
		var e app.EndingTerm
		return e, row.Scan(&e.SubscriptionID, &e.AccountID, &e.Email, &e.TermEnd)
	})
	if err != nil {
		return nil, fmt.Errorf("read card notices: %w", err)
	}
	return out, nil
}

// Retry and LapseRenewal write only under the claim's fence (as Outage, NextAttempt and
// Finish): a renewer paused past its lease, whose row another took over, records no
// decline of the new holder's attempt, moves no retry and ends no lease.
func (t renewalTx) Retry(ctx context.Context, j *app.RenewalJob, next, first time.Time, code, msg string) (bool, error) {
	tag, err := t.tx.Exec(ctx, `UPDATE renewals SET declines = declines + 1, attempt = attempt + 1, next_attempt_at = $4, first_declined_at = $5,
			lease_until = NULL, last_failure_code = $6, last_failure_msg = $7, updated_at = now()
		WHERE subscription_id = $1 AND term_end = $2 AND status = 'due' AND attempt = $3 AND fence = $8`,
		j.SubID, j.TermEnd, j.Attempt, next, first, code, msg, j.Fence)
	if err != nil {
		return false, fmt.Errorf("record renewal decline: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

func (t renewalTx) LapseRenewal(ctx context.Context, j *app.RenewalJob, code, msg string) (bool, error) {
	tag, err := t.tx.Exec(ctx, `UPDATE renewals SET status = 'lapsed', declines = declines + 1, lease_until = NULL,
			last_failure_code = $4, last_failure_msg = $5, updated_at = now()
		WHERE subscription_id = $1 AND term_end = $2 AND status = 'due' AND attempt = $3 AND fence = $6`,
		j.SubID, j.TermEnd, j.Attempt, code, msg, j.Fence)
	if err != nil {
		return false, fmt.Errorf("record renewal lapse: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

func (t renewalTx) LapseSubscription(ctx context.Context, id string, now time.Time) (int64, error) {
	var version int64
	if err := t.tx.QueryRow(ctx, `UPDATE subscriptions SET valid = false, lapsed_at = $2, version = version + 1, updated_at = now()
		WHERE id = $1 RETURNING version`, id, now).Scan(&version); err != nil {
		return 0, fmt.Errorf("lapse subscription: %w", err)
	}
	return version, nil
}

// UpdateMethods is two statements in one round trip, whatever the number of accounts.
func (t renewalTx) UpdateMethods(ctx context.Context, ups []app.MethodUpdate, now time.Time) ([]app.GraceRetry, error) {
	accounts, tokens, expiries := make([]string, len(ups)), make([]string, len(ups)), make([]*time.Time, len(ups))
	for i, u := range ups {
		accounts[i], tokens[i], expiries[i] = u.AccountID, u.Token, u.Expires
	}
	// The accounts also as ANY($1): the planner then finds their subscriptions by the
	// account index whatever it guesses of unnest's rows (a join alone, with statistics
	// older than the table's growth, became a nested loop over every subscription). A
	// subscription already holding the method is not rewritten (no dead row version).
	var retried []app.GraceRetry
	b := &pgx.Batch{}
	b.Queue(`UPDATE subscriptions s SET payment_method_token = u.token, card_expires_at = u.expires, updated_at = now()
		FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS u(account_id, token, expires)
		WHERE s.account_id = ANY($1) AND s.account_id = u.account_id AND s.payment_method = 'CREDIT_CARD' AND s.payment_source = 'CREDIT_CARD'
		  AND (s.payment_method_token IS DISTINCT FROM u.token OR s.card_expires_at IS DISTINCT FROM u.expires)`,
		accounts, tokens, expiries)
	b.Queue(`UPDATE renewals rn SET next_attempt_at = $2, updated_at = now()
		FROM subscriptions s WHERE s.id = rn.subscription_id AND s.account_id = ANY($1::uuid[]) AND rn.status = 'due' AND rn.declines > 0
		RETURNING s.account_id::text, rn.subscription_id::text, rn.term_end, rn.attempt`, accounts, now).
		Query(func(rows pgx.Rows) error {
			var err error
			retried, err = pgx.CollectRows(rows, pgx.RowToStructByPos[app.GraceRetry])
			return err
		})
	if err := t.tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("store updated payment methods and retry renewals now: %w", err)
	}
	return retried, nil
}

// Due lists the dry run's terms (app.RenewalStore).
func (s *Renewals) Due(ctx context.Context, until, now time.Time) ([]app.DueTerm, error) {
	rows, err := s.pool.Query(ctx, `SELECT s.id::text, s.auto_renew, s.term_end, coalesce(rn.attempt, 1)
		FROM subscriptions s LEFT JOIN renewals rn ON rn.subscription_id = s.id AND rn.term_end = s.term_end
		WHERE `+dueFilter+` AND (rn.status IS NULL OR (rn.status = 'due' AND rn.next_attempt_at <= $2))
		ORDER BY s.term_end, s.id`, until, now)
	if err != nil {
		return nil, fmt.Errorf("list due renewals: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (app.DueTerm, error) {
		var d app.DueTerm
		return d, row.Scan(&d.SubscriptionID, &d.AutoRenew, &d.TermEnd, &d.Attempt)
	})
	if err != nil {
		return nil, fmt.Errorf("list due renewals: %w", err)
	}
	return out, nil
}

// Skipped counts what no claim could take, by reason (app.RenewalStore).
func (s *Renewals) Skipped(ctx context.Context, until, now time.Time) ([]app.Skipped, error) {
	rows, err := s.pool.Query(ctx, `SELECT CASE WHEN lease_until >= clock_timestamp() THEN $3 ELSE $4 END AS reason, count(*),
			min(CASE WHEN lease_until >= clock_timestamp() THEN lease_until ELSE next_attempt_at END)
		FROM renewals WHERE status = 'due' AND term_end < $1 AND (lease_until >= clock_timestamp() OR next_attempt_at > $2)
		GROUP BY 1 ORDER BY 1`, until, now, app.SkipLeased, app.SkipRetryLater)
	if err != nil {
		return nil, fmt.Errorf("count skipped renewals: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (app.Skipped, error) {
		var k app.Skipped
		return k, row.Scan(&k.Reason, &k.Count, &k.Next)
	})
	if err != nil {
		return nil, fmt.Errorf("count skipped renewals: %w", err)
	}
	return out, nil
}

// Claim takes up to n due renewals in one statement (app.RenewalStore). The row locks
// (SKIP LOCKED) keep concurrent claims off them, the lease afterwards; the stored method's
// token is read in the same statement.
func (s *Renewals) Claim(ctx context.Context, now time.Time, d time.Duration, n int) ([]*app.RenewalJob, error) {
	rows, err := s.pool.Query(ctx, `UPDATE renewals SET `+lease.Take("$2")+`, updated_at = now()
		WHERE (subscription_id, term_end) IN (SELECT subscription_id, term_end FROM renewals
			WHERE status = 'due' AND next_attempt_at <= $1 AND (lease_until IS NULL OR `+lease.Expired+`)
			ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
		RETURNING subscription_id::text, term_end, declines, attempt, first_declined_at,
			coalesce((SELECT s.payment_method_token FROM subscriptions s WHERE s.id = renewals.subscription_id), ''), fence`,
		now, lease.Interval(d), n)
	if err != nil {
		return nil, fmt.Errorf("claim renewals: %w", err)
	}
	jobs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*app.RenewalJob, error) {
		var j app.RenewalJob
		return &j, row.Scan(&j.SubID, &j.TermEnd, &j.Declines, &j.Attempt, &j.FirstAt, &j.Token, &j.Fence)
	})
	if err != nil {
		return nil, fmt.Errorf("claim renewals: %w", err)
	}
	return jobs, nil
}

// KeepLeases renews the leases still held under the claims' fences (one given back, run
// out or taken over stays so).
func (s *Renewals) KeepLeases(ctx context.Context, jobs []*app.RenewalJob, d time.Duration) error {
	ids, ends, fences := make([]string, len(jobs)), make([]time.Time, len(jobs)), make([]int64, len(jobs))
	for i, j := range jobs {
		ids[i], ends[i], fences[i] = j.SubID, j.TermEnd, j.Fence
	}
	_, err := s.pool.Exec(ctx, `UPDATE renewals rn SET lease_until = `+lease.Until("$3")+`
		FROM unnest($1::text[], $2::timestamptz[], $4::bigint[]) AS u(id, te, f)
		WHERE rn.subscription_id = u.id::uuid AND rn.term_end = u.te AND rn.fence = u.f AND rn.status = 'due'
			AND rn.`+lease.Held, ids, ends, lease.Interval(d), fences)
	return err
}

// Outage and NextAttempt write only under the claim's fence: a renewer paused past its
// lease, whose row another took over, neither moves the new holder's attempt nor ends its
// lease.
func (s *Renewals) Outage(ctx context.Context, j *app.RenewalJob, next time.Time, code, msg string) error {
	_, err := s.pool.Exec(ctx, `UPDATE renewals SET outages = outages + 1, next_attempt_at = greatest(next_attempt_at, $4), lease_until = NULL,
		last_failure_code = $5, last_failure_msg = $6, updated_at = now()
		WHERE subscription_id = $1 AND term_end = $2 AND attempt = $3 AND fence = $7 AND status = 'due'`,
		j.SubID, j.TermEnd, j.Attempt, next, code, msg, j.Fence)
	if err != nil {
		return fmt.Errorf("record renewal outage: %w", err)
	}
	return nil
}

func (s *Renewals) NextAttempt(ctx context.Context, j *app.RenewalJob, next time.Time, code string) error {
	var at *time.Time // zero: due as it was (it was due when claimed)
	if !next.IsZero() {
		at = &next
	}
	_, err := s.pool.Exec(ctx, `UPDATE renewals SET attempt = attempt + 1, outages = outages + 1, next_attempt_at = coalesce($4, next_attempt_at),
		lease_until = NULL, last_failure_code = $5, updated_at = now()
		WHERE subscription_id = $1 AND term_end = $2 AND attempt = $3 AND fence = $6 AND status = 'due'`,
		j.SubID, j.TermEnd, j.Attempt, at, code, j.Fence)
	if err != nil {
		return fmt.Errorf("record renewal attempt: %w", err)
	}
	return nil
}

// Finish and FinishRenewed write only under the claims' fences: a paused renewer whose row
// another took over leaves its end to the holder (which finds the same attempt's key and
// records what it finds), so neither a term's status nor its count is written twice.
func (s *Renewals) Finish(ctx context.Context, j *app.RenewalJob, status, invoiceID string) (bool, error) {
	var inv any
	if invoiceID != "" {
		inv = invoiceID
	}
	tag, err := s.pool.Exec(ctx, `UPDATE renewals SET status = $3, invoice_id = $4, lease_until = NULL, updated_at = now()
		WHERE subscription_id = $1 AND term_end = $2 AND status = 'due' AND fence = $5`, j.SubID, j.TermEnd, status, inv, j.Fence)
	if err != nil {
		return false, fmt.Errorf("record renewal: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// FinishRenewed is Finish("renewed") for many in one statement.
func (s *Renewals) FinishRenewed(ctx context.Context, done []app.Renewed) ([]app.Renewed, error) {
	ids, ends, invoices, fences := make([]string, len(done)), make([]time.Time, len(done)), make([]string, len(done)), make([]int64, len(done))
	byKey := make(map[string]app.Renewed, len(done))
	key := func(id string, end time.Time) string { return id + "|" + end.UTC().Format(time.RFC3339Nano) }
	for n, x := range done {
		ids[n], ends[n], invoices[n], fences[n] = x.Job.SubID, x.Job.TermEnd, x.InvoiceID, x.Job.Fence
		byKey[key(x.Job.SubID, x.Job.TermEnd)] = x
	}
	rows, err := s.pool.Query(ctx, `UPDATE renewals rn SET status = 'renewed', invoice_id = u.inv::uuid, lease_until = NULL, updated_at = now()
		FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::bigint[]) AS u(id, te, inv, f)
		WHERE rn.subscription_id = u.id::uuid AND rn.term_end = u.te AND rn.fence = u.f AND rn.status = 'due'
		RETURNING rn.subscription_id::text, rn.term_end`, ids, ends, invoices, fences)
	if err != nil {
		return nil, fmt.Errorf("record renewals: %w", err)
	}
	var out []app.Renewed
	var id string
	var end time.Time
	if _, err := pgx.ForEachRow(rows, []any{&id, &end}, func() error {
		out = append(out, byKey[key(id, end)])
		return nil
	}); err != nil {
		return nil, fmt.Errorf("record renewals: %w", err)
	}
	return out, nil
}

func (s *Renewals) OrderTotal(ctx context.Context, invoiceID string) (string, int64, error) {
	var cur string
	var total int64
	err := s.pool.QueryRow(ctx, `SELECT currency, total_in_cents FROM orders WHERE invoice_id = $1`, invoiceID).Scan(&cur, &total)
	return cur, total, err
}

func (s *Renewals) Status(ctx context.Context, subscriptionID string) (*app.RenewalRow, error) {
	var r app.RenewalRow
	err := s.pool.QueryRow(ctx, `SELECT coalesce(rn.status, ''), coalesce(rn.declines, 0), coalesce(rn.next_attempt_at, s.term_end),
			rn.first_declined_at, coalesce(rn.last_failure_msg, ''), s.card_expires_at, s.lapsed_at
		FROM subscriptions s LEFT JOIN renewals rn ON rn.subscription_id = s.id AND rn.term_end = s.term_end WHERE s.id = $1`, subscriptionID).
		Scan(&r.Status, &r.Declines, &r.NextAttempt, &r.FirstDeclined, &r.LastFailure, &r.CardExpires, &r.Lapsed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read renewal: %w", err)
	}
	return &r, nil
}

func (s *Renewals) Invoices(ctx context.Context, accountID, email string) ([]app.InvoiceRow, error) {
	var acct any
	if accountID != "" {
		acct = accountID
	}
	rows, err := s.pool.Query(ctx, `SELECT invoice_id::text, invoice_number, kind, currency, status, created_at,
			submission_key LIKE 'renewal:%', total_in_cents, is_eu, business_id <> '', billing_country
		FROM orders WHERE account_id = $1::uuid OR ($2 <> '' AND lower(email) = lower($2))
		ORDER BY created_at DESC, invoice_number DESC LIMIT 100`, acct, email)
	if err != nil {
		return nil, fmt.Errorf("list invoices: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (app.InvoiceRow, error) {
		var i app.InvoiceRow
		return i, row.Scan(&i.InvoiceID, &i.InvoiceNumber, &i.Kind, &i.Currency, &i.Status, &i.Created, &i.Renewal, &i.TotalInCents,
			&i.EU, &i.Business, &i.BillingCountry)
	})
	if err != nil {
		return nil, fmt.Errorf("list invoices: %w", err)
	}
	return out, nil
}
