// Package adapters holds the allocation service's PostgreSQL store and its client of
// identity's directory.
package adapters

import (
	"context"
	"embed"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/allocation/internal/domain"
)

// Migrations are the allocation database's schema migrations.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Store is the allocation database. It implements the use cases' Store (internal/app): its
// changes run the caller's closure in a transaction of their own.
type Store struct {
	pool *pgxpool.Pool
	prop propagation.TextMapPropagator
}

// NewStore wraps pool, already migrated; prop carries trace context into outbox rows.
func NewStore(pool *pgxpool.Pool, prop propagation.TextMapPropagator) *Store {
	return &Store{pool: pool, prop: prop}
}

// Querier is a pool or a transaction.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// lockOwner serializes every change to one owner's pools and assignments until tx ends, so
// two admins racing for the last licence are counted one after the other.
func lockOwner(ctx context.Context, tx pgx.Tx, owner string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 7))`, "allocation-owner:"+owner); err != nil {
		return fmt.Errorf("lock owner %s: %w", owner, err)
	}
	return nil
}

// enqueue writes events to the outbox in tx (nothing without events).
func (s *Store) enqueue(ctx context.Context, tx pgx.Tx, events []kafka.Event) error {
	if len(events) == 0 {
		return nil
	}
	return kafka.Enqueue(ctx, tx, s.prop, events...)
}

// ---------------------------------------------------------------------------- subscriptions

// FileSubscriptions files subscription states in a transaction of its own (app.SubscriptionFiler).
func (s *Store) FileSubscriptions(ctx context.Context, subs []domain.Subscription, decide func(map[string]domain.Stored) []domain.Filing,
	now time.Time, announce func(context.Context, []domain.Change) ([]kafka.Event, error)) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return s.fileSubscriptions(ctx, tx, subs, decide, now, announce) })
}

// Within answers the filer of subscription states in tx, a transaction its caller owns (the
// batch inbox consumer's, which records the events' ids in it).
func (s *Store) Within(tx pgx.Tx) *TxFiler { return &TxFiler{store: s, tx: tx} }

// TxFiler files subscription states in a transaction it was given (app.SubscriptionFiler).
type TxFiler struct {
	store *Store
	tx    pgx.Tx
}

// FileSubscriptions files subscription states in the filer's transaction.
func (f *TxFiler) FileSubscriptions(ctx context.Context, subs []domain.Subscription, decide func(map[string]domain.Stored) []domain.Filing,
	now time.Time, announce func(context.Context, []domain.Change) ([]kafka.Event, error)) error {
	return f.store.fileSubscriptions(ctx, f.tx, subs, decide, now, announce)
}

// fileSubscriptions costs a fixed handful of statements whatever the number of states: the
// stored states read and locked in one, every owner locked in one, then every filing's
// writes and expiries pipelined in one round trip (and the outbox rows of what expired).
func (s *Store) fileSubscriptions(ctx context.Context, tx pgx.Tx, subs []domain.Subscription, decide func(map[string]domain.Stored) []domain.Filing,
	now time.Time, announce func(context.Context, []domain.Change) ([]kafka.Event, error)) error {
	ids := make([]string, 0, len(subs))
	for _, sub := range subs {
		ids = append(ids, sub.ID)
	}
	stored, err := lockSubscriptions(ctx, tx, ids)
	if err != nil {
		return err
	}
	// Every owner a state of the batch files grants under or takes them from, locked up
	// front in one order, so two transactions never wait on each other's owners. (A
	// subscription's previous owner within the batch is its stored one or an earlier state's.)
	owners := make([]string, 0, len(subs)+len(stored))
	for _, sub := range subs {
		owners = append(owners, sub.Owner())
	}
	for _, st := range stored {
		owners = append(owners, st.Owner)
	}
	slices.Sort(owners)
	if err := lockOwners(ctx, tx, slices.Compact(owners)); err != nil {
		return err
	}

	filings := decide(stored)
	if len(filings) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	var expired []domain.Change
	for _, f := range filings {
		queuePutSubscription(b, f.Sub, f.Existed)
		for _, o := range f.Expire {
			queueExpire(b, o, now, func(changes []domain.Change) { expired = append(expired, changes...) })
		}
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("apply subscription changes: %w", err)
	}
	if len(expired) == 0 {
		return nil
	}
	events, err := announce(ctx, expired)
	if err != nil {
		return err
	}
	return s.enqueue(ctx, tx, events)
}

// lockSubscriptions answers the stored state of the given subscriptions (those stored),
// locking their rows until tx ends, in one statement for a whole batch of events.
func lockSubscriptions(ctx context.Context, tx pgx.Tx, ids []string) (map[string]domain.Stored, error) {
	rows, err := tx.Query(ctx, `SELECT subscription_id, owner_id, version, changed_at FROM subscriptions
		WHERE subscription_id = ANY($1) ORDER BY subscription_id FOR UPDATE`, ids)
	if err != nil {
		return nil, fmt.Errorf("read subscriptions: %w", err)
	}
	defer rows.Close()
	out := make(map[string]domain.Stored, len(ids))
	for rows.Next() {
		var id string
		var st domain.Stored
		if err := rows.Scan(&id, &st.Owner, &st.Version, &st.ChangedAt); err != nil {
			return nil, fmt.Errorf("scan subscription: %w", err)
		}
		out[id] = st
	}
	return out, rows.Err()
}

// lockOwners is lockOwner for several owners in one statement; owners must be sorted and
// distinct (unnest keeps the array's order), so that no two transactions take them in
// opposite orders.
func lockOwners(ctx context.Context, tx pgx.Tx, owners []string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('allocation-owner:' || o, 7)) FROM unnest($1::text[]) AS o`,
		owners); err != nil {
		return fmt.Errorf("lock owners %v: %w", owners, err)
	}
	return nil
}

