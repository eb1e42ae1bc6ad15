package app_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	paymentsv1 "github.com/hangar/hangar/gen/go/hangar/payments/v1"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/services/payments/app"
	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

func (r *running) vault(t *testing.T, req *paymentsv1.VaultPaymentMethodRequest) *paymentsv1.VaultPaymentMethodResponse {
	t.Helper()
	resp, err := r.rpc.VaultPaymentMethod(context.Background(), req)
	if err != nil {
		t.Fatalf("VaultPaymentMethod(%s) = %v", req.GetIdempotencyKey(), err)
	}
	return resp
}

// methodOnFile answers the account's payment-method route as staff see it (without the
// token, which only the owner is answered), with the profile's token added to compare.
func (r *running) methodOnFile(t *testing.T, account string) map[string]any {
	t.Helper()
	code, body := r.do(t, "GET", "/buy/api/subscription/payment-method/"+account, "admin-token", nil)
	if code != 200 {
		t.Fatalf("payment method of %s = %d %v", account, code, body)
	}
	pm, _ := body["paymentMethod"].(map[string]any)
	if pm == nil {
		return nil
	}
	if pm["token"] != nil {
		t.Errorf("staff are answered the token of %s's method", account)
	}
	p, err := r.rpc.GetBillingProfile(context.Background(), &paymentsv1.GetBillingProfileRequest{AccountId: account})
	if err != nil {
		t.Fatal(err)
	}
	pm["token"] = p.GetProfile().GetPaymentMethodToken()
	return pm
}

