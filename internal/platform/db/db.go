// Package db connects a service to its own PostgreSQL database and applies the service's
// embedded migrations. Connect keeps retrying with backoff while the server is unreachable,
// so a service starts, reports not-ready and recovers instead of crash-looping.
package db

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"path"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Open parses url and builds a pool of at most maxConns connections (DefaultMaxConns when
// maxConns is 0 or less); it does not wait for the server. Every pool has a maximum and an
// idle timeout (the connection budget, budget.go): a connection unused for IdleTimeout
// (or IdleAfter's) is closed at the next health check, so a store at rest holds only what
// its background work uses, not what its busiest minute opened (on pgx's default of 30
// minutes, 65 connections stayed open after a load run).
func Open(ctx context.Context, dbURL string, maxConns int, opts ...PoolOption) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	cfg.MaxConns = int32(maxConns)
	cfg.MinConns, cfg.MinIdleConns = 0, 0
	o := poolOptions{idle: IdleTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	cfg.MaxConnIdleTime = o.idle
	// Checked a few times per idle timeout, so an idle connection lives at most about 1.25
	// of it; the check compares times and touches no connection.
	cfg.HealthCheckPeriod = min(HealthCheckPeriod, max(o.idle/4, 50*time.Millisecond))
	// Counted per pool, read by PoolCollector: statements per request are the first thing a
	// profile of a write path asks for, and pg_stat_statements is not always loaded.
	cfg.ConnConfig.Tracer = newStatementCounter()
	cfg.ShouldPing = shouldPing
	return pgxpool.NewWithConfig(ctx, cfg)
}

// PoolOption changes a pool Open builds.
type PoolOption func(*poolOptions)

type poolOptions struct{ idle time.Duration }

// IdleAfter closes the pool's connections once idle for d (0 or less: IdleTimeout), a
// service's DATABASE_IDLE_TIMEOUT.
func IdleAfter(d time.Duration) PoolOption {
	return func(o *poolOptions) {
		if d > 0 {
			o.idle = d
		}
	}
}

// Backoff is the retry schedule of WaitReady: doubling from Min up to Max.
type Backoff struct{ Min, Max time.Duration }

// DefaultBackoff retries quickly at first and settles at one attempt every 10 s.
var DefaultBackoff = Backoff{Min: 250 * time.Millisecond, Max: 10 * time.Second}

// WaitReady pings until the database answers or ctx ends; onWait is told why each failed
// attempt failed (the caller logs it and keeps readiness false).
func WaitReady(ctx context.Context, pool *pgxpool.Pool, b Backoff, onWait func(err error, next time.Duration)) error {
	// No jitter: one replica waits for its own database; nothing to spread.
	sched := &backoff.ExponentialBackOff{InitialInterval: b.Min, Multiplier: 2, MaxInterval: b.Max}
	_, err := backoff.Retry(ctx, func() (struct{}, error) {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return struct{}{}, pool.Ping(pctx)
	}, backoff.WithBackOff(sched), backoff.WithMaxElapsedTime(0), backoff.WithNotify(onWait))
	return err
}

// EnsureDatabase creates the database named in dbURL if it does not exist, connecting to the
// server's "postgres" database. For dev and tests; production databases are provisioned.
func EnsureDatabase(ctx context.Context, dbURL string) error {
	u, err := url.Parse(dbURL)
	if err != nil {
		return fmt.Errorf("parse database url: %w", err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if name == "" {
		return errors.New("database url names no database")
	}
	admin := *u
	admin.Path = "/postgres"
	conn, err := pgx.Connect(ctx, admin.String())
	if err != nil {
		return fmt.Errorf("connect to create database %s: %w", name, err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// MigrationLockID is the advisory lock Migrate holds while it applies migrations (one id
// for all services is fine: each has its own database). Whoever holds it holds migrations
// back: another replica, or a test that calls a service before its schema is there.
const MigrationLockID = 7461626761 // arbitrary, stable

// Migrate applies the *.sql files of dir in fsys in name order, each once, each in its own
// transaction, under an advisory lock so replicas starting together do not race. A file that
// was applied is never edited: add a new one.
func Migrate(ctx context.Context, pool *pgxpool.Pool, fsys fs.FS, dir string, log *slog.Logger) error {
	names, err := migrationNames(fsys, dir)
	if err != nil {
		return err
	}

	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire for migrations: %w", err)
	}
	defer conn.Release()
	lockID := MigrationLockID
	if err := lockMigrations(ctx, conn.Conn(), lockID); err != nil {
		return err
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockID) }()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	for _, name := range names {
		var done bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE name = $1)", name).Scan(&done); err != nil {
			return fmt.Errorf("check migration %s: %w", name, err)
		}
		if done {
			continue
		}
		sql, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return fmt.Errorf("read migration %s: %w", name, err)
		}
		if isConcurrent(string(sql)) {
			// PostgreSQL builds an index CONCURRENTLY only outside a transaction. A build cut
			// short leaves an invalid index, so such a file says IF NOT EXISTS... and a retry
			// after a failure should drop the invalid index first (docs/architecture.md).
			err = applyOutsideTx(ctx, conn.Conn(), name, string(sql))
		} else {
			err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, string(sql)); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (name) VALUES ($1)", name)
				return err
			})
		}
		if err != nil {
			return fmt.Errorf("apply migration %s: %w", name, err)
		}
		log.InfoContext(ctx, "migration applied", "name", name)
	}
	return nil
}

