package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/payments/internal/adapters"
	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newSandbox answers a sandbox on a fresh, migrated PostgreSQL database.
func newSandbox(t *testing.T, now func() time.Time) *gateway.Sandbox {
	t.Helper()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	return gateway.NewSandbox(adapters.NewSandboxStore(pool), []byte("k"), 3*time.Hour, now)
}

func card(n string) domain.CardInput {
	cvv := "123"
	if len(n) == 15 {
		cvv = "1234"
	}
	return domain.CardInput{Number: n, CVV: cvv, ExpirationDate: "12/2030"}
}

func TestTestCardOutcomes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}
	s := newSandbox(t, clk.now)
	cases := []struct{ number, code string }{
		{gateway.CardVisaOK, ""}, {gateway.CardMastercardOK, ""}, {gateway.CardAmexOK, ""}, {gateway.CardDiscoverOK, ""},
		{gateway.CardDecline, domain.FailDeclined}, {gateway.CardInsufficientFunds, domain.FailInsufficientFunds},
		{gateway.CardExpired, domain.FailExpiredCard}, {gateway.CardCVVFailure, domain.FailCVV},
	}
	for _, c := range cases {
		t.Run(c.number, func(t *testing.T) {
			n, err := s.Tokenize(ctx, card(c.number))
			if err != nil {
				t.Fatal(err)
			}
			if n.Card.Last4 != c.number[len(c.number)-4:] {
				t.Errorf("last4 = %s", n.Card.Last4)
			}
			_, err = s.Charge(ctx, gateway.AuthRequest{IdempotencyKey: "k-" + c.number, Amount: 100, Currency: "USD", Nonce: n.Nonce})
			d, declined := gateway.AsDeclined(err)
			switch {
			case c.code == "" && err != nil:
				t.Errorf("Charge() = %v, want approved", err)
			case c.code != "" && (!declined || d.Code != c.code):
				t.Errorf("Charge() = %v, want %s", err, c.code)
			}
		})
	}
}

func TestNonceSingleUseAndExpiry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}
	s := newSandbox(t, clk.now)
	n, _ := s.Tokenize(ctx, card(gateway.CardVisaOK))
	if _, err := s.Charge(ctx, gateway.AuthRequest{IdempotencyKey: "a", Amount: 1, Nonce: n.Nonce}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Charge(ctx, gateway.AuthRequest{IdempotencyKey: "b", Amount: 1, Nonce: n.Nonce})
	if d, ok := gateway.AsDeclined(err); !ok || d.Code != domain.FailInvalidNonce {
		t.Errorf("reused nonce: %v", err)
	}
	n2, _ := s.Tokenize(ctx, card(gateway.CardVisaOK))
	clk.add(3*time.Hour - time.Second)
	n3, _ := s.Tokenize(ctx, card(gateway.CardVisaOK))
	if _, err := s.Vault(ctx, gateway.VaultRequest{Nonce: n2.Nonce, CustomerID: "c"}); err != nil {
		t.Errorf("nonce just before expiry: %v", err)
	}
	clk.add(3 * time.Hour)
	_, err = s.Vault(ctx, gateway.VaultRequest{Nonce: n3.Nonce, CustomerID: "c"})
	if d, ok := gateway.AsDeclined(err); !ok || d.Code != domain.FailNonceExpired {
		t.Errorf("expired nonce: %v", err)
	}
}

func TestTimeoutResolvesOnRetry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSandbox(t, time.Now)
	n, _ := s.Tokenize(ctx, card(gateway.CardTimeout))
	req := gateway.AuthRequest{IdempotencyKey: "t", Amount: 500, Currency: "USD", Nonce: n.Nonce, Capture: true}
	if _, err := s.Authorize(ctx, req); !errors.Is(err, gateway.ErrTimeout) {
		t.Fatalf("first attempt = %v, want timeout", err)
	}
	tx, err := s.Authorize(ctx, req)
	if err != nil || !tx.Captured {
		t.Fatalf("retry = %+v, %v; want the captured transaction", tx, err)
	}
}

