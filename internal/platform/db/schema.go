package db

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// ErrSchemaBehind is Schema's answer while the database lacks migrations this binary
// ships (DB_MIGRATE=false): the release's migrate Job has not applied them yet.
var ErrSchemaBehind = errors.New("schema not migrated yet")

// Schema brings a serving process's schema up: with cfg.Migrate it applies the migrations
// itself (dev, tests, a single instance); without, it only checks that every migration of
// dir is applied and answers ErrSchemaBehind until then, so Bootstrap keeps the service
// unready and retries. A database with migrations this binary does not know is fine: that
// is the release after this one expanding the schema while this one still runs.
func Schema(ctx context.Context, pool *pgxpool.Pool, cfg config.Database, fsys fs.FS, dir string, log *slog.Logger) error {
	if cfg.Migrate {
		return Migrate(ctx, pool, fsys, dir, log)
	}
	names, err := migrationNames(fsys, dir)
	if err != nil {
		return err
	}
	applied := map[string]bool{}
	rows, err := pool.Query(ctx, "SELECT name FROM schema_migrations")
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table: nothing applied yet
			return fmt.Errorf("%w: no migration applied (DB_MIGRATE=false: the migrate Job applies them)", ErrSchemaBehind)
		}
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		applied[n] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read schema_migrations: %w", err)
	}
	var missing []string
	for _, n := range names {
		if !applied[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s not applied (DB_MIGRATE=false: the migrate Job applies them)", ErrSchemaBehind, strings.Join(missing, ", "))
	}
	return nil
}

// MigrateOnly is a service's `migrate` command, what the chart's pre-install/pre-upgrade
// Job runs once per release: wait for the database (within ctx), apply the migrations of
// dir, exit. The replicas of the release then start with DB_MIGRATE=false.
func MigrateOnly(ctx context.Context, service string, cfg config.Database, fsys fs.FS, dir string, out io.Writer) error {
	var p config.Platform
	config.ServiceDefaults(service, &p, &cfg)
	log, err := telemetry.NewLogger(out, "info", "json", service)
	if err != nil {
		return err
	}
	log = log.With("command", "migrate")
	if cfg.CreateIfMissing {
		if err := EnsureDatabase(ctx, cfg.URL); err != nil {
			return err
		}
	}
	// One connection: the Job's share of the database's connection budget.
	pool, err := Open(ctx, cfg.URL, 1)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := WaitReady(ctx, pool, DefaultBackoff, func(err error, next time.Duration) {
		log.WarnContext(ctx, "database unreachable; retrying", "err", err.Error(), "retry_in", next.String())
	}); err != nil {
		return fmt.Errorf("database: %w", err)
	}
	if err := Migrate(ctx, pool, fsys, dir, log); err != nil {
		return err
	}
	log.InfoContext(ctx, "schema migrated")
	return nil
}

func migrationNames(fsys fs.FS, dir string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".sql") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}
