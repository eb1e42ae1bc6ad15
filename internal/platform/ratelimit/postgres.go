package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Schema is the table PostgreSQL needs, created by a migration of the owning service's
// database (a test there checks the migration holds it verbatim). tat is the bucket's
// "theoretical arrival time" in Unix microseconds (GCRA): the bucket is full again at tat.
const Schema = `
CREATE TABLE rate_limits (
    key text PRIMARY KEY,
    tat bigint NOT NULL
);
CREATE INDEX rate_limits_tat ON rate_limits (tat);
`

// Querier is what PostgreSQL needs of a pool (*pgxpool.Pool has it).
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// PostgreSQL is the one shared limiter of every service: token buckets in the
// rate_limits table (Schema), one row per key, kept as GCRA (one timestamp). Each
// operation is one statement whose row locks order concurrent callers from any replica,
// so a burst spread over replicas passes no more than the bucket holds. Rows of buckets
// full again are swept at most once a minute per process.
//
// With emission interval T = rule.Every and burst B, a bucket at tat holds
// B - ceil((max(tat, now) - now) / T) tokens; taking n moves tat on by n*T.
type PostgreSQL struct {
	db        Querier
	lastSweep atomic.Int64
}

// NewPostgreSQL keeps buckets in db's rate_limits table.
func NewPostgreSQL(db Querier) *PostgreSQL { return &PostgreSQL{db: db} }

// gcra is a rule in the microseconds the table keeps.
type gcra struct{ t, burst int64 }

func gcraOf(r Rule) gcra { return gcra{t: r.Every.Microseconds(), burst: int64(max(r.Burst, 1))} }

// room is the most tat may be ahead of now for n more tokens to fit.
func (g gcra) room(n int) int64 { return g.t * (g.burst - int64(n)) }

// wait is how long after at (Unix µs) one more token fits in a bucket at tat.
func (g gcra) wait(tat, at int64) time.Duration {
	return max(time.Duration(tat-g.room(1)-at)*time.Microsecond, time.Millisecond)
}

// Take takes n tokens of rule's bucket for key at now, all or none: when they do not fit,
// nothing is taken and the answer is how long until one more token is free. For a door
// that refuses without counting the refused calls (they cost the caller nothing).
func (p *PostgreSQL) Take(ctx context.Context, key string, rule Rule, n int, now time.Time) (bool, time.Duration, error) {
	g, at := gcraOf(rule), now.UnixMicro()
	if n > int(g.burst) {
		return false, rule.Every * time.Duration(n), nil // never fits
	}
	p.sweep(ctx, at)
	var tat int64
	err := p.db.QueryRow(ctx, `INSERT INTO rate_limits AS r (key, tat) VALUES ($1, $2::bigint + $3::bigint)
		ON CONFLICT (key) DO UPDATE SET tat = GREATEST(r.tat, $2::bigint) + $3::bigint
		WHERE GREATEST(r.tat, $2::bigint) - $2::bigint <= $4::bigint
		RETURNING tat`, key, at, g.t*int64(n), g.room(n)).Scan(&tat)
	if err == nil {
		return true, 0, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return false, 0, fmt.Errorf("take rate limit tokens: %w", err)
	}
	if err := p.db.QueryRow(ctx, `SELECT tat FROM rate_limits WHERE key = $1`, key).Scan(&tat); err != nil {
		return false, rule.Every, nil // refused by the upsert; the row went since: wait a period
	}
	return false, g.wait(tat, at), nil
}

// Count counts n tokens of rule's bucket for each key at now, in one statement, whether
// they fit or not, and answers whether they fitted in every bucket and, when not, how long
// until the fullest has room for one more. For a door where trying while refused must
// count too (a guesser that keeps trying stays refused). The debt is capped at two
// bursts: a caller that stops waits at most a burst's worth of time (B*T, the window of
// "B per window") and one interval, however long it kept trying.
func (p *PostgreSQL) Count(ctx context.Context, keys []string, rule Rule, n int, now time.Time) (bool, time.Duration, error) {
	if len(keys) == 0 || n <= 0 {
		return true, 0, nil
	}
	keys = slices.Compact(slices.Sorted(slices.Values(keys))) // one row each, locked in one order
	g, at := gcraOf(rule), now.UnixMicro()
	p.sweep(ctx, at)
	rows, err := p.db.Query(ctx, `INSERT INTO rate_limits AS r (key, tat)
		SELECT k, $2::bigint + LEAST($3::bigint, $4::bigint) FROM unnest($1::text[]) AS k
		ON CONFLICT (key) DO UPDATE SET tat = LEAST(GREATEST(r.tat, $2::bigint) + $3::bigint, $2::bigint + $4::bigint)
		RETURNING tat`, keys, at, g.t*int64(n), 2*g.burst*g.t)
	if err != nil {
		return false, 0, fmt.Errorf("count rate limit tokens: %w", err)
	}
	tats, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return false, 0, fmt.Errorf("count rate limit tokens: %w", err)
	}
	// The n counted fitted when tat is at most a burst ahead; the cap is two bursts, so a
	// capped bucket never looks as if they had.
	var wait time.Duration
	for _, tat := range tats {
		if tat-at > g.room(0) {
			wait = max(wait, g.wait(tat, at))
		}
	}
	return wait == 0, wait, nil
}

// Return gives n tokens back to rule's bucket for key (a call counted that turned out not
// to need them: a refused attempt, or one that succeeded).
func (p *PostgreSQL) Return(ctx context.Context, key string, rule Rule, n int, now time.Time) error {
	if _, err := p.db.Exec(ctx, `UPDATE rate_limits SET tat = GREATEST(tat - $2::bigint, $3::bigint) WHERE key = $1`,
		key, gcraOf(rule).t*int64(n), now.UnixMicro()); err != nil {
		return fmt.Errorf("return rate limit tokens: %w", err)
	}
	return nil
}

// Reset fills the buckets of keys again.
func (p *PostgreSQL) Reset(ctx context.Context, keys ...string) error {
	if _, err := p.db.Exec(ctx, `DELETE FROM rate_limits WHERE key = ANY($1)`, keys); err != nil {
		return fmt.Errorf("reset rate limits: %w", err)
	}
	return nil
}

func (p *PostgreSQL) sweep(ctx context.Context, at int64) {
	last := p.lastSweep.Load()
	if at-last < time.Minute.Microseconds() || !p.lastSweep.CompareAndSwap(last, at) {
		return
	}
	_, _ = p.db.Exec(ctx, `DELETE FROM rate_limits WHERE tat < $1`, at) // best effort
}

// PerWindow is the rule "n calls per window": a burst of n, refilled one call every
// window/n. Over any window it lets through at most 2n-1 calls (a full bucket, then its
// refill) and n per window sustained; a refused caller waits window/n for the next.
func PerWindow(n int, window time.Duration) Rule {
	n = max(n, 1)
	return Rule{Every: window / time.Duration(n), Burst: n}
}
