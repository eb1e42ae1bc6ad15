package dbtest

import (
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hangar/hangar/internal/platform/db"
)

// Counts are a pool's statements by kind (db's hangar_db_statements_total: sent on their
// own, or inside a pipelined batch) and its transactions (hangar_db_transactions_total).
// Tests pin a code path's round trips with them: a regression adds a statement and fails.
type Counts struct{ Query, Batched, Transactions float64 }

// Minus is what happened between o and c.
func (c Counts) Minus(o Counts) Counts {
	return Counts{c.Query - o.Query, c.Batched - o.Batched, c.Transactions - o.Transactions}
}

// Counter registers pool's counters on a registry of its own and answers a function that
// reads them.
func Counter(t testing.TB, pool *pgxpool.Pool) func() Counts {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := db.RegisterPool(reg, pool, "main"); err != nil {
		t.Fatal(err)
	}
	return func() Counts {
		t.Helper()
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var c Counts
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				kind := ""
				for _, l := range m.GetLabel() {
					if l.GetName() == "kind" {
						kind = l.GetValue()
					}
				}
				switch {
				case mf.GetName() == "hangar_db_transactions_total":
					c.Transactions = m.GetCounter().GetValue()
				case mf.GetName() == "hangar_db_statements_total" && kind == "query":
					c.Query = m.GetCounter().GetValue()
				case mf.GetName() == "hangar_db_statements_total" && kind == "batched":
					c.Batched = m.GetCounter().GetValue()
				}
			}
		}
		return c
	}
}