// queuePutSubscription queues on b the statements that replace a subscription's grants with
// the state sub carries: insert it when it was not stored (existed false; an insert racing
// it fails on the primary key rather than overwriting), else update it and clear its old
// grants. The caller decided that sub is newer than what is stored.
func queuePutSubscription(b *pgx.Batch, sub domain.Subscription, existed bool) {
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

// pooledGrants is the SQL of the CTE "pooled": the owner's ($1) live grants at $2 that form
// each add-on's pool. A pool has one term and one licensing method, those of the owner's
// first-filed subscription still granting the add-on: a grant of another subscription joins
// it only with the same term end and method. The others stay filed apart (they form the pool
// once the earlier ones lapse) and are never merged into it, so an order of another term or
// method cannot rewrite the pool's count, term or method (nor lift the region lock of user
// allocation that checkout reads from it).
var pooledGrants = pooledGrantsOf("$1", "$2")

// pooledGrantsOf is pooledGrants for the owner and time given in SQL (owner NULL: every owner).
func pooledGrantsOf(owner, now string) string {
	return `live AS (
	SELECT g.owner_id, g.add_on_code, g.licensing_method, g.quantity, g.is_plan, g.term_end, s.filed_seq, g.subscription_id
	FROM grants g JOIN subscriptions s ON s.subscription_id = g.subscription_id
	WHERE (` + owner + `::text IS NULL OR g.owner_id = ` + owner + `) AND (g.term_end IS NULL OR g.term_end > ` + now + `)
), first AS (
	SELECT DISTINCT ON (owner_id, add_on_code) owner_id, add_on_code, licensing_method, term_end
	FROM live ORDER BY owner_id, add_on_code, filed_seq, subscription_id
), pooled AS (
	SELECT l.owner_id, l.add_on_code, l.licensing_method, l.quantity, l.is_plan, l.term_end
	FROM live l JOIN first f ON f.owner_id = l.owner_id AND f.add_on_code = l.add_on_code
		AND f.licensing_method = l.licensing_method AND f.term_end IS NOT DISTINCT FROM l.term_end
)`
}

// pools answers an owner's pools at now: every add-on with a live grant or an assignment.
func pools(ctx context.Context, q Querier, owner string, now time.Time) (map[string]*domain.Pool, error) {
	sql := `
WITH ` + pooledGrants + `, g AS (
	SELECT add_on_code, min(licensing_method) AS method, sum(quantity)::int AS bought, bool_or(is_plan) AS is_plan, max(term_end) AS term_end
	FROM pooled WHERE owner_id = $1 GROUP BY add_on_code
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

var expireSQL = `
WITH ` + pooledGrants + `, cap AS (
	SELECT add_on_code, sum(quantity) AS q FROM pooled WHERE owner_id = $1 GROUP BY add_on_code
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

// Expire turns the owner's assignments no live licence covers any more into expired
// allocations, per add-on those beyond the owner's live quantity, newest first, in one
// transaction holding the owner's lock, with the events announce answers for them.
func (s *Store) Expire(ctx context.Context, owner string, now time.Time, announce func(context.Context, []domain.Change) ([]kafka.Event, error)) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockOwner(ctx, tx, owner); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, expireSQL, owner, now.UTC())
		if err != nil {
			return fmt.Errorf("expire assignments of %s: %w", owner, err)
		}
		expired, err := scanExpired(rows, owner, now)
		if err != nil || len(expired) == 0 {
			return err
		}
		events, err := announce(ctx, expired)
		if err != nil {
			return err
		}
		return s.enqueue(ctx, tx, events)
	})
}

