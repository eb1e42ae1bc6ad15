package gateway_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func card(n string) domain.CardInput {
	cvv := "123"
	if len(n) == 15 {
		cvv = "1234"
	}
	return domain.CardInput{Number: n, CVV: cvv, ExpirationDate: "12/2030"}
}

func TestTestCardOutcomes(t *testing.T) {
	ctx := context.Background()
	clk := &clock{time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}
	s := gateway.NewSandbox([]byte("k"), 3*time.Hour, clk.now)
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
	ctx := context.Background()
	clk := &clock{time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}
	s := gateway.NewSandbox([]byte("k"), 3*time.Hour, clk.now)
	n, _ := s.Tokenize(ctx, card(gateway.CardVisaOK))
	if _, err := s.Charge(ctx, gateway.AuthRequest{IdempotencyKey: "a", Amount: 1, Nonce: n.Nonce}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Charge(ctx, gateway.AuthRequest{IdempotencyKey: "b", Amount: 1, Nonce: n.Nonce})
	if d, ok := gateway.AsDeclined(err); !ok || d.Code != domain.FailInvalidNonce {
		t.Errorf("reused nonce: %v", err)
	}
	n2, _ := s.Tokenize(ctx, card(gateway.CardVisaOK))
	clk.t = clk.t.Add(3*time.Hour - time.Second)
	n3, _ := s.Tokenize(ctx, card(gateway.CardVisaOK))
	if _, err := s.Vault(ctx, gateway.VaultRequest{Nonce: n2.Nonce, CustomerID: "c"}); err != nil {
		t.Errorf("nonce just before expiry: %v", err)
	}
	clk.t = clk.t.Add(3 * time.Hour)
	_, err = s.Vault(ctx, gateway.VaultRequest{Nonce: n3.Nonce, CustomerID: "c"})
	if d, ok := gateway.AsDeclined(err); !ok || d.Code != domain.FailNonceExpired {
		t.Errorf("expired nonce: %v", err)
	}
}

func TestTimeoutResolvesOnRetry(t *testing.T) {
	ctx := context.Background()
	s := gateway.NewSandbox([]byte("k"), 3*time.Hour, time.Now)
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
	ctx := context.Background()
	s := gateway.NewSandbox([]byte("k"), 3*time.Hour, time.Now)
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
