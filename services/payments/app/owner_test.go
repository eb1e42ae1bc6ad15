package app_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	paymentsv1 "github.com/hangar/hangar/gen/go/hangar/payments/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// as answers ctx carrying session's token as another service forwards it (none when empty).
func as(session string) context.Context {
	if session == "" {
		return context.Background()
	}
	return metadata.AppendToOutgoingContext(context.Background(), auth.SessionMetadata, session)
}

// count answers a single count(*) of payments' database.
func (r *running) count(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	return pgxQuery(t, r.dbURL, sql, args)[0][0].(int64)
}

// storedMethod puts a card on file for account through the account route as session (the
// account itself or its organization's owner) and answers its token.
func (r *running) storedMethod(t *testing.T, session, account, number string) string {
	t.Helper()
	code, body := r.do(t, "POST", "/account/api/subscription/payment-method", session, map[string]string{"accountId": account,
		"nonce": r.tokenize(t, number), "zipcode": "94105", "cardholderName": "Card Owner", "country": "US", "paymentMethod": "CREDIT_CARD"})
	pm, _ := body["paymentMethod"].(map[string]any)
	token, _ := pm["token"].(string)
	if code != 200 || body["status"] != "succeeded" || token == "" {
		t.Fatalf("card on file of %s = %d %v", account, code, body)
	}
	return token
}