func TestVaultPaymentMethod(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	ctx := context.Background()
	req := &paymentsv1.VaultPaymentMethodRequest{IdempotencyKey: "zero-1", CustomerId: "acct-zero", Nonce: r.tokenize(t, gateway.CardVisaOK),
		CardholderName: "Amelia Earhart", PostalCode: "97201", Country: "US", Reference: "order-zero-1"}
	first := r.vault(t, req)
	token := first.GetPaymentMethod().GetToken()
	if first.GetStatus() != paymentsv1.VaultStatus_VAULT_STATUS_VAULTED || token == "" || first.GetPaymentMethod().GetLast4() != "1111" || first.GetReplayed() {
		t.Fatalf("vault = %v", first)
	}

	t.Run("the same key and body replays; another body is a conflict", func(t *testing.T) {
		again := r.vault(t, req)
		if !again.GetReplayed() || again.GetPaymentMethod().GetToken() != token || again.GetStatus() != paymentsv1.VaultStatus_VAULT_STATUS_VAULTED {
			t.Fatalf("replay = %v", again)
		}
		other := proto.Clone(req).(*paymentsv1.VaultPaymentMethodRequest)
		other.PostalCode = "10001"
		if _, err := r.rpc.VaultPaymentMethod(ctx, other); status.Code(err) != codes.Aborted {
			t.Fatalf("same key, different request = %v, want aborted (409)", err)
		}
	})

	t.Run("the vaulted card is on file and a later charge (the renewal) takes it", func(t *testing.T) {
		if pm := r.methodOnFile(t, "acct-zero"); pm["token"] != token || pm["last4"] != "1111" {
			t.Fatalf("method on file = %v, want %s", pm, token)
		}
		resp, err := r.rpc.Charge(ctx, &paymentsv1.ChargeRequest{IdempotencyKey: "renewal-1", Amount: 47000, Currency: "USD",
			PaymentMethodToken: token, CustomerId: "acct-zero"})
		if err != nil || resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
			t.Fatalf("renewal charge = %v, %v", resp, err)
		}
		// The vault is checkout's order's: the order writes the card on its subscription, so
		// payments does not echo it back as a payment-method update.
		rows := pgxQuery(t, r.dbURL, `SELECT payload FROM outbox WHERE topic = $1 AND key = $2`, []any{events.TopicPaymentMethodUpdated, []byte("acct-zero")})
		if len(rows) != 0 {
			t.Fatalf("%d payment-method-updated events for the order's vault, want none", len(rows))
		}
	})

	t.Run("a declined verification is a declined vault, replayed as such", func(t *testing.T) {
		d := &paymentsv1.VaultPaymentMethodRequest{IdempotencyKey: "zero-2", CustomerId: "acct-declined", Nonce: r.tokenize(t, gateway.CardDecline)}
		for i := range 2 {
			resp := r.vault(t, d)
			if resp.GetStatus() != paymentsv1.VaultStatus_VAULT_STATUS_DECLINED || resp.GetFailureCode() != "declined" ||
				resp.GetFailureMessage() != domain.MsgCardDeclined || resp.GetPaymentMethod() != nil ||
				resp.GetReplayed() != (i == 1) {
				t.Errorf("attempt %d = %v", i+1, resp)
			}
		}
		if pm := r.methodOnFile(t, "acct-declined"); pm != nil {
			t.Errorf("a declined card is on file: %v", pm)
		}
		if n := pgxQuery(t, r.dbURL, `SELECT count(*) FROM payment_methods WHERE customer_id = 'acct-declined'`, nil)[0][0].(int64); n != 0 {
			t.Errorf("%d methods stored for the declined card", n)
		}
	})

	t.Run("30 concurrent requests with one key vault once", func(t *testing.T) {
		c := &paymentsv1.VaultPaymentMethodRequest{IdempotencyKey: "zero-burst", CustomerId: "acct-burst", Nonce: r.tokenize(t, gateway.CardAmexOK)}
		var wg sync.WaitGroup
		tokens := make(chan string, 30)
		errc := make(chan error, 30)
		for range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := r.rpc.VaultPaymentMethod(ctx, c)
				if err != nil {
					errc <- err
					return
				}
				if resp.GetStatus() != paymentsv1.VaultStatus_VAULT_STATUS_VAULTED {
					errc <- fmt.Errorf("status %s %s", resp.GetStatus(), resp.GetFailureMessage())
				}
				tokens <- resp.GetPaymentMethod().GetToken()
			}()
		}
		wg.Wait()
		close(tokens)
		close(errc)
		for err := range errc {
			t.Error(err)
		}
		seen := map[string]bool{}
		for tk := range tokens {
			seen[tk] = true
		}
		n := pgxQuery(t, r.dbURL, `SELECT count(*) FROM vaults WHERE idempotency_key = 'zero-burst'`, nil)[0][0].(int64)
		m := pgxQuery(t, r.dbURL, `SELECT count(*) FROM sandbox_methods WHERE customer_id = 'acct-burst'`, nil)[0][0].(int64)
		if len(seen) != 1 || n != 1 || m != 1 {
			t.Errorf("%d distinct tokens, %d vault rows, %d processor methods; want 1, 1, 1", len(seen), n, m)
		}
	})

	t.Run("a method on file is replaced only when asked, never a quarterly check payer's", func(t *testing.T) {
		mc := r.vault(t, &paymentsv1.VaultPaymentMethodRequest{IdempotencyKey: "zero-3", CustomerId: "acct-zero", Nonce: r.tokenize(t, gateway.CardMastercardOK)})
		if pm := r.methodOnFile(t, "acct-zero"); pm["token"] != token {
			t.Errorf("without make_default the card on file changed to %v", pm)
		}
		r.vault(t, &paymentsv1.VaultPaymentMethodRequest{IdempotencyKey: "zero-4", CustomerId: "acct-zero", Nonce: r.tokenize(t, gateway.CardMastercardOK), MakeDefault: true})
		if pm := r.methodOnFile(t, "acct-zero"); pm["token"] != mc.GetPaymentMethod().GetToken() || pm["last4"] != "4444" {
			t.Errorf("with make_default the card on file = %v, want the Mastercard", pm)
		}
		r.vault(t, &paymentsv1.VaultPaymentMethodRequest{IdempotencyKey: "zero-5", CustomerId: app.DevQuarterlyCheckAccount, Nonce: r.tokenize(t, gateway.CardVisaOK), MakeDefault: true})
		_, body := r.do(t, "GET", "/buy/api/subscription/payment-method/"+app.DevQuarterlyCheckAccount, "admin-token", nil)
		if body["paymentMethodType"] != "CHECK" || body["paymentMethod"] != nil || !strings.Contains(fmt.Sprint(body["errors"]), "contact sales") {
			t.Errorf("quarterly check payer after a vault = %v", body)
		}
	})

	t.Run("bad requests are field errors", func(t *testing.T) {
		_, err := r.rpc.VaultPaymentMethod(ctx, &paymentsv1.VaultPaymentMethodRequest{IdempotencyKey: "zero-6", CustomerId: "acct-zero"})
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("no nonce = %v", err)
		}
	})
}

