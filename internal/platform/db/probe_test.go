package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
)

// Issue 39: readiness says whether the database can be reached, not how busy the process
// is. With the pool's every connection held by requests under way, the probe answers at
// once that the database is reachable (a ping queued behind them and failed its deadline,
// so a busy replica was reported unreachable).
func TestProbeIsNotBusy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	probe := db.Probe(pool)
	if err := probe(ctx); err != nil {
		t.Fatalf("probe of an idle pool: %v", err)
	}
	conn, err := pool.Acquire(ctx) // a request holds the one connection
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	// The bound only keeps a failing run from hanging: the probe must not wait at all.
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := probe(pctx); err != nil {
		t.Errorf("probe with every connection busy: %v; a busy pool is a reachable database", err)
	}
}

// Issue 44: a probe costs no round trip when the pool's statements were answered since the
// last one (an idle store's readiness pings were a third of its transactions), but never
// takes that for an answer once a statement found the database gone: that failure also
// signals LostDatabase, on which the service probes at once.
func TestProbeTakesAnsweredStatementsForAPing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := dbtest.New(t)
	pool, err := db.Open(ctx, url, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	admin, err := pgx.Connect(ctx, dbtest.DefaultServerURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(ctx) }) // after allow(true) below
	name := pool.Config().ConnConfig.Database
	allow := func(yes bool) {
		t.Helper()
		if _, err := admin.Exec(ctx, fmt.Sprintf(`ALTER DATABASE %s ALLOW_CONNECTIONS %t`, pgx.Identifier{name}.Sanitize(), yes)); err != nil {
			t.Fatal(err)
		}
		if !yes {
			if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, name); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Cleanup(func() { allow(true) })
	probe, lost := db.Probe(pool), db.LostDatabase(pool)
	if err := probe(ctx); err != nil {
		t.Fatalf("probe: %v", err)
	}

	if _, err := pool.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	allow(false)
	// A ping now would fail: this probe sent none, the SELECT answered for it.
	if err := probe(ctx); err != nil {
		t.Errorf("probe after an answered statement: %v; want no ping", err)
	}
	if err := probe(ctx); err == nil {
		t.Error("probe with the database gone and nothing answered since the last: no error")
	}

	allow(true)
	pool.Reset() // the connections the server ended
	if err := probe(ctx); err != nil {
		t.Fatalf("probe with the database back: %v", err)
	}
	for len(lost) > 0 { // the failed probe's connection attempt
		<-lost
	}
	if _, err := pool.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	allow(false)
	if _, err := pool.Exec(ctx, "SELECT 1"); err == nil {
		t.Fatal("a statement with the database gone succeeded")
	}
	select {
	case <-lost:
	default:
		t.Error("a statement that found the database gone did not signal LostDatabase")
	}
	if err := probe(ctx); err == nil {
		t.Error("probe after a statement found the database gone: no error, the answered statement before it taken for a ping")
	}
}