// queueExpire queues the expiry of Expire on b; done gets the expired allocations when the
// batch is read.
func queueExpire(b *pgx.Batch, owner string, now time.Time, done func([]domain.Change)) {
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

// OwnersToSweep answers owners holding more active assignments of an add-on than its pool
// covers at now (a term ended, or an earlier pool's end left a later one of fewer licences).
func (s *Store) OwnersToSweep(ctx context.Context, now time.Time) ([]string, error) {
	rows, err := s.pool.Query(ctx, `WITH `+pooledGrantsOf("NULL", "$1")+`, cap AS (
		SELECT owner_id, add_on_code, sum(quantity) AS q FROM pooled GROUP BY owner_id, add_on_code
	), held AS (
		SELECT owner_id, add_on_code, count(*) AS n FROM assignments WHERE state = 'active' GROUP BY owner_id, add_on_code
	)
	SELECT DISTINCT h.owner_id FROM held h LEFT JOIN cap c ON c.owner_id = h.owner_id AND c.add_on_code = h.add_on_code
	WHERE h.n > coalesce(c.q, 0)`, now.UTC())
	if err != nil {
		return nil, fmt.Errorf("owners to sweep: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// ---------------------------------------------------------------------------- licences

// UpdateLicences loads, in one transaction holding the owner's lock, the owner's pools at now
// and the assignments (active or expired) of the targets named, calls update, then saves the
// changes update recorded, pipelined in one round trip (an unassignment deleted; an
// assignment inserted or its expired row renewed, a tail recorded first), and the events it
// answers. An error from update rolls back.
func (s *Store) UpdateLicences(ctx context.Context, owner string, targetIDs []string, now time.Time,
	update func(*domain.Licences) ([]kafka.Event, error)) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockOwner(ctx, tx, owner); err != nil {
			return err
		}
		ps, err := pools(ctx, tx, owner, now)
		if err != nil {
			return err
		}
		held, err := heldBy(ctx, tx, owner, targetIDs)
		if err != nil {
			return err
		}
		l := &domain.Licences{Owner: owner, Pools: ps, Held: held}
		events, err := update(l)
		if err != nil {
			return err
		}
		b := &pgx.Batch{}
		for _, c := range l.Changes {
			switch c.Action {
			case "unassigned":
				b.Queue(`DELETE FROM assignments WHERE owner_id = $1 AND add_on_code = $2 AND target_type = $3 AND target_id = $4`,
					owner, c.Code, string(c.TargetType), c.TargetID)
			case "assigned":
				if c.TargetType == domain.Tail {
					b.Queue(addTailSQL, owner, c.TargetID)
				}
				b.Queue(`INSERT INTO assignments (owner_id, add_on_code, target_type, target_id, state, assigned_by, assigned_at)
		VALUES ($1, $2, $3, $4, 'active', $5, $6)
		ON CONFLICT (owner_id, add_on_code, target_type, target_id) DO UPDATE
		SET state = 'active', assigned_by = EXCLUDED.assigned_by, assigned_at = EXCLUDED.assigned_at, expired_at = NULL
		WHERE assignments.state = 'expired'`, owner, c.Code, string(c.TargetType), c.TargetID, c.Actor, c.At.UTC())
			default:
				return fmt.Errorf("save licences of %s: unknown change %s", owner, c)
			}
		}
		if b.Len() > 0 {
			if err := tx.SendBatch(ctx, b).Close(); err != nil {
				return fmt.Errorf("save licences of %s: %w", owner, err)
			}
		}
		return s.enqueue(ctx, tx, events)
	})
}

// heldBy answers the assignments of the given targets: true when active, false when expired.
func heldBy(ctx context.Context, tx pgx.Tx, owner string, targetIDs []string) (map[domain.Key]bool, error) {
	rows, err := tx.Query(ctx, `SELECT add_on_code, target_type, target_id, state = 'active' FROM assignments
		WHERE owner_id = $1 AND target_id = ANY($2)`, owner, targetIDs)
	if err != nil {
		return nil, fmt.Errorf("read assignments: %w", err)
	}
	defer rows.Close()
	out := map[domain.Key]bool{}
	for rows.Next() {
		var k domain.Key
		var tt string
		var active bool
		if err := rows.Scan(&k.Code, &tt, &k.TargetID, &active); err != nil {
			return nil, err
		}
		k.TargetType = domain.TargetType(tt)
		out[k] = active
	}
	return out, rows.Err()
}

const addTailSQL = `INSERT INTO tails (owner_id, tail_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`

// AddTail records a tail of the owner (idempotent; the dev seed's aircraft).
func (s *Store) AddTail(ctx context.Context, owner, tail string) error {
	if _, err := s.pool.Exec(ctx, addTailSQL, owner, tail); err != nil {
		return fmt.Errorf("record tail %s: %w", tail, err)
	}
	return nil
}

// ---------------------------------------------------------------------------- reads

// Assignments answers an owner's assignments, of one target type when t is set, of the
// given targets when ids is not empty.
func (s *Store) Assignments(ctx context.Context, owner string, t domain.TargetType, ids []string) ([]domain.Assignment, error) {
	rows, err := s.pool.Query(ctx, `SELECT add_on_code, target_type, target_id, state = 'active' FROM assignments
		WHERE owner_id = $1 AND ($2 = '' OR target_type = $2) AND (coalesce(cardinality($3::text[]), 0) = 0 OR target_id = ANY($3))
		ORDER BY target_type, target_id, add_on_code`, owner, string(t), ids)
	if err != nil {
		return nil, fmt.Errorf("read assignments of %s: %w", owner, err)
	}
	defer rows.Close()
	var out []domain.Assignment
	for rows.Next() {
		var r domain.Assignment
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
func (s *Store) AssignmentsOf(ctx context.Context, owners []string, t domain.TargetType) (map[string][]domain.Assignment, error) {
	rows, err := s.pool.Query(ctx, `SELECT owner_id, add_on_code, target_type, target_id, state = 'active' FROM assignments
		WHERE owner_id = ANY($1) AND ($2 = '' OR target_type = $2) ORDER BY owner_id, target_type, target_id, add_on_code`, owners, string(t))
	if err != nil {
		return nil, fmt.Errorf("read assignments: %w", err)
	}
	defer rows.Close()
	out := map[string][]domain.Assignment{}
	for rows.Next() {
		var owner, tt string
		var r domain.Assignment
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
	return pools(ctx, s.pool, owner, now)
}
