package adapters_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/payments/internal/adapters"
	"github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/domain"
)

// A charge's card-testing check is planned once per connection, not at every charge:
// PostgreSQL kept planning it afresh (its plan for two or three subjects is estimated
// cheaper than the generic one), about a tenth of a millisecond of the database's CPU per
// charge, the only statement of an order planned every time.
func TestChargeVelocityCheckIsNotPlannedAtEveryCharge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// One connection: every charge's statements are prepared, and planned, on it.
	pool, err := db.Open(ctx, dbtest.New(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	store := adapters.NewStore(pool, propagation.TraceContext{})
	captured := func(_ context.Context, c *domain.Charge) ([]kafka.Event, *app.Adoption, error) {
		c.Status, c.Captured = domain.Captured, c.Amount
		return nil, nil, nil
	}
	const charges = 12
	for n := range charges {
		now := time.Now()
		c := domain.NewCharge(fmt.Sprintf("00000000-0000-4000-8000-%012d", n), domain.ChargeRequest{IdempotencyKey: fmt.Sprintf("plan-%d", n), Amount: 1000,
			Currency: "USD", CustomerID: "00000000-0000-4000-8000-0000000000c1", Reference: "r"}, now)
		// An anonymous buyer's attempt: its address and its device.
		v := &app.Velocity{Keys: []string{"addr:198.51.100.7", fmt.Sprintf("device:%d", n)}, Max: 5, Hard: 5, Window: time.Hour, Now: now}
		if _, _, err := store.Charge(ctx, c, nil, v, captured); err != nil {
			t.Fatalf("charge %d: %v", n, err)
		}
	}
	var custom, generic int64
	if err := pool.QueryRow(ctx, `SELECT coalesce(sum(custom_plans), 0), coalesce(sum(generic_plans), 0) FROM pg_prepared_statements
		WHERE statement LIKE '%FROM card_velocity%' AND statement NOT LIKE '%pg_prepared_statements%'`).Scan(&custom, &generic); err != nil {
		t.Fatal(err)
	}
	if custom != 0 || generic != charges {
		t.Errorf("the velocity check ran on %d custom plans (each planned at its call) and %d generic ones; want 0 and %d", custom, generic, charges)
	}
}