// A new buyer's card that paid an order (a charge that vaulted it) is the account's card
// on file: the payment-method route shows it and the renewal can charge it. A buyer who
// has a card on file keeps it unless the charge asks (make_default).
func TestChargedCardBecomesTheMethodOnFile(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	ctx := context.Background()
	charge := func(key, number string, makeDefault bool) *paymentsv1.Charge {
		resp, err := r.rpc.Charge(ctx, &paymentsv1.ChargeRequest{IdempotencyKey: key, Amount: 47000, Currency: "USD",
			Nonce: r.tokenize(t, number), CustomerId: "acct-buyer", StoreInVault: true, MakeDefault: makeDefault})
		if err != nil || resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
			t.Fatalf("charge %s = %v, %v", key, resp, err)
		}
		return resp.GetCharge()
	}
	if pm := r.methodOnFile(t, "acct-buyer"); pm != nil {
		t.Fatalf("a new buyer has a card on file: %v", pm)
	}
	first := charge("order-1", gateway.CardVisaOK, false)
	pm := r.methodOnFile(t, "acct-buyer")
	if pm["token"] != first.GetPaymentMethod().GetToken() || pm["last4"] != "1111" || pm["type"] != "Visa" {
		t.Fatalf("card on file after the first order = %v, want %s", pm, first.GetPaymentMethod().GetToken())
	}
	charge("order-2", gateway.CardMastercardOK, false)
	if pm := r.methodOnFile(t, "acct-buyer"); pm["last4"] != "1111" {
		t.Errorf("a second card without make_default replaced the card on file: %v", pm)
	}
	third := charge("order-3", gateway.CardAmexOK, true)
	if pm := r.methodOnFile(t, "acct-buyer"); pm["token"] != third.GetPaymentMethod().GetToken() {
		t.Errorf("make_default: card on file = %v, want the Amex", pm)
	}
	// The orders' cards are written on their subscriptions by checkout's orders: none is
	// echoed back as a payment-method update (that event is for methods changed elsewhere).
	if rows := pgxQuery(t, r.dbURL, `SELECT count(*) FROM outbox WHERE topic = $1 AND key = $2`,
		[]any{events.TopicPaymentMethodUpdated, []byte("acct-buyer")}); rows[0][0].(int64) != 0 {
		t.Errorf("%d payment-method-updated events for the orders' own cards, want none", rows[0][0])
	}
	resp, err := r.rpc.Charge(ctx, &paymentsv1.ChargeRequest{IdempotencyKey: "renewal", Amount: 47000, Currency: "USD",
		PaymentMethodToken: third.GetPaymentMethod().GetToken(), CustomerId: "acct-buyer"})
	if err != nil || resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
		t.Errorf("renewal with the card on file = %v, %v", resp, err)
	}

	t.Run("a wallet that paid is a PAYPAL method on file; a quarterly check payer keeps paying by check", func(t *testing.T) {
		_, w := r.postFields(t, "/api/tokenize", map[string]string{"flow": "vault", "walletEmail": "payer@example.com"})
		resp, err := r.rpc.Charge(ctx, &paymentsv1.ChargeRequest{IdempotencyKey: "wallet-order", Amount: 47000, Currency: "USD",
			Nonce: w["nonce"].(string), CustomerId: "acct-wallet", StoreInVault: true})
		if err != nil || resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
			t.Fatalf("wallet charge = %v, %v", resp, err)
		}
		_, body := r.do(t, "GET", "/buy/api/subscription/payment-method/acct-wallet", "admin-token", nil)
		if pm, _ := body["paymentMethod"].(map[string]any); body["paymentMethodType"] != "PAYPAL" || pm["braintreeEmail"] != "payer@example.com" {
			t.Errorf("after a wallet charge = %v", body)
		}
		resp, err = r.rpc.Charge(ctx, &paymentsv1.ChargeRequest{IdempotencyKey: "check-payer-order", Amount: 47000, Currency: "USD",
			Nonce: r.tokenize(t, gateway.CardVisaOK), CustomerId: app.DevQuarterlyCheckAccount, StoreInVault: true, MakeDefault: true})
		if err != nil || resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
			t.Fatalf("check payer's charge = %v, %v", resp, err)
		}
		_, body = r.do(t, "GET", "/buy/api/subscription/payment-method/"+app.DevQuarterlyCheckAccount, "admin-token", nil)
		if body["paymentMethodType"] != "CHECK" || body["paymentMethod"] != nil {
			t.Errorf("quarterly check payer after a charge with make_default = %v", body)
		}
	})
}