// A stored method pays only for its owner (issue 26): the audit charged the demo pilot's
// stored card for a stranger's order, and a card the sales-mode reader vaulted for one
// customer for another's. Charge and VaultPaymentMethod now refuse anyone else's method
// with permission_denied before anything is written or sent to the processor.
func TestStoredMethodPaysOnlyForItsOwner(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	pilotCard := r.storedMethod(t, "pilot-token", "acct-pilot", gateway.CardVisaOK)
	acmeCard := r.storedMethod(t, "acme-owner-token", "acct-acme", gateway.CardMastercardOK)
	n := 0
	charge := func(session, customer, email, token string) (*paymentsv1.Charge, error) {
		n++
		resp, err := r.rpc.Charge(as(session), &paymentsv1.ChargeRequest{IdempotencyKey: "owner-" + strconv.Itoa(n),
			Amount: 19999, Currency: "USD", PaymentMethodToken: token, CustomerId: customer, CustomerEmail: email, Reference: "order"})
		return resp.GetCharge(), err
	}
	refused := func(t *testing.T, who string, c *paymentsv1.Charge, err error) {
		t.Helper()
		if status.Code(err) != codes.PermissionDenied || status.Convert(err).Message() != "This stored payment method cannot be used for this purchase." {
			t.Errorf("%s: charge = %v, %v; want permission denied", who, c, err)
		}
	}
	paid := func(t *testing.T, who string, c *paymentsv1.Charge, err error) {
		t.Helper()
		if err != nil || c.GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
			t.Errorf("%s: charge = %v, %v; want captured", who, c, err)
		}
	}

	t.Run("anyone else's use is refused and nothing is charged", func(t *testing.T) {
		charges, txs := r.count(t, `SELECT count(*) FROM charges`), r.count(t, `SELECT count(*) FROM sandbox_transactions`)
		for _, c := range []struct{ who, session, customer, token string }{
			{"a stranger without a session, for their new account", "", "acct-stranger", pilotCard},
			{"another customer, for their own account", "other-token", "acct-other", pilotCard},
			{"a member of another organization", "acme-member-token", "acct-acme-member", pilotCard},
			{"a plain member of the card's organization", "acme-member-token", "acct-acme-member", acmeCard},
			{"a plain member, for the organization's account", "acme-member-token", "acct-acme", acmeCard},
			{"an employee, for their own account", "employee-token", "staff-0002", pilotCard},
			{"an employee, for the pilot's account", "employee-token", "acct-pilot", pilotCard},
			{"a card admin, for a customer", "admin-token", "acct-other", pilotCard},
			{"a card admin, for the pilot's account", "admin-token", "acct-pilot", pilotCard},
			{"the pilot, for someone else", "pilot-token", "acct-other", pilotCard},
			{"an unknown handle", "pilot-token", "acct-pilot", "pm_not_a_method"},
		} {
			got, err := charge(c.session, c.customer, "", c.token)
			refused(t, c.who, got, err)
		}
		if got := r.count(t, `SELECT count(*) FROM charges`); got != charges {
			t.Errorf("%d charges written by refused attempts", got-charges)
		}
		if got := r.count(t, `SELECT count(*) FROM sandbox_transactions`); got != txs {
			t.Errorf("%d processor transactions made by refused attempts", got-txs)
		}
		// A zero total pays with a stored method through a vault: the same rule.
		_, err := r.rpc.VaultPaymentMethod(context.Background(), &paymentsv1.VaultPaymentMethodRequest{IdempotencyKey: "owner-vault",
			CustomerId: "acct-stranger", PaymentMethodToken: pilotCard})
		refused(t, "a zero total of a stranger", nil, err)
		if got := r.count(t, `SELECT count(*) FROM vaults`); got != 0 {
			t.Errorf("%d vaults written by a refused attempt", got)
		}
		logs := r.logs.String()
		if !strings.Contains(logs, "stored payment method refused") || !strings.Contains(logs, "staff-0002") {
			t.Errorf("the refused attempts are not logged with the caller")
		}
		if strings.Contains(logs, pilotCard) {
			t.Errorf("a stored method's token is in the logs")
		}
	})

	t.Run("the owner, the organization's billing owner and the renewal engine pay", func(t *testing.T) {
		c, err := charge("pilot-token", "acct-pilot", "", pilotCard)
		paid(t, "the pilot", c, err)
		c, err = charge("", "acct-pilot", "", pilotCard)
		paid(t, "a renewal of the pilot (no session)", c, err)
		c, err = charge("acme-owner-token", "acct-acme", "", acmeCard)
		paid(t, "Acme's owner, for Acme", c, err)
		c, err = charge("acme-coowner-token", "acct-acme-coowner", "", acmeCard)
		paid(t, "another owner of Acme, with Acme's card", c, err)
		v, err := r.rpc.VaultPaymentMethod(as("pilot-token"), &paymentsv1.VaultPaymentMethodRequest{IdempotencyKey: "owner-vault-pilot",
			CustomerId: "acct-pilot", PaymentMethodToken: pilotCard, MakeDefault: true})
		if err != nil || v.GetStatus() != paymentsv1.VaultStatus_VAULT_STATUS_VAULTED || v.GetPaymentMethod().GetToken() != pilotCard {
			t.Errorf("a zero total of the pilot with his card: %v, %v", v, err)
		}
	})

	t.Run("the reader's card pays for the customer it was vaulted for, in the seller's sales mode", func(t *testing.T) {
		_, body := r.do(t, "POST", "/buy/api/card-reader/vault", "admin-token", map[string]string{"email": "buyer@example.com", "readerSerialNumber": "RDR-0001"})
		ctxID, _ := body["contextId"].(string)
		r.do(t, "POST", "/buy/api/card-reader/simulate", "", map[string]string{"readerSerialNumber": "RDR-0001",
			"number": gateway.CardAmexOK, "cvv": "7373", "expirationDate": "09/2031", "cardholderName": "Bea Buyer"})
		_, body = r.do(t, "GET", "/buy/api/card-reader/vault-result?contextId="+ctxID, "admin-token", nil)
		pm, _ := body["paymentMethod"].(map[string]any)
		reader, _ := pm["token"].(string)
		if reader == "" {
			t.Fatalf("reader result = %v", body)
		}
		c, err := charge("admin-token", "acct-second-customer", "second@example.com", reader)
		refused(t, "for another customer's order", c, err)
		c, err = charge("employee-token", "acct-buyer", "buyer@example.com", reader)
		refused(t, "by staff who did not vault it", c, err)
		c, err = charge("", "acct-buyer", "buyer@example.com", reader)
		refused(t, "without the seller's session", c, err)
		c, err = charge("admin-token", "acct-buyer", "Buyer@Example.com", reader)
		paid(t, "for the customer", c, err)
		// The card is now the customer's account's: its renewals charge it without a session.
		c, err = charge("", "acct-buyer", "", reader)
		paid(t, "the customer's renewal", c, err)
		// Sales mode lasts 24 hours: then the seller may no longer pay with it.
		r.clock.add(25 * time.Hour)
		c, err = charge("admin-token", "acct-buyer", "buyer@example.com", reader)
		refused(t, "after sales mode", c, err)
	})

	t.Run("staff see the card, never a token to pay with", func(t *testing.T) {
		for _, session := range []string{"admin-token", "employee-token"} {
			code, body := r.do(t, "GET", "/buy/api/subscription/payment-method/acct-pilot", session, nil)
			pm, _ := body["paymentMethod"].(map[string]any)
			if code != 200 || pm["last4"] != "1111" || pm["type"] != "Visa" || pm["expirationDate"] != "12/2031" || pm["token"] != nil {
				t.Errorf("%s reads the pilot's method: %d %v", session, code, body)
			}
		}
		_, body := r.do(t, "GET", "/buy/api/subscription/payment-method/acct-pilot", "pilot-token", nil)
		if pm, _ := body["paymentMethod"].(map[string]any); pm["token"] != pilotCard {
			t.Errorf("the pilot reads his method: %v", body)
		}
		_, body = r.do(t, "GET", "/buy/api/subscription/payment-method/acct-acme", "acme-owner-token", nil)
		if pm, _ := body["paymentMethod"].(map[string]any); pm["token"] != acmeCard {
			t.Errorf("Acme's owner reads Acme's method: %v", body)
		}
		// A card staff put on file for a customer is answered without its token too.
		code, body := r.do(t, "POST", "/buy/api/subscription/update-payment-method", "admin-token", map[string]string{"accountId": "acct-other",
			"nonce": r.tokenize(t, gateway.CardVisaOK), "zipcode": "94105", "cardholderName": "Other", "country": "US", "paymentMethod": "CREDIT_CARD"})
		if pm, _ := body["paymentMethod"].(map[string]any); code != 200 || body["status"] != "succeeded" || pm["last4"] != "1111" || pm["token"] != nil {
			t.Errorf("staff's update answers %d %v", code, body)
		}
	})
}
