package app_test

import (
	"context"
	"errors"
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

// What payments' part of an order costs its database and the card processor's, in
// statements and transactions: the counts are the design (one transaction whose BEGIN
// travels with the key's claim and whose COMMIT with the outcome's writes; the processor's
// authorization, vaulting included, one statement), so a change that adds a round trip or
// a transaction fails here. Pipelined statements are "batched"; each "query" is a round trip
// of its own.
func TestChargeStatementsAndTransactions(t *testing.T) {
	t.Parallel()
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
		gateway.NewSandbox(adapters.NewSandboxStore(pools["sandbox"]), []byte("k"), 3*time.Hour, time.Now), app.Policies{}, time.Now, log)

	// step runs f and checks what it sent, beyond the counts before it.
	step := func(name string, want map[string]dbtest.Counts, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			before := dbtest.Gather(t, reg)
			f(t)
			after := dbtest.Gather(t, reg)
			for _, pool := range []string{"main", "sandbox"} {
				if got := after[pool].Minus(before[pool]); got != want[pool] {
					t.Errorf("%s pool: %+v, want %+v", pool, got, want[pool])
				}
			}
		})
	}
	const buyer = "00000000-0000-4000-8000-0000000000b1"
	var nonce, token string
	req := func(key string) domain.ChargeRequest {
		return domain.ChargeRequest{IdempotencyKey: key, Amount: 47000, Currency: "USD", CustomerID: buyer, Reference: key}
	}
	step("tokenize", map[string]dbtest.Counts{"sandbox": {Query: 1, Transactions: 1}}, func(t *testing.T) {
		n, err := svc.Tokenize(ctx, domain.CardInput{Number: gateway.CardVisaOK, CVV: "123", ExpirationDate: "12/2030", PostalCode: "94105"})
		if err != nil {
			t.Fatal(err)
		}
		nonce = n.Nonce
	})
	// BEGIN + claim | processor | charge, captured event, method on file with its event + COMMIT.
	step("a new buyer's charge that vaults the card", map[string]dbtest.Counts{"main": {Batched: 6, Transactions: 1}, "sandbox": {Query: 1, Transactions: 1}}, func(t *testing.T) {
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
	step("a renewal charging the card on file", map[string]dbtest.Counts{"main": {Batched: 5, Transactions: 1}, "sandbox": {Query: 1, Transactions: 1}}, func(t *testing.T) {
		r := req("renewal-1")
		r.Token = token
		if c, _, err := svc.Charge(ctx, r); err != nil || c.Status != domain.Captured {
			t.Fatalf("charge = %+v, %v", c, err)
		}
	})
	// BEGIN + claim (a conflict) | the stored charge locked | ROLLBACK; the processor is not asked.
	step("a replay", map[string]dbtest.Counts{"main": {Batched: 2, Query: 2, Transactions: 1}}, func(t *testing.T) {
		r := req("renewal-1")
		r.Token = token
		if c, replayed, err := svc.Charge(ctx, r); err != nil || !replayed || c.Status != domain.Captured {
			t.Fatalf("charge = %+v, %v, %v", c, replayed, err)
		}
	})
	// Checkout's charges carry their claim's fencing token (issue 39): the key's newest token
	// is recorded and compared in the claim's own statement, so a fenced charge costs what an
	// unfenced one does: BEGIN + fenced claim | processor | charge, captured event + COMMIT.
	n, err := svc.Tokenize(ctx, domain.CardInput{Number: gateway.CardVisaOK, CVV: "123", ExpirationDate: "12/2030", PostalCode: "94105"})
	if err != nil {
		t.Fatal(err)
	}
	step("an order's fenced charge", map[string]dbtest.Counts{"main": {Batched: 5, Transactions: 1}, "sandbox": {Query: 1, Transactions: 1}}, func(t *testing.T) {
		r := req("order-2")
		r.Nonce, r.Fence = n.Nonce, 1
		if c, _, err := svc.Charge(ctx, r); err != nil || c.Status != domain.Captured {
			t.Fatalf("charge = %+v, %v", c, err)
		}
	})
	step("a renewal's fenced charge of the card on file", map[string]dbtest.Counts{"main": {Batched: 5, Transactions: 1}, "sandbox": {Query: 1, Transactions: 1}}, func(t *testing.T) {
		r := req("renewal-2")
		r.Token, r.Fence = token, 3
		if c, _, err := svc.Charge(ctx, r); err != nil || c.Status != domain.Captured {
			t.Fatalf("charge = %+v, %v", c, err)
		}
	})
	// BEGIN + fenced claim (a conflict) | the stored charge locked | ROLLBACK.
	step("a fenced replay", map[string]dbtest.Counts{"main": {Batched: 2, Query: 2, Transactions: 1}}, func(t *testing.T) {
		r := req("renewal-2")
		r.Token, r.Fence = token, 3
		if c, replayed, err := svc.Charge(ctx, r); err != nil || !replayed || c.Status != domain.Captured {
			t.Fatalf("charge = %+v, %v, %v", c, replayed, err)
		}
	})
	// BEGIN + fenced claim (refused: a newer token holds the key) | ROLLBACK; nothing is locked
	// or read beyond the claim, and the processor is not asked.
	step("a charge under a superseded claim", map[string]dbtest.Counts{"main": {Batched: 2, Query: 1, Transactions: 1}}, func(t *testing.T) {
		r := req("renewal-2")
		r.Token, r.Fence = token, 2
		if _, _, err := svc.Charge(ctx, r); !errors.Is(err, domain.ErrFenced) {
			t.Fatalf("charge under fence 2 after 3: %v, want %v", err, domain.ErrFenced)
		}
	})
}
