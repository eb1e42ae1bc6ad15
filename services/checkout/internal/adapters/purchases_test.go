package adapters_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
	"github.com/hangar/hangar/services/checkout/internal/domain/gift"
	"github.com/hangar/hangar/services/checkout/internal/domain/oneoff"
)

func migrated(t *testing.T, maxConns int) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), maxConns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	return pool
}

func TestPresetCarts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := adapters.NewStore(migrated(t, 0))
	in := oneoff.PresetCart{CartType: oneoff.CartType, CreatedBy: "staff@hangar", Request: oneoff.Request{
		SelectedProducts: []oneoff.Product{{Code: "oneoff_adsb_receiver", Quantity: 2}}, ApplyTax: true, Currency: "EUR", DiscountCode: "SPRING10"}}
	c, err := s.CreateCart(ctx, in)
	if err != nil || c.UUID == "" {
		t.Fatalf("CreateCart = %+v, %v", c, err)
	}
	got, err := s.Cart(ctx, c.UUID)
	if err != nil || got == nil || got.Request.Currency != "EUR" || !got.Request.ApplyTax || got.Request.DiscountCode != "SPRING10" ||
		len(got.Request.SelectedProducts) != 1 || got.Request.SelectedProducts[0] != in.Request.SelectedProducts[0] || got.CartType != "ONE_OFF" {
		t.Errorf("Cart = %+v, %v", got, err)
	}
	for _, id := range []string{uuid.NewString(), "not-a-uuid", ""} {
		if got, err := s.Cart(ctx, id); got != nil || err != nil {
			t.Errorf("Cart(%q) = %+v, %v; want nil, nil", id, got, err)
		}
	}
}

func issue(t *testing.T, pool *pgxpool.Pool, currency string, cents int64) string {
	t.Helper()
	code := gift.MustNewCode()
	err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
		return adapters.IssueGifts(context.Background(), tx, []gift.Certificate{{ID: uuid.NewString(), Code: code, Currency: currency,
			AmountInCents: cents, BuyerEmail: "buyer@example.com", OrderID: "order-1"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	return code
}

func TestIssueGift(t *testing.T) {
	t.Parallel()
	pool := migrated(t, 0)
	code := issue(t, pool, "USD", 12500)
	gifts, err := adapters.NewStore(pool).Gifts(context.Background(), []string{code})
	if err != nil || gifts[strings.ToLower(code)] == nil || gifts[strings.ToLower(code)].BalanceInCents != 12500 {
		t.Fatalf("Gifts = %+v, %v", gifts, err)
	}
}
