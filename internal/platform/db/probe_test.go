package db_test

import (
	"context"
	"testing"
	"time"

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