// migrationLockPoll is how often a replica asks again for the migration lock.
const migrationLockPoll = 100 * time.Millisecond

// lockMigrations takes the migration lock, asking with pg_try_advisory_lock until it gets
// it. Not pg_advisory_lock: a statement waiting for it holds a snapshot all the while, and
// a CREATE INDEX CONCURRENTLY of the replica holding the lock waits for every older
// snapshot of its database, so the two replicas of a service starting together deadlocked
// (PostgreSQL cancelled one: "deadlock detected"); a build cut short that way left an
// invalid index that IF NOT EXISTS then took for built. Each try is a transaction of its own
// that ends at once.
func lockMigrations(ctx context.Context, conn *pgx.Conn, lockID int) error {
	for {
		var got bool
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", lockID).Scan(&got); err != nil {
			return fmt.Errorf("lock migrations: %w", err)
		}
		if got {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("lock migrations: %w", ctx.Err())
		case <-time.After(migrationLockPoll):
		}
	}
}

func applyOutsideTx(ctx context.Context, conn *pgx.Conn, name, sql string) error {
	if _, err := conn.Exec(ctx, sql); err != nil {
		return err
	}
	_, err := conn.Exec(ctx, "INSERT INTO schema_migrations (name) VALUES ($1)", name)
	return err
}

// Probe is the readiness check of pool: whether the database can be reached, never how
// busy the process is. With every connection checked out by requests under way, a ping
// would queue behind them and time out under load (the edge then took a busy replica for a
// dead one): those requests are talking to the database, so it is reachable. So is it when
// the pool's statements have had answers since the last probe (a pool made by Open counts
// them): the traffic proved it, and the probe costs no round trip. Otherwise one ping on an
// idle or new connection answers; a connection that broke while idle (a database restart)
// is dropped and a fresh one pinged, rather than the probe failing on it.
func Probe(pool *pgxpool.Pool) func(context.Context) error {
	sc, _ := pool.Config().ConnConfig.Tracer.(*statementCounter)
	// The pool's answered statements and lost-database failures at the last probe: a
	// failure since then (LostDatabase) means a ping, whatever succeeded before it.
	var answered, lost atomic.Int64
	return func(ctx context.Context) error {
		if st := pool.Stat(); st.MaxConns() > 0 && st.AcquiredConns() >= st.MaxConns() {
			return nil
		}
		if sc != nil {
			n, l := sc.succeeded.Load(), sc.failures.Load()
			if answered.Swap(n) != n && lost.Swap(l) == l {
				return nil
			}
			lost.Store(l)
		}
		var err error
		for range 2 {
			if err = ping(ctx, pool); err == nil || ctx.Err() != nil {
				break
			}
		}
		return err
	}
}

// ping pings the database on one of pool's connections, once: the pool's own ping of a
// connection idle for more than a second (pgxpool's ShouldPing) is skipped, it would only
// double the round trip.
func ping(ctx context.Context, pool *pgxpool.Pool) error {
	c, err := pool.Acquire(context.WithValue(ctx, probing{}, true))
	if err != nil {
		return err
	}
	defer c.Release() // a connection the ping found broken is closed, and the pool drops it
	return c.Ping(ctx)
}

// probing marks Probe's acquire for the pool's ShouldPing.
type probing struct{}

// shouldPing is pgxpool's default (ping a connection idle for more than a second before
// handing it out) but for Probe's acquire, which pings it anyway.
func shouldPing(ctx context.Context, p pgxpool.ShouldPingParams) bool {
	return ctx.Value(probing{}) == nil && p.IdleDuration > time.Second
}