func TestVaultDeduplicatesAndWallet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSandbox(t, time.Now)
	a, _ := s.Tokenize(ctx, card(gateway.CardVisaOK))
	b, _ := s.Tokenize(ctx, card(gateway.CardVisaOK))
	m1, err := s.Vault(ctx, gateway.VaultRequest{Nonce: a.Nonce, CustomerID: "c", Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	m2, _ := s.Vault(ctx, gateway.VaultRequest{Nonce: b.Nonce, CustomerID: "c", Verify: true})
	if m1.Token != m2.Token {
		t.Errorf("same card vaulted twice: %s and %s", m1.Token, m2.Token)
	}
	d, _ := s.Tokenize(ctx, card(gateway.CardDecline))
	if _, err := s.Vault(ctx, gateway.VaultRequest{Nonce: d.Nonce, CustomerID: "c", Verify: true}); err == nil {
		t.Error("declining card passed verification")
	}
	w, err := s.TokenizeWallet(ctx, "payer@example.com")
	if err != nil || w.Kind != domain.KindWallet {
		t.Fatal(w, err)
	}
	m, err := s.Vault(ctx, gateway.VaultRequest{Nonce: w.Nonce, CustomerID: "c"})
	if err != nil || m.Email != "payer@example.com" {
		t.Errorf("wallet vault = %+v, %v", m, err)
	}
}

func TestRefusalReplayAndVaultOnCharge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSandbox(t, time.Now)
	d, _ := s.Tokenize(ctx, card(gateway.CardInsufficientFunds))
	req := gateway.AuthRequest{IdempotencyKey: "r", Amount: 100, Currency: "USD", Nonce: d.Nonce, Capture: true}
	for i := range 2 {
		if _, err := s.Authorize(ctx, req); !isDeclined(err, domain.FailInsufficientFunds) {
			t.Errorf("attempt %d = %v, want the stored refusal", i, err)
		}
	}
	n, _ := s.Tokenize(ctx, card(gateway.CardVisaOK))
	tx, err := s.Charge(ctx, gateway.AuthRequest{IdempotencyKey: "v", Amount: 900, Currency: "USD", Nonce: n.Nonce, CustomerID: "c", StoreInVault: true})
	if err != nil || tx.Method.Token == "" || tx.Method.Card.Last4 != "1111" {
		t.Fatalf("charge with vault = %+v, %v", tx, err)
	}
	again, err := s.Charge(ctx, gateway.AuthRequest{IdempotencyKey: "v2", Amount: 50, Currency: "USD", Token: tx.Method.Token})
	if err != nil || again.Method.Token != tx.Method.Token {
		t.Fatalf("charge of the vaulted method = %+v, %v", again, err)
	}
	if _, err := s.Charge(ctx, gateway.AuthRequest{IdempotencyKey: "v3", Amount: 50, Token: "pm_nope"}); !isDeclined(err, domain.FailInvalidMethod) {
		t.Errorf("unknown method = %v", err)
	}
	m, err := s.UpdatePaymentMethod(ctx, tx.Method.Token, gateway.MethodDetails{CardholderName: "Bessie Coleman"})
	if err != nil || m.CardholderName != "Bessie Coleman" || m.Card.Last4 != "1111" {
		t.Errorf("update = %+v, %v", m, err)
	}
	if got, err := s.GetPaymentMethod(ctx, tx.Method.Token); err != nil || got != m {
		t.Errorf("get = %+v, %v", got, err)
	}
}

