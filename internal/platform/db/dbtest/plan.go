package dbtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// IndexPlan answers the plan (EXPLAIN, JSON) of sql with args on pool as a table of
// production size would get it: a test's small table is cheaper to read whole, so
// sequential scans are off and the planner chooses among the indexes, or falls back to a
// sequential scan only when no index serves the statement. A test asserts which index.
func IndexPlan(t testing.TB, pool *pgxpool.Pool, sql string, args ...any) string {
	t.Helper()
	ctx := context.Background()
	var plan string
	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `EXPLAIN (FORMAT JSON) `+sql, args...).Scan(&plan)
	}); err != nil {
		t.Fatal(err)
	}
	return plan
}
