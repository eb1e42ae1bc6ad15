package app_test

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// giftCertificate gives the stack a gift certificate worth amount cents, to make orders
// whose total is zero.
func (st *stack) giftCertificate(t *testing.T, code string, amount int64) {
	t.Helper()
	// Stored as checkout stores it: the hash of the code, never the code.
	if _, err := st.checkoutDB.Exec(context.Background(), `INSERT INTO gift_certificates (code, code_hash, code_hint, currency, balance_in_cents)
		VALUES (upper(encode(sha256(convert_to($1, 'UTF8')), 'hex')), sha256(convert_to($1, 'UTF8')), '••••', 'USD', $2)`, code, amount); err != nil {
		t.Fatal(err)
	}
}

// zeroTotalBuyer is a new buyer's Premium + Europe paid in full by a gift certificate.
func zeroTotalBuyer(tag, gift string) string {
	return strings.Replace(newBuyer(tag), `"currency":"USD"`, `"currency":"USD","giftCertificateCode":["`+gift+`"]`, 1)
}

// vaultOf answers the vault payments stored under the submission's charge key.
func (st *stack) vaultOf(t *testing.T, key string) (status, token string) {
	t.Helper()
	var ck string
	if err := st.checkoutDB.QueryRow(context.Background(), `SELECT charge_key FROM submissions WHERE key LIKE $1 || '@%'`, key).Scan(&ck); err != nil {
		t.Fatalf("submission %s: %v", key, err)
	}
	if err := st.paymentsDB.QueryRow(context.Background(), `SELECT status, method_token FROM vaults WHERE idempotency_key = $1`, ck).
		Scan(&status, &token); err != nil {
		t.Fatalf("vault of %s: %v", key, err)
	}
	return status, token
}