func TestCaptureVoidRefund(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSandbox(t, time.Now)
	auth := func(key string) gateway.Transaction {
		n, _ := s.Tokenize(ctx, card(gateway.CardMastercardOK))
		tx, err := s.Authorize(ctx, gateway.AuthRequest{IdempotencyKey: key, Amount: 1000, Currency: "EUR", Nonce: n.Nonce})
		if err != nil || tx.Captured {
			t.Fatalf("authorize = %+v, %v", tx, err)
		}
		return tx
	}
	a := auth("a")
	if tx, err := s.Capture(ctx, a.ID); err != nil || !tx.Captured {
		t.Fatalf("capture = %+v, %v", tx, err)
	}
	r1, err := s.Refund(ctx, a.ID, 600, "k1")
	if r2, _ := s.Refund(ctx, a.ID, 600, "k1"); err != nil || r1 == "" || r2 != r1 {
		t.Fatalf("refund and replay = %s %s, %v", r1, r2, err)
	}
	if _, err := s.Refund(ctx, a.ID, 401, "k2"); errs.CodeOf(err) != errs.Precondition {
		t.Errorf("refund above what is left = %v", err)
	}
	if _, err := s.Refund(ctx, a.ID, 400, "k3"); err != nil {
		t.Errorf("refund of the rest = %v", err)
	}
	b := auth("b")
	if _, err := s.Void(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Capture(ctx, b.ID); errs.CodeOf(err) != errs.Precondition {
		t.Errorf("capture of a voided transaction = %v", err)
	}
	if _, err := s.Void(ctx, "tx_nope"); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("void of an unknown transaction = %v", err)
	}
}

func TestConcurrentConsumersOfOneNonce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newSandbox(t, time.Now)
	n, _ := s.Tokenize(ctx, card(gateway.CardVisaOK))
	var wg sync.WaitGroup
	results := make(chan error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Charge(ctx, gateway.AuthRequest{IdempotencyKey: fmt.Sprint("c", i), Amount: 1, Currency: "USD", Nonce: n.Nonce})
			results <- err
		}()
	}
	wg.Wait()
	close(results)
	ok, reused := 0, 0
	for err := range results {
		switch {
		case err == nil:
			ok++
		case isDeclined(err, domain.FailInvalidNonce):
			reused++
		default:
			t.Error(err)
		}
	}
	if ok != 1 || reused != 19 {
		t.Errorf("%d succeeded, %d refused; want 1 and 19", ok, reused)
	}
}

func isDeclined(err error, code string) bool {
	d, ok := gateway.AsDeclined(err)
	return ok && d.Code == code
}

// A keyed vault is once-only at the processor: when payments lost the first answer (it
// died after the sandbox committed) and asks again with the key, the sandbox answers the
// same method, or the same declined verification, instead of refusing the spent nonce.
func TestKeyedVaultReplays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}
	s := newSandbox(t, clk.now)
	n, err := s.Tokenize(ctx, card(gateway.CardVisaOK))
	if err != nil {
		t.Fatal(err)
	}
	req := gateway.VaultRequest{IdempotencyKey: "vlt_1", Nonce: n.Nonce, CustomerID: "c1", Verify: true}
	first, err := s.Vault(ctx, req)
	if err != nil || first.Token == "" {
		t.Fatalf("vault = %v, %v", first, err)
	}
	again, err := s.Vault(ctx, req)
	if err != nil || again.Token != first.Token || again.Card.Last4 != "1111" {
		t.Fatalf("keyed retry = %v, %v; want %s", again, err, first.Token)
	}
	if _, err := s.Vault(ctx, gateway.VaultRequest{Nonce: n.Nonce, CustomerID: "c1", Verify: true}); !isDeclined(err, domain.FailInvalidNonce) {
		t.Errorf("the spent nonce without the key = %v, want invalid_nonce", err)
	}

	d, err := s.Tokenize(ctx, card(gateway.CardDecline))
	if err != nil {
		t.Fatal(err)
	}
	dreq := gateway.VaultRequest{IdempotencyKey: "vlt_2", Nonce: d.Nonce, CustomerID: "c1", Verify: true}
	for i := range 2 {
		_, err := s.Vault(ctx, dreq)
		if dd, ok := gateway.AsDeclined(err); !ok || dd.Code != domain.FailDeclined || dd.Message != "Processor declined the verification: Do Not Honor" {
			t.Errorf("declined verification, attempt %d = %v", i+1, err)
		}
	}
}
