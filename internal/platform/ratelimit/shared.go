package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"google.golang.org/grpc"
)

// Store holds buckets every replica of a service shares, so a limit holds for the
// service as a whole and not once per replica.
type Store interface {
	// Take takes a token of rule's bucket for key at now, atomically, or answers how long
	// until one is free.
	Take(ctx context.Context, key string, rule Rule, now time.Time) (ok bool, wait time.Duration, err error)
}

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
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// PostgreSQL is a Store in the rate_limits table (Schema): one row per key, a token bucket
// kept as GCRA (one timestamp), taken with one upsert whose row lock orders concurrent
// takers from any replica, so a burst spread over replicas passes no more than Burst.
// Rows of buckets full again are swept at most once a minute per process.
type PostgreSQL struct {
	db        Querier
	lastSweep atomic.Int64
}

// NewPostgreSQL keeps buckets in db's rate_limits table.
func NewPostgreSQL(db Querier) *PostgreSQL { return &PostgreSQL{db: db} }

// Take implements Store. With emission interval T = rule.Every and tolerance
// tau = T*(Burst-1), a call at now is allowed when max(tat, now) - now <= tau, and then
// moves tat to max(tat, now) + T; it is refused with wait = tat - tau - now otherwise.
func (p *PostgreSQL) Take(ctx context.Context, key string, rule Rule, now time.Time) (bool, time.Duration, error) {
	t := rule.Every.Microseconds()
	tau := t * int64(max(rule.Burst, 1)-1)
	at := now.UnixMicro()
	p.sweep(ctx, at)
	var tat int64
	err := p.db.QueryRow(ctx, `INSERT INTO rate_limits AS r (key, tat) VALUES ($1, $2::bigint + $3::bigint)
		ON CONFLICT (key) DO UPDATE SET tat = GREATEST(r.tat, $2::bigint) + $3::bigint
		WHERE GREATEST(r.tat, $2::bigint) - $2::bigint <= $4::bigint
		RETURNING tat`, key, at, t, tau).Scan(&tat)
	if err == nil {
		return true, 0, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return false, 0, fmt.Errorf("take rate limit token: %w", err)
	}
	if err := p.db.QueryRow(ctx, `SELECT tat FROM rate_limits WHERE key = $1`, key).Scan(&tat); err != nil {
		return false, rule.Every, nil // refused by the upsert; the row went since: wait a period
	}
	wait := time.Duration(tat-tau-at) * time.Microsecond
	return false, max(wait, time.Millisecond), nil
}

func (p *PostgreSQL) sweep(ctx context.Context, at int64) {
	last := p.lastSweep.Load()
	if at-last < time.Minute.Microseconds() || !p.lastSweep.CompareAndSwap(last, at) {
		return
	}
	_, _ = p.db.Exec(ctx, `DELETE FROM rate_limits WHERE tat < $1`, at) // best effort
}

// UnaryShared is Unary held across replicas: each call first passes this process's bucket
// (x/time/rate, a cheap filter that keeps a flood on one replica off the database), then
// takes a token of the bucket shared in store under "<method>|<key>". When the store
// fails the call is let through on the local bucket alone (logged): an outage of the
// limit's table must not close the doors it guards.
func UnaryShared(rules map[string]Rule, key func(context.Context) string, now func() time.Time, store Store, log *slog.Logger) grpc.UnaryServerInterceptor {
	local := make(map[string]*Limiter, len(rules))
	for m, r := range rules {
		local[m] = New(r, 100_000, now)
	}
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		l, ok := local[info.FullMethod]
		if !ok {
			return handler(ctx, req)
		}
		k := key(ctx)
		if ok, wait := l.Allow(k); !ok {
			return nil, Refusal(wait)
		}
		ok, wait, err := store.Take(ctx, info.FullMethod+"|"+k, rules[info.FullMethod], now())
		switch {
		case err != nil:
			if log != nil {
				log.WarnContext(ctx, "ratelimit: shared store failed; local limit only", "method", info.FullMethod, "err", err.Error())
			}
		case !ok:
			return nil, Refusal(wait)
		}
		return handler(ctx, req)
	}
}
