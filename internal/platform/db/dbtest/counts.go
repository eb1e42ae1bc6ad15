package dbtest

import (
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/hangar/hangar/internal/platform/db"
)

// Counts are a pool's statements by kind (db's hangar_db_statements_total: a round trip of
// its own, pipelined in a batch, or a COPY) and its transactions
// (hangar_db_transactions_total). Tests pin a code path's round trips with them: a
// regression adds a statement and fails.
type Counts struct{ Query, Batched, Copy, Transactions float64 }

// Minus is what happened between o and c.
func (c Counts) Minus(o Counts) Counts {
	return Counts{c.Query - o.Query, c.Batched - o.Batched, c.Copy - o.Copy, c.Transactions - o.Transactions}
}

// Statements are every statement sent, in a round trip of its own, a batch or a COPY.
func (c Counts) Statements() float64 { return c.Query + c.Batched + c.Copy }

// Gather reads the counters of every pool g exposes, by pool name.
func Gather(t testing.TB, g prometheus.Gatherer) map[string]Counts {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Counts{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var pool, kind string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "pool":
					pool = l.GetValue()
				case "kind":
					kind = l.GetValue()
				}
			}
			c, v := out[pool], m.GetCounter().GetValue()
			switch {
			case mf.GetName() == "hangar_db_transactions_total":
				c.Transactions = v
			case mf.GetName() != "hangar_db_statements_total":
				continue
			case kind == "query":
				c.Query = v
			case kind == "batched":
				c.Batched = v
			case kind == "copy":
				c.Copy = v
			}
			out[pool] = c
		}
	}
	return out
}

// Counter registers pool's counters on a registry of its own and answers a function that
// reads them.
func Counter(t testing.TB, pool *pgxpool.Pool) func() Counts {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := db.RegisterPool(reg, pool, "main"); err != nil {
		t.Fatal(err)
	}
	return func() Counts { return Gather(t, reg)["main"] }
}
