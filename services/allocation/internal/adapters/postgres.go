// Package adapters holds the allocation service's PostgreSQL store and its client of
// identity's directory.
package adapters

import (
	"context"
	"embed"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hangar/hangar/services/allocation/internal/domain"
)

// Migrations are the allocation database's schema migrations.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Store is the allocation database.
type Store struct {
	pool *pgxpool.Pool
}

// NewStore wraps pool.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// Pool answers the underlying pool (for the outbox relay).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Querier is a pool or a transaction.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// InTx runs fn in one transaction, committed when fn returns nil.
func (s *Store) InTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, fn)
}

// LockOwner serializes every change to one owner's pools and assignments until tx ends, so
// two admins racing for the last licence are counted one after the other.
func LockOwner(ctx context.Context, tx pgx.Tx, owner string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 7))`, "allocation-owner:"+owner); err != nil {
		return fmt.Errorf("lock owner %s: %w", owner, err)
	}
	return nil
}

// Stored is a subscription as the last applied event left it.
type Stored struct {
	Owner     string
	Version   int64
	ChangedAt time.Time
}

// LockSubscriptions answers the stored state of the given subscriptions (those stored),
// locking their rows until tx ends, in one statement for a whole batch of events.
func LockSubscriptions(ctx context.Context, tx pgx.Tx, ids []string) (map[string]Stored, error) {
	rows, err := tx.Query(ctx, `SELECT subscription_id, owner_id, version, changed_at FROM subscriptions
		WHERE subscription_id = ANY($1) ORDER BY subscription_id FOR UPDATE`, ids)
	if err != nil {
		return nil, fmt.Errorf("read subscriptions: %w", err)
	}
	defer rows.Close()
	out := make(map[string]Stored, len(ids))
	for rows.Next() {
		var id string
		var st Stored
		if err := rows.Scan(&id, &st.Owner, &st.Version, &st.ChangedAt); err != nil {
			return nil, fmt.Errorf("scan subscription: %w", err)
		}
		out[id] = st
	}
	return out, rows.Err()
}

// LockOwners is LockOwner for several owners in one statement; owners must be sorted and
// distinct (unnest keeps the array's order), so that no two transactions take them in
// opposite orders.
func LockOwners(ctx context.Context, tx pgx.Tx, owners []string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('allocation-owner:' || o, 7)) FROM unnest($1::text[]) AS o`,
		owners); err != nil {
		return fmt.Errorf("lock owners %v: %w", owners, err)
	}
	return nil
}

