package adapters_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
	"github.com/hangar/hangar/services/checkout/internal/domain/gift"
	"github.com/hangar/hangar/services/checkout/internal/domain/oneoff"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
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

func TestIssueAndDebitGift(t *testing.T) {
	ctx := context.Background()
	pool := migrated(t, 0)
	s := adapters.NewStore(pool)
	code := issue(t, pool, "USD", 12500)
	gifts, err := s.Gifts(ctx, []string{code})
	if err != nil || gifts[strings.ToLower(code)] == nil || gifts[strings.ToLower(code)].BalanceInCents != 12500 {
		t.Fatalf("Gifts = %+v, %v", gifts, err)
	}
	debit := func(code, cur string, amount int64) (int64, error) {
		var left int64
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			var err error
			left, err = adapters.DebitGift(ctx, tx, code, cur, amount)
			return err
		})
		return left, err
	}
	if left, err := debit(code, "USD", 10000); err != nil || left != 2500 {
		t.Errorf("debit 100 = %d, %v; want 2500 left", left, err)
	}
	// Typed in lower case with spaces: the same certificate.
	if left, err := debit(strings.ToLower(code), "USD", 2500); err != nil || left != 0 {
		t.Errorf("debit the rest = %d, %v; want 0 left", left, err)
	}
	if _, err := debit(code, "USD", 1); errs.CodeOf(err) != errs.Conflict {
		t.Errorf("debit of an empty certificate = %v, want conflict", err)
	}
	eur := issue(t, pool, "USD", 5000)
	if _, err := debit(eur, "EUR", 100); errs.CodeOf(err) != errs.Precondition || !strings.Contains(err.Error(), promotion.MsgGiftCurrency) {
		t.Errorf("debit in EUR = %v, want the currency mismatch", err)
	}
	if _, err := debit("0000-0000-0000-0000", "USD", 100); errs.CodeOf(err) != errs.NotFound || !strings.Contains(err.Error(), promotion.MsgGiftNotFound) {
		t.Errorf("debit of an unknown code = %v, want not found", err)
	}
}

// Many orders redeem one certificate at once: the debits that succeed never add up to more
// than the balance, and the balance ends at exactly what they left.
func TestConcurrentRedemptionNeverOverdraws(t *testing.T) {
	ctx := context.Background()
	pool := migrated(t, 30)
	code := issue(t, pool, "USD", 10000) // $100
	const orders, each = 25, 3000        // 25 orders of $30: at most 3 can be paid
	var wg sync.WaitGroup
	var mu sync.Mutex
	paid, refused := 0, 0
	start := make(chan struct{})
	for range orders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				_, err := adapters.DebitGift(ctx, tx, code, "USD", each)
				return err
			})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				paid++
			case errs.CodeOf(err) == errs.Conflict:
				refused++
			default:
				t.Errorf("debit: %v", err)
			}
		}()
	}
	close(start)
	wg.Wait()
	var left int64
	if err := pool.QueryRow(ctx, `SELECT balance_in_cents FROM gift_certificates WHERE code = $1`, code).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if paid != 3 || refused != orders-3 || left != 10000-3*each {
		t.Errorf("paid %d refused %d balance left %d; want 3, %d, %d", paid, refused, left, orders-3, 10000-3*each)
	}
}