// An order whose total is zero charges nothing but vaults the nonce (which is single-use)
// through payments' VaultPaymentMethod, and the subscription keeps the vaulted token: the
// renewal charges it. The card is the new buyer's card on file in payments.
func TestZeroTotalSubmitVaultsTheCard(t *testing.T) {
	t.Parallel()
	st := startStack(t, map[string]string{"CHECKOUT_RENEWAL_INTERVAL": "0"})
	ctx := context.Background()
	st.giftCertificate(t, "GIFT-ZERO-ONE", 100000)
	st.giftCertificate(t, "GIFT-ZERO-TWO", 100000)

	nonce := st.tokenize(t, "4111111111111111")
	body := quoted(t, st.base, zeroTotalBuyer("zero", "GIFT-ZERO-ONE"), nonce, "")
	code, m, _ := submitRaw(t, st.base, "zero-1", body, "")
	invoice, _ := m["invoiceId"].(string)
	if code != 200 || invoice == "" {
		t.Fatalf("submit: %d %v", code, m)
	}
	var total int64
	var account, token string
	if err := st.checkoutDB.QueryRow(ctx, `SELECT o.total_in_cents, o.account_id::text, s.payment_method_token FROM orders o
		JOIN subscriptions s ON s.last_invoice_id = o.invoice_id WHERE o.invoice_id = $1`, invoice).Scan(&total, &account, &token); err != nil {
		t.Fatal(err)
	}
	status, vaulted := st.vaultOf(t, "zero-1")
	if total != 0 || status != "vaulted" || token == "" || token != vaulted || token == nonce {
		t.Fatalf("total %d, vault %s %q, subscription token %q (nonce %q): want 0, the vaulted token on the subscription", total, status, vaulted, token, nonce)
	}
	if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges`); n != 0 {
		t.Errorf("%d charges for a zero total", n)
	}
	var onFile string
	if err := st.paymentsDB.QueryRow(ctx, `SELECT method_token FROM billing_profiles WHERE account_id = $1`, account).Scan(&onFile); err != nil || onFile != token {
		t.Errorf("card on file of the new buyer = %q (%v), want %q", onFile, err, token)
	}

	t.Run("the same submit replays the order and the vault", func(t *testing.T) {
		code, m, _ := submitRaw(t, st.base, "zero-1", body, "")
		if code != 200 || m["invoiceId"] != invoice {
			t.Errorf("replay: %d %v", code, m)
		}
		if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM vaults`); n != 1 {
			t.Errorf("%d vaults", n)
		}
	})

	t.Run("the renewal charges the vaulted card", func(t *testing.T) {
		// A year later: the term has ended.
		if _, err := st.checkoutDB.Exec(ctx, `UPDATE subscriptions SET term_end = now() - interval '1 minute' WHERE last_invoice_id = $1`, invoice); err != nil {
			t.Fatal(err)
		}
		res, err := st.app.Renewer().Run(ctx)
		if err != nil || res.Renewed != 1 || res.Declined != 0 {
			t.Fatalf("renewal pass = %+v, %v", res, err)
		}
		var amount int64
		if err := st.paymentsDB.QueryRow(ctx, `SELECT amount FROM charges WHERE method_token = $1 AND customer_id = $2 AND status = 'captured'`,
			token, account).Scan(&amount); err != nil || amount <= 0 {
			t.Errorf("renewal charge of the vaulted card: %d, %v", amount, err)
		}
	})

	t.Run("a declined verification answers 402 and writes nothing but the failed attempt", func(t *testing.T) {
		orders := st.count(t, st.checkoutDB, `SELECT count(*) FROM orders`)
		subs := st.count(t, st.checkoutDB, `SELECT count(*) FROM subscriptions`)
		body := quoted(t, st.base, zeroTotalBuyer("zero-decline", "GIFT-ZERO-TWO"), st.tokenize(t, "4000000000000002"), "")
		for i := range 2 { // the retry answers the same decline
			code, m, _ := submitRaw(t, st.base, "zero-2", body, "")
			// payments' words for the bank's refusal, not the processor's "Do Not Honor" (issue 45).
			if code != 402 || m["reason"] != "PAYMENT_DECLINED" || !strings.Contains(m["message"].(string), "Your bank declined this card") || strings.Contains(m["message"].(string), "Honor") {
				t.Errorf("attempt %d: %d %v", i+1, code, m)
			}
		}
		if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM orders`); n != orders {
			t.Errorf("an order was written for a declined verification")
		}
		if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM subscriptions`); n != subs {
			t.Errorf("a subscription was written for a declined verification")
		}
		if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM submissions WHERE key LIKE 'zero-2@%' AND status = 'declined'`); n != 1 {
			t.Errorf("the failed attempt is not recorded")
		}
		if n := st.count(t, st.checkoutDB, `SELECT balance_in_cents::int FROM gift_certificates WHERE code_hash = sha256('GIFT-ZERO-TWO')`); n != 100000 {
			t.Errorf("gift certificate debited to %d by a declined order", n)
		}
		if status, token := st.vaultOf(t, "zero-2"); status != "declined" || token != "" {
			t.Errorf("vault = %s %q", status, token)
		}
	})
}

// The process dies between the vault and the write of a zero-total order: the reconciler
// asks payments again with the key (the vault replays), and writes the order once, its
// subscription holding the vaulted card. No subscription is written before that.
func TestZeroTotalCrashBetweenVaultAndWrite(t *testing.T) {
	t.Parallel()
	st := startCrashingStack(t, map[string]string{"CHECKOUT_SUBMIT_LEASE": "1ns", "CHECKOUT_RENEWAL_INTERVAL": "0"},
		crashes{afterCharge: func(string) error { return errors.New("injected crash after vault") }})
	st.giftCertificate(t, "GIFT-ZERO-CRASH", 100000)

	body := quoted(t, st.base, zeroTotalBuyer("zero-crash", "GIFT-ZERO-CRASH"), st.tokenize(t, "4111111111111111"), "")
	if code, m, _ := submitRaw(t, st.base, "zero-crash", body, ""); code == 200 {
		t.Fatalf("the injected crash did not happen: %v", m)
	}
	status, token := st.vaultOf(t, "zero-crash")
	if status != "vaulted" || token == "" {
		t.Fatalf("vault before reconciling = %s %q", status, token)
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM orders`); n != 0 {
		t.Fatalf("%d orders before reconciling", n)
	}
	for range 2 {
		if _, err := st.app.Orders().Reconcile(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM orders o JOIN subscriptions s ON s.last_invoice_id = o.invoice_id
		WHERE o.total_in_cents = 0 AND s.payment_method_token = $1`, token); n != 1 {
		t.Errorf("%d zero-total orders with the vaulted card after reconciling, want 1", n)
	}
	if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM vaults`); n != 1 {
		t.Errorf("%d vaults (the reconciler's ask must replay the first)", n)
	}
	if code, m, _ := submitRaw(t, st.base, "zero-crash", body, ""); code != 200 || m["invoiceId"] == "" {
		t.Errorf("the key after reconciling: %d %v", code, m)
	}
}
