package db_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"testing/fstest"
	"time"

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
