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

// Shared is one rule held across replicas: each Allow first passes this process's bucket
// (x/time/rate, a cheap filter that keeps a flood on one replica off the database), then
// takes a token of the bucket shared in store under "<name>|<key>". When the store fails
// the call is let through on the local bucket alone (logged): an outage of the limit's
// table must not close the doors it guards. For a door that is not a whole gRPC method (a
// look-up only some requests of a method make); UnaryShared is one per method.
type Shared struct {
	name  string
	rule  Rule
	local *Limiter
	store Store
	now   func() time.Time
	log   *slog.Logger
}

// NewShared holds rule across replicas in store under name.
func NewShared(name string, rule Rule, now func() time.Time, store Store, log *slog.Logger) *Shared {
	if now == nil {
		now = time.Now
	}
	return &Shared{name: name, rule: rule, local: New(rule, 100_000, now), store: store, now: now, log: log}
}

// Allow takes a token for key, or answers Refusal (429 with the wait).
func (s *Shared) Allow(ctx context.Context, key string) error {
	if ok, wait := s.local.Allow(key); !ok {
		return Refusal(wait)
	}
	ok, wait, err := s.store.Take(ctx, s.name+"|"+key, s.rule, s.now())
	switch {
	case err != nil:
		if s.log != nil {
			s.log.WarnContext(ctx, "ratelimit: shared store failed; local limit only", "limit", s.name, "err", err.Error())
		}
	case !ok:
		return Refusal(wait)
	}
	return nil
}

// UnaryShared is Unary held across replicas: every method named in rules is a Shared
// limit named by its full method name.
func UnaryShared(rules map[string]Rule, key func(context.Context) string, now func() time.Time, store Store, log *slog.Logger) grpc.UnaryServerInterceptor {
	limits := make(map[string]*Shared, len(rules))
	for m, r := range rules {
		limits[m] = NewShared(m, r, now, store, log)
	}
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		l, ok := limits[info.FullMethod]
		if !ok {
			return handler(ctx, req)
		}
		if err := l.Allow(ctx, key(ctx)); err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
}
