package app_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/services/payments/internal/adapters"
	"github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// dbCounts are the statement and transaction counters of payments' pool ("main") and the
// processor's ("sandbox"), keyed "<pool> <query|batched|copy|transactions>".
type dbCounts map[string]float64

func gatherCounts(t *testing.T, reg *prometheus.Registry) dbCounts {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := dbCounts{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch mf.GetName() {
			case "hangar_db_statements_total":
				out[labels["pool"]+" "+labels["kind"]] = m.GetCounter().GetValue()
			case "hangar_db_transactions_total":
				out[labels["pool"]+" transactions"] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// What payments' part of an order costs its database and the card processor's, in
// statements and transactions: the counts are the design (one transaction whose BEGIN
// travels with the key's claim and whose COMMIT with the outcome's writes; the processor's
// authorization, vaulting included, one statement), so a change that adds a round trip or
// a transaction fails here. Pipelined statements are "batched"; each "query" is a round trip
// of its own.
func TestChargeStatementsAndTransactions(t *testing.T) {
	ctx := context.Background()
	url := dbtest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg := prometheus.NewPedanticRegistry()
	// Two pools on the one database, as the App has them: payments' and the processor's.
	pools := map[string]*pgxpool.Pool{}
	for _, name := range []string{"main", "sandbox"} {
		pool, err := db.Open(ctx, url, 4)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		if err := db.RegisterPool(reg, pool, name); err != nil {
			t.Fatal(err)
		}
		pools[name] = pool
	}
	if err := db.Migrate(ctx, pools["main"], adapters.Migrations, "migrations", log); err != nil {
		t.Fatal(err)
	}
	svc := app.New(adapters.NewStore(pools["main"], propagation.TraceContext{}),
		gateway.NewSandbox(pools["sandbox"], []byte("k"), 3*time.Hour, time.Now), app.Policies{}, time.Now, log)

	// step runs f and checks what it sent, beyond the counts before it.
	step := func(name string, want dbCounts, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			before := gatherCounts(t, reg)
			f(t)
			after := gatherCounts(t, reg)
			for k := range after {
				if got := after[k] - before[k]; got != want[k] {
					t.Errorf("%s: %v, want %v", k, got, want[k])
				}
			}
		})
	}
	const buyer = "00000000-0000-4000-8000-0000000000b1"
	var nonce, token string
	req := func(key string) domain.ChargeRequest {
		return domain.ChargeRequest{IdempotencyKey: key, Amount: 47000, Currency: "USD", CustomerID: buyer, Reference: key}
	}
	step("tokenize", dbCounts{"sandbox query": 1, "sandbox transactions": 1}, func(t *testing.T) {
		n, err := svc.Tokenize(ctx, domain.CardInput{Number: gateway.CardVisaOK, CVV: "123", ExpirationDate: "12/2030", PostalCode: "94105"})
		if err != nil {
			t.Fatal(err)
		}
		nonce = n.Nonce
	})
	// BEGIN + claim | processor | charge, captured event, method on file with its event + COMMIT.
	step("a new buyer's charge that vaults the card", dbCounts{"main batched": 6, "main transactions": 1,
		"sandbox query": 1, "sandbox transactions": 1}, func(t *testing.T) {
		r := req("order-1")
		r.Nonce, r.StoreInVault = nonce, true
		c, _, err := svc.Charge(ctx, r)
		if err != nil || c.Status != domain.Captured || c.Method.Token == "" {
			t.Fatalf("charge = %+v, %v", c, err)
		}
		token = c.Method.Token
	})
	if p, err := svc.BillingProfile(ctx, buyer); err != nil || p.Token != token {
		t.Fatalf("method on file = %+v, %v; want %s", p, err, token)
	}
	step("a renewal charging the card on file", dbCounts{"main batched": 5, "main transactions": 1,
		"sandbox query": 1, "sandbox transactions": 1}, func(t *testing.T) {
		r := req("renewal-1")
		r.Token = token
		if c, _, err := svc.Charge(ctx, r); err != nil || c.Status != domain.Captured {
			t.Fatalf("charge = %+v, %v", c, err)
		}
	})
	// BEGIN + claim (a conflict) | the stored charge locked | ROLLBACK; the processor is not asked.
	step("a replay", dbCounts{"main batched": 2, "main query": 2, "main transactions": 1}, func(t *testing.T) {
		r := req("renewal-1")
		r.Token = token
		if c, replayed, err := svc.Charge(ctx, r); err != nil || !replayed || c.Status != domain.Captured {
			t.Fatalf("charge = %+v, %v, %v", c, replayed, err)
		}
	})
}
