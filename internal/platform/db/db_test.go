package db_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
)

var migrations = fstest.MapFS{
	"m/0001_a.sql": {Data: []byte("CREATE TABLE a (id int PRIMARY KEY);")},
	"m/0002_b.sql": {Data: []byte("INSERT INTO a VALUES (1);")},
	"m/notes.txt":  {Data: []byte("ignored")},
}

// Replicas starting together apply each migration exactly once, and re-running is a no-op.
func TestMigrateOnceUnderConcurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	log := slog.New(slog.DiscardHandler)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- db.Migrate(ctx, pool, migrations, "m", log) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Migrate = %v", err)
		}
	}
	var rows, applied int
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM a").Scan(&rows)
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM schema_migrations").Scan(&applied)
	if rows != 1 || applied != 2 {
		t.Errorf("rows=%d applied=%d; want 1 and 2", rows, applied)
	}
}

func TestFailedMigrationLeavesNothingHalfDone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	bad := fstest.MapFS{"m/0001_bad.sql": {Data: []byte("CREATE TABLE c (id int); SELECT no_such_function();")}}
	if err := db.Migrate(ctx, pool, bad, "m", slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("Migrate accepted a failing migration")
	}
	var exists bool
	_ = pool.QueryRow(ctx, "SELECT to_regclass('c') IS NOT NULL").Scan(&exists)
	if exists {
		t.Error("table c exists after its migration failed")
	}
}

func TestWaitReadyBacksOff(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	pool, err := db.Open(ctx, "postgres://postgres@127.0.0.1:1/x?connect_timeout=1", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var waits []time.Duration
	err = db.WaitReady(ctx, pool, db.Backoff{Min: 100 * time.Millisecond, Max: 400 * time.Millisecond}, func(_ error, next time.Duration) {
		waits = append(waits, next)
	})
	if err == nil {
		t.Fatal("WaitReady succeeded against a closed port")
	}
	if len(waits) < 3 || waits[0] != 100*time.Millisecond || waits[1] != 200*time.Millisecond || waits[len(waits)-1] > 400*time.Millisecond {
		t.Errorf("retry delays %v; want doubling from 100ms capped at 400ms", waits)
	}
}

// A replica with DB_MIGRATE=false applies nothing: it waits (unready) until the release's
// migrate Job has applied every migration it ships, and accepts a schema ahead of it.
func TestSchemaWithoutMigrateWaitsForTheJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := dbtest.New(t)
	pool, err := db.Open(ctx, url, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	log := slog.New(slog.DiscardHandler)
	replica := config.Database{URL: url, Migrate: false}
	if err := db.Schema(ctx, pool, replica, migrations, "m", log); !errors.Is(err, db.ErrSchemaBehind) {
		t.Fatalf("Schema before any migration = %v; want ErrSchemaBehind", err)
	}
	var tables int
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename IN ('a', 'schema_migrations')").Scan(&tables)
	if tables != 0 {
		t.Fatalf("a replica without DB_MIGRATE created %d tables", tables)
	}
	older := fstest.MapFS{"m/0001_a.sql": migrations["m/0001_a.sql"]}
	if err := db.MigrateOnly(ctx, "svc", config.Database{URL: url}, older, "m", io.Discard); err != nil {
		t.Fatalf("MigrateOnly = %v", err)
	}
	if err := db.Schema(ctx, pool, replica, migrations, "m", log); !errors.Is(err, db.ErrSchemaBehind) || !strings.Contains(err.Error(), "0002_b.sql") {
		t.Fatalf("Schema with 0002 missing = %v; want ErrSchemaBehind naming it", err)
	}
	if err := db.MigrateOnly(ctx, "svc", config.Database{URL: url}, migrations, "m", io.Discard); err != nil {
		t.Fatalf("MigrateOnly = %v", err)
	}
	if err := db.Schema(ctx, pool, replica, migrations, "m", log); err != nil {
		t.Fatalf("Schema once migrated = %v", err)
	}
	// The old release keeps running beside the next one's expanded schema.
	if err := db.Schema(ctx, pool, replica, older, "m", log); err != nil {
		t.Fatalf("Schema of the older release = %v", err)
	}
}

// A concurrent index build, which PostgreSQL refuses inside a transaction, is applied
// outside one and recorded.
func TestMigrateBuildsConcurrentIndexOutsideATransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ms := fstest.MapFS{
		"m/0001_a.sql": migrations["m/0001_a.sql"],
		"m/0002_i.sql": {Data: []byte("-- lookups by id\nCREATE INDEX CONCURRENTLY IF NOT EXISTS a_id ON a (id);\n")},
	}
	if err := db.Migrate(ctx, pool, ms, "m", slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("Migrate = %v", err)
	}
	var valid bool
	if err := pool.QueryRow(ctx, "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'a_id'").Scan(&valid); err != nil || !valid {
		t.Fatalf("index a_id valid=%v err=%v", valid, err)
	}
}

// A replica waiting for the migration lock holds no snapshot while it waits: the replica
// holding the lock builds its index CONCURRENTLY (which waits for every older snapshot of
// the database) to the end. Waiting in pg_advisory_lock, the two deadlocked and PostgreSQL
// cancelled one, which left an invalid index behind.
func TestMigrationLockWaiterDoesNotBlockAConcurrentIndexBuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	log := slog.New(slog.DiscardHandler)
	if err := db.Migrate(ctx, pool, fstest.MapFS{"m/0001_a.sql": migrations["m/0001_a.sql"]}, "m", log); err != nil {
		t.Fatal(err)
	}
	// holder stands for the replica applying a concurrent index build under the lock.
	holder, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Release()
	if _, err := holder.Exec(ctx, "SELECT pg_advisory_lock($1)", db.MigrationLockID); err != nil {
		t.Fatal(err)
	}
	// The other replica starts and waits for the lock.
	waiter := make(chan error, 1)
	go func() { waiter <- db.Migrate(ctx, pool, migrations, "m", log) }()
	waiting := func() bool {
		var n int
		_ = pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND query LIKE '%advisory_lock%' AND pid <> pg_backend_pid() AND pid <> $1`, holder.Conn().PgConn().PID()).Scan(&n)
		return n > 0
	}
	for !waiting() {
		select {
		case err := <-waiter:
			t.Fatalf("Migrate ended while the lock was held: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if _, err := holder.Exec(ctx, "CREATE INDEX CONCURRENTLY a_id ON a (id)"); err != nil {
		t.Fatalf("the holder's concurrent index build: %v", err)
	}
	var valid bool
	if err := pool.QueryRow(ctx, "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'a_id'").Scan(&valid); err != nil || !valid {
		t.Fatalf("index a_id valid=%v err=%v", valid, err)
	}
	if _, err := holder.Exec(ctx, "SELECT pg_advisory_unlock($1)", db.MigrationLockID); err != nil {
		t.Fatal(err)
	}
	if err := <-waiter; err != nil {
		t.Fatalf("the waiting replica's Migrate = %v", err)
	}
}