// QueuePutSubscription queues on b the statements that replace a subscription's grants with
// the state sub carries: insert it when it was not stored (existed false; an insert racing
// it fails on the primary key rather than overwriting), else update it and clear its old
// grants. The caller decided that sub is newer than what is stored.
func QueuePutSubscription(b *pgx.Batch, sub domain.Subscription, existed bool) {
	status := sub.Status
	if status == "" {
		status = "active"
	}
	if existed {
		b.Queue(`UPDATE subscriptions SET owner_id = $2, version = $3, changed_at = $4, status = $5 WHERE subscription_id = $1`,
			sub.ID, sub.Owner(), sub.Version, sub.ChangedAt.UTC(), status)
		b.Queue(`DELETE FROM grants WHERE subscription_id = $1`, sub.ID)
	} else {
		b.Queue(`INSERT INTO subscriptions (subscription_id, owner_id, version, changed_at, status) VALUES ($1, $2, $3, $4, $5)`,
			sub.ID, sub.Owner(), sub.Version, sub.ChangedAt.UTC(), status)
	}
	grants := sub.Grants()
	if len(grants) == 0 {
		return
	}
	codes, methods := make([]string, len(grants)), make([]string, len(grants))
	quantities, plans := make([]int32, len(grants)), make([]bool, len(grants))
	for i, g := range grants {
		codes[i], methods[i], quantities[i], plans[i] = g.Code, string(g.Method), int32(g.Quantity), g.IsPlan
	}
	b.Queue(`INSERT INTO grants (subscription_id, add_on_code, owner_id, organization_id, account_id,
		licensing_method, quantity, is_plan, term_start, term_end)
		SELECT $1, g.code, $2, $3, $4, g.method, g.quantity, g.is_plan, $5, $6
		FROM unnest($7::text[], $8::text[], $9::int[], $10::bool[]) AS g(code, method, quantity, is_plan)`,
		sub.ID, sub.Owner(), sub.OrganizationID, sub.AccountID, nullTime(sub.TermStart), nullTime(sub.TermEnd),
		codes, methods, quantities, plans)
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// Pools answers an owner's pools at now: every add-on with a live grant or an assignment.
func Pools(ctx context.Context, q Querier, owner string, now time.Time) (map[string]*domain.Pool, error) {
	const sql = `
WITH g AS (
	SELECT add_on_code, min(licensing_method) AS method, sum(quantity)::int AS bought, bool_or(is_plan) AS is_plan, max(term_end) AS term_end
	FROM grants WHERE owner_id = $1 AND (term_end IS NULL OR term_end > $2) GROUP BY add_on_code
), a AS (
	SELECT add_on_code, count(*) FILTER (WHERE state = 'active')::int AS assigned, count(*) FILTER (WHERE state = 'expired')::int AS expired
	FROM assignments WHERE owner_id = $1 GROUP BY add_on_code
)
SELECT coalesce(g.add_on_code, a.add_on_code), coalesce(g.method, ''), coalesce(g.bought, 0), coalesce(a.assigned, 0),
	coalesce(a.expired, 0), coalesce(g.is_plan, false), g.term_end
FROM g FULL JOIN a ON a.add_on_code = g.add_on_code`
	rows, err := q.Query(ctx, sql, owner, now.UTC())
	if err != nil {
		return nil, fmt.Errorf("read pools of %s: %w", owner, err)
	}
	defer rows.Close()
	out := map[string]*domain.Pool{}
	for rows.Next() {
		var p domain.Pool
		var method string
		var termEnd *time.Time
		if err := rows.Scan(&p.Code, &method, &p.Bought, &p.Assigned, &p.Expired, &p.IsPlan, &termEnd); err != nil {
			return nil, fmt.Errorf("scan pool: %w", err)
		}
		p.Method = domain.Method(method)
		if termEnd != nil {
			p.TermEnd = *termEnd
		}
		out[p.Code] = &p
	}
	return out, rows.Err()
}

const expireSQL = `
WITH cap AS (
	SELECT add_on_code, sum(quantity) AS q FROM grants
	WHERE owner_id = $1 AND (term_end IS NULL OR term_end > $2) GROUP BY add_on_code
), ranked AS (
	SELECT a.add_on_code, a.target_type, a.target_id, coalesce(c.q, 0) AS q,
		row_number() OVER (PARTITION BY a.add_on_code ORDER BY a.assigned_at, a.target_type, a.target_id) AS rn
	FROM assignments a LEFT JOIN cap c ON c.add_on_code = a.add_on_code
	WHERE a.owner_id = $1 AND a.state = 'active'
)
UPDATE assignments x SET state = 'expired', expired_at = $2
FROM ranked r
WHERE x.owner_id = $1 AND x.add_on_code = r.add_on_code AND x.target_type = r.target_type
	AND x.target_id = r.target_id AND r.rn > r.q
RETURNING x.add_on_code, x.target_type, x.target_id`

// Expire turns the assignments no live licence covers any more into expired allocations:
// per add-on, those beyond the owner's live quantity, newest first.
func Expire(ctx context.Context, tx pgx.Tx, owner string, now time.Time) ([]domain.Change, error) {
	rows, err := tx.Query(ctx, expireSQL, owner, now.UTC())
	if err != nil {
		return nil, fmt.Errorf("expire assignments of %s: %w", owner, err)
	}
	return scanExpired(rows, owner, now)
}

// QueueExpire queues Expire on b; done gets the expired allocations when the batch is read.
func QueueExpire(b *pgx.Batch, owner string, now time.Time, done func([]domain.Change)) {
	b.Queue(expireSQL, owner, now.UTC()).Query(func(rows pgx.Rows) error {
		out, err := scanExpired(rows, owner, now)
		if err != nil {
			return err
		}
		done(out)
		return nil
	})
}

func scanExpired(rows pgx.Rows, owner string, now time.Time) ([]domain.Change, error) {
	defer rows.Close()
	var out []domain.Change
	for rows.Next() {
		c := domain.Change{Owner: owner, Action: "expired", At: now}
		var tt string
		if err := rows.Scan(&c.Code, &tt, &c.TargetID); err != nil {
			return nil, fmt.Errorf("scan expired: %w", err)
		}
		c.TargetType = domain.TargetType(tt)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("expire assignments of %s: %w", owner, err)
	}
	return out, nil
}

// OwnersToSweep answers owners holding active assignments (their terms may have ended).
func (s *Store) OwnersToSweep(ctx context.Context, now time.Time) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT a.owner_id FROM assignments a WHERE a.state = 'active' AND NOT EXISTS (
		SELECT 1 FROM grants g WHERE g.owner_id = a.owner_id AND g.add_on_code = a.add_on_code AND (g.term_end IS NULL OR g.term_end > $1))`, now.UTC())
	if err != nil {
		return nil, fmt.Errorf("owners to sweep: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Key names one assignment.
type Key struct {
	Code       string
	TargetType domain.TargetType
	TargetID   string
}

// ActiveOf answers which of targets' assignments are active.
func ActiveOf(ctx context.Context, tx pgx.Tx, owner string, targetIDs []string) (map[Key]bool, error) {
	rows, err := tx.Query(ctx, `SELECT add_on_code, target_type, target_id FROM assignments
		WHERE owner_id = $1 AND state = 'active' AND target_id = ANY($2)`, owner, targetIDs)
	if err != nil {
		return nil, fmt.Errorf("read assignments: %w", err)
	}
	defer rows.Close()
	out := map[Key]bool{}
	for rows.Next() {
		var k Key
		var tt string
		if err := rows.Scan(&k.Code, &tt, &k.TargetID); err != nil {
			return nil, err
		}
		k.TargetType = domain.TargetType(tt)
		out[k] = true
	}
	return out, rows.Err()
}

// Assign makes an assignment active (new, or an expired one renewed); false when it was
// active already.
func Assign(ctx context.Context, tx pgx.Tx, owner string, k Key, actor string, now time.Time) (bool, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO assignments (owner_id, add_on_code, target_type, target_id, state, assigned_by, assigned_at)
		VALUES ($1, $2, $3, $4, 'active', $5, $6)
		ON CONFLICT (owner_id, add_on_code, target_type, target_id) DO UPDATE
		SET state = 'active', assigned_by = EXCLUDED.assigned_by, assigned_at = EXCLUDED.assigned_at, expired_at = NULL
		WHERE assignments.state = 'expired'`, owner, k.Code, string(k.TargetType), k.TargetID, actor, now.UTC())
	if err != nil {
		return false, fmt.Errorf("assign %s to %s %s: %w", k.Code, k.TargetType, k.TargetID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Unassign removes an assignment, active or expired; false when there was none.
func Unassign(ctx context.Context, tx pgx.Tx, owner string, k Key) (bool, error) {
	tag, err := tx.Exec(ctx, `DELETE FROM assignments WHERE owner_id = $1 AND add_on_code = $2 AND target_type = $3 AND target_id = $4`,
		owner, k.Code, string(k.TargetType), k.TargetID)
	if err != nil {
		return false, fmt.Errorf("unassign %s from %s %s: %w", k.Code, k.TargetType, k.TargetID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// AddTail records a tail of the owner (idempotent).
func AddTail(ctx context.Context, tx pgx.Tx, owner, tail string) error {
	if _, err := tx.Exec(ctx, `INSERT INTO tails (owner_id, tail_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, owner, tail); err != nil {
		return fmt.Errorf("record tail %s: %w", tail, err)
	}
	return nil
}

// AddTail records a tail outside a transaction (dev seed).
func (s *Store) AddTail(ctx context.Context, owner, tail string) error {
	return s.InTx(ctx, func(tx pgx.Tx) error { return AddTail(ctx, tx, owner, tail) })
}

// Row is one assignment as stored.
type Row struct {
	Code       string
	TargetType domain.TargetType
	TargetID   string
	Active     bool
}

// Assignments answers an owner's assignments, of one target type when t is set, of the
// given targets when ids is not empty.
func (s *Store) Assignments(ctx context.Context, owner string, t domain.TargetType, ids []string) ([]Row, error) {
	rows, err := s.pool.Query(ctx, `SELECT add_on_code, target_type, target_id, state = 'active' FROM assignments
		WHERE owner_id = $1 AND ($2 = '' OR target_type = $2) AND (coalesce(cardinality($3::text[]), 0) = 0 OR target_id = ANY($3))
		ORDER BY target_type, target_id, add_on_code`, owner, string(t), ids)
	if err != nil {
		return nil, fmt.Errorf("read assignments of %s: %w", owner, err)
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var r Row
		var tt string
		if err := rows.Scan(&r.Code, &tt, &r.TargetID, &r.Active); err != nil {
			return nil, err
		}
		r.TargetType = domain.TargetType(tt)
		out = append(out, r)
	}
	return out, rows.Err()
}

// AssignmentsOf answers the assignments of several owners (for other services).
func (s *Store) AssignmentsOf(ctx context.Context, owners []string, t domain.TargetType) (map[string][]Row, error) {
	rows, err := s.pool.Query(ctx, `SELECT owner_id, add_on_code, target_type, target_id, state = 'active' FROM assignments
		WHERE owner_id = ANY($1) AND ($2 = '' OR target_type = $2) ORDER BY owner_id, target_type, target_id, add_on_code`, owners, string(t))
	if err != nil {
		return nil, fmt.Errorf("read assignments: %w", err)
	}
	defer rows.Close()
	out := map[string][]Row{}
	for rows.Next() {
		var owner, tt string
		var r Row
		if err := rows.Scan(&owner, &r.Code, &tt, &r.TargetID, &r.Active); err != nil {
			return nil, err
		}
		r.TargetType = domain.TargetType(tt)
		out[owner] = append(out[owner], r)
	}
	return out, rows.Err()
}

// Tails answers an owner's tails, sorted.
func (s *Store) Tails(ctx context.Context, owner string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT tail_id FROM tails WHERE owner_id = $1 ORDER BY tail_id`, owner)
	if err != nil {
		return nil, fmt.Errorf("read tails of %s: %w", owner, err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// ReadPools answers an owner's pools outside a transaction.
func (s *Store) ReadPools(ctx context.Context, owner string, now time.Time) (map[string]*domain.Pool, error) {
	return Pools(ctx, s.pool, owner, now)
}
