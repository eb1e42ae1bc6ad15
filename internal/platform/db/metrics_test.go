package db_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
)

// The collector reports the pool as it is at scrape time: a held connection is acquired,
// the pool's size is its configured maximum, and acquisitions are counted.
func TestPoolCollector(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	reg := prometheus.NewPedanticRegistry()
	if err := db.RegisterPool(reg, pool, "main"); err != nil {
		t.Fatal(err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := `
# HELP hangar_db_pool_connections Connections of the database pool by state: acquired (in use), idle, constructing.
# TYPE hangar_db_pool_connections gauge
hangar_db_pool_connections{pool="main",state="acquired"} 1
hangar_db_pool_connections{pool="main",state="constructing"} 0
hangar_db_pool_connections{pool="main",state="idle"} 0
# HELP hangar_db_pool_max_connections Maximum size of the database pool.
# TYPE hangar_db_pool_max_connections gauge
hangar_db_pool_max_connections{pool="main"} 3
# HELP hangar_db_pool_acquires_total Successful connection acquisitions from the database pool.
# TYPE hangar_db_pool_acquires_total counter
hangar_db_pool_acquires_total{pool="main"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"hangar_db_pool_connections", "hangar_db_pool_max_connections", "hangar_db_pool_acquires_total"); err != nil {
		t.Error(err)
	}
	conn.Release()
	if got := testutil.ToFloat64(gaugeOf(t, reg, "hangar_db_pool_connections", "idle")); got != 1 {
		t.Errorf("idle after release = %v, want 1", got)
	}
	if n, err := testutil.GatherAndCount(reg); err != nil || n != 12 {
		t.Errorf("series = %d (%v), want 12", n, err)
	}
}

// Every statement sent through the pool is counted by how it went: on its own, in a
// pipelined batch, or as a COPY; and every transaction, implicit or begun, once.
func TestPoolCollectorCountsStatements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	reg := prometheus.NewPedanticRegistry()
	if err := db.RegisterPool(reg, pool, "main"); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "CREATE TABLE t (n int)"); err != nil {
		t.Fatal(err)
	}
	b := &pgx.Batch{}
	b.Queue("INSERT INTO t VALUES (1)")
	b.Queue("INSERT INTO t VALUES (2)")
	if err := pool.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"n"}, pgx.CopyFromRows([][]any{{3}, {4}})); err != nil {
		t.Fatal(err)
	}
	// BEGIN, two statements and COMMIT: one transaction.
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO t VALUES (5)"); err != nil {
			return err
		}
		return tx.SendBatch(ctx, &pgx.Batch{QueuedQueries: []*pgx.QueuedQuery{{SQL: "INSERT INTO t VALUES (6)"}}}).Close()
	}); err != nil {
		t.Fatal(err)
	}
	want := `
# HELP hangar_db_statements_total Statements sent through the pool: query (its own round trip), batched (pipelined), copy.
# TYPE hangar_db_statements_total counter
hangar_db_statements_total{kind="batched",pool="main"} 3
hangar_db_statements_total{kind="copy",pool="main"} 1
hangar_db_statements_total{kind="query",pool="main"} 4
# HELP hangar_db_transactions_total Transactions begun through the pool: a statement, batch or copy sent outside a transaction block (implicit) or a BEGIN.
# TYPE hangar_db_transactions_total counter
hangar_db_transactions_total{pool="main"} 4
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "hangar_db_statements_total", "hangar_db_transactions_total"); err != nil {
		t.Error(err)
	}
}

// gaugeOf returns a collector answering one series of the registry, for ToFloat64.
func gaugeOf(t *testing.T, reg *prometheus.Registry, name, state string) prometheus.Collector {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "state" && l.GetValue() == state {
					g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "x"})
					g.Set(m.GetGauge().GetValue())
					return g
				}
			}
		}
	}
	t.Fatalf("no %s{state=%q}", name, state)
	return nil
}

// A transaction that wrote outbox rows signals OutboxWrites once it ended, not before (the
// relay would find nothing committed); one that did not write the outbox signals nothing.
// A statement, a pipelined batch and a COPY outside a transaction block each end theirs.
func TestOutboxWritesSignalsEndedTransactions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, "CREATE TABLE outbox (topic text); CREATE TABLE t (n int)"); err != nil {
		t.Fatal(err)
	}
	wrote := db.OutboxWrites(pool)
	signalled := func() bool {
		select {
		case <-wrote:
			return true
		default:
			return false
		}
	}
	signalled() // the CREATE TABLE above wrote no outbox row: nothing, but drain anyway
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO outbox (topic) VALUES ('a')"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if signalled() {
		t.Fatal("signalled before the commit")
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if !signalled() {
		t.Fatal("no signal after the commit")
	}
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO t VALUES (2)")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "SELECT count(*) FROM outbox"); err != nil {
		t.Fatal(err)
	}
	if signalled() {
		t.Error("signalled for a transaction that wrote no outbox row")
	}
	b := &pgx.Batch{}
	b.Queue("INSERT INTO t VALUES (3)")
	b.Queue("INSERT INTO outbox (topic) VALUES ('b')")
	if err := pool.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	if !signalled() {
		t.Error("no signal after a pipelined batch's implicit transaction")
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"outbox"}, []string{"topic"}, pgx.CopyFromRows([][]any{{"c"}, {"d"}})); err != nil {
		t.Fatal(err)
	}
	if !signalled() {
		t.Error("no signal after a COPY into the outbox")
	}
	// A signal stands for every write since it was last taken: two commits, one value.
	for range 2 {
		if _, err := pool.Exec(ctx, "INSERT INTO outbox (topic) VALUES ('e')"); err != nil {
			t.Fatal(err)
		}
	}
	if !signalled() || signalled() {
		t.Error("want one signal for two commits not yet taken")
	}
}
