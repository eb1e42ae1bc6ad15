package app_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strconv"
	"testing"

	"google.golang.org/grpc/metadata"

	paymentsv1 "github.com/hangar/hangar/gen/go/hangar/payments/v1"
	"github.com/hangar/hangar/internal/devhuman"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/human"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// withVerifier answers the settings of human verification against the development
// verifier's siteverify (its real secret and token rule), served on a port of the test's.
func withVerifier(t *testing.T, extra map[string]string) map[string]string {
	t.Helper()
	srv := httptest.NewServer(devhuman.Handler())
	t.Cleanup(srv.Close)
	vars := map[string]string{"PAYMENTS_RECAPTCHA_REQUIRED": "true", "PAYMENTS_RECAPTCHA_SECRET": devhuman.Secret,
		"PAYMENTS_RECAPTCHA_URL": srv.URL + devhuman.SiteverifyPath}
	for k, v := range extra {
		vars[k] = v
	}
	return vars
}

// The audit's card checker (issue 41): a script updated a free account's payment method
// card after card with no human verification. With human verification on, the update of a
// card asks for the widget's value before the processor sees the card (the nonce stays
// usable), a forged value is refused, and a ticked one goes on; switching to invoice
// billing verifies no card and asks for nothing.
func TestPaymentMethodUpdateAsksForHumanVerification(t *testing.T) {
	t.Parallel()
	r := start(t, withVerifier(t, nil))
	nonce := r.tokenize(t, gateway.CardVisaOK)
	update := func(value string) (int, map[string]any) {
		return r.do(t, "POST", "/account/api/subscription/payment-method", "pilot-token", map[string]string{"accountId": "acct-pilot",
			"nonce": nonce, "zipcode": "94105", "cardholderName": "Amelia Earhart", "country": "US", "paymentMethod": "CREDIT_CARD",
			"recaptchaValue": value})
	}
	if code, body := update(""); code != 200 || body["status"] != "failed" || fmt.Sprint(body["errors"]) != "["+human.MsgRequired+"]" {
		t.Fatalf("update without the value = %d %v, want failed asking for human verification", code, body)
	}
	if n := r.count(t, `SELECT count(*) FROM sandbox_vaults`); n != 0 {
		t.Fatalf("the processor vaulted %d cards for an update that was not verified", n)
	}
	if code, body := update("made-up-by-a-script"); code != 200 || body["status"] != "failed" || fmt.Sprint(body["errors"]) != "["+human.MsgUnavailable+"]" {
		t.Fatalf("update with a refused value = %d %v", code, body)
	}
	if code, body := update(devhuman.Token()); code != 200 || body["status"] != "succeeded" {
		t.Fatalf("update with a ticked widget = %d %v", code, body)
	}
	if code, body := r.do(t, "POST", "/account/api/subscription/payment-method", "pilot-token", map[string]string{
		"accountId": "acct-pilot", "paymentMethod": "INVOICE"}); code != 200 || body["status"] != "succeeded" {
		t.Errorf("switch to invoice billing = %d %v, want no human verification asked", code, body)
	}
}

// The card reader's vault is a card verification too: with human verification on, the
// request for a card names the field it lacks, and a ticked widget starts it.
func TestCardReaderVaultAsksForHumanVerification(t *testing.T) {
	t.Parallel()
	r := start(t, withVerifier(t, nil))
	req := map[string]string{"email": "buyer@example.com", "readerSerialNumber": "RDR-0001"}
	code, body := r.do(t, "POST", "/buy/api/card-reader/vault", "admin-token", req)
	if code != 400 || body["message"] != human.MsgRequired || fmt.Sprint(body["fieldErrors"]) != "[map[field:recaptchaValue message:"+human.MsgRequired+"]]" {
		t.Fatalf("reader vault without the value = %d %v, want 400 asking for human verification", code, body)
	}
	req["recaptchaValue"] = devhuman.Token()
	if code, body := r.do(t, "POST", "/buy/api/card-reader/vault", "admin-token", req); code != 200 || body["contextId"] == "" {
		t.Fatalf("reader vault with a ticked widget = %d %v", code, body)
	}
}

// chargeAs charges as checkout does for the client it forwards: addr, session, and the
// extra metadata pairs (a device, the human-verification mark).
func (r *running) chargeAs(addr, session, key, nonce string, kv ...string) (*paymentsv1.ChargeResponse, error) {
	ctx := metadata.AppendToOutgoingContext(context.Background(), append([]string{"x-hangar-client-addr", addr,
		"x-hangar-client-session", auth.SessionRef(session)}, kv...)...)
	return r.rpc.Charge(ctx, &paymentsv1.ChargeRequest{IdempotencyKey: key, Amount: 2500, Currency: "USD", Nonce: nonce,
		CustomerId: key + "@example.com", CustomerEmail: key + "@example.com", Reference: "gift-" + key})
}

// Past the decline limit a card payment asks for human verification first and is refused
// only after that (issue 41): behind one busy address (a NAT of many buyers) the attempts
// that passed checkout's human verification go on to PAYMENTS_VELOCITY_HUMAN_DECLINES,
// while attempts without it stop at PAYMENTS_VELOCITY_DECLINES; tokenisation serves the
// verified buyers until the last limit.
func TestVerifiedCardAttemptsGoOnPastTheDeclineLimit(t *testing.T) {
	t.Parallel()
	const hard = threshold + 3
	r := start(t, map[string]string{"TRUSTED_PROXIES": "1", "PAYMENTS_VELOCITY_HUMAN_DECLINES": strconv.Itoa(hard)})
	const nat = "203.0.113.80"
	verified := []string{"x-hangar-client-human", "1"}
	for i := range threshold {
		_, _, n := r.tokenizeFrom(t, nat, gateway.CardDecline)
		resp, err := r.chargeAs(nat, "buyer-"+strconv.Itoa(i), "nat-"+strconv.Itoa(i), n["nonce"].(string), verified...)
		if err != nil || resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_FAILED {
			t.Fatalf("verified attempt %d = %v %v, want a decline", i, resp, err)
		}
	}
	// At the first limit: an attempt without human verification is refused...
	code, _, ok := r.tokenizeFrom(t, nat, gateway.CardVisaOK)
	if code != 200 {
		t.Fatalf("tokenize for a verified buyer at the first limit = %d, want 200", code)
	}
	_, err := r.chargeAs(nat, "unverified", "nat-unverified", ok["nonce"].(string))
	throttled(t, "an unverified charge past the first limit", err)
	// ...and a verified one goes on, to the last limit.
	resp, err := r.chargeAs(nat, "verified-buyer", "nat-verified", ok["nonce"].(string), verified...)
	if err != nil || resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
		t.Fatalf("a verified buyer behind the address = %v %v, want paid", resp, err)
	}
	for i := threshold; i < hard; i++ {
		_, _, n := r.tokenizeFrom(t, nat, gateway.CardDecline)
		resp, err := r.chargeAs(nat, "buyer-"+strconv.Itoa(i), "nat-"+strconv.Itoa(i), n["nonce"].(string), verified...)
		if err != nil || resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_FAILED {
			t.Fatalf("verified attempt %d = %v %v, want a decline", i, resp, err)
		}
	}
	_, _, n := r.tokenizeFrom(t, "198.51.100.81", gateway.CardVisaOK)
	_, err = r.chargeAs(nat, "buyer-last", "nat-last", n["nonce"].(string), verified...)
	throttled(t, "a verified charge past the last limit", err)
	if code, _, _ := r.tokenizeFrom(t, nat, gateway.CardVisaOK); code != 429 {
		t.Errorf("tokenize past the last limit = %d, want 429", code)
	}
}

// Declines count against the device too (issue 41): a tester who changes address and
// session with each card but keeps its browser (the device cookie identity set) is stopped
// at the limit by its device; another device from the same addresses pays.
func TestDeclinesCountAgainstTheDevice(t *testing.T) {
	t.Parallel()
	r := start(t, map[string]string{"TRUSTED_PROXIES": "1"})
	device := []string{"x-hangar-client-device", "device-ref-of-the-testers-browser"}
	for i := range threshold {
		addr := fmt.Sprintf("192.0.2.%d", 40+i)
		_, _, n := r.tokenizeFrom(t, addr, gateway.CardDecline)
		resp, err := r.chargeAs(addr, "tester-session-"+strconv.Itoa(i), "dev-"+strconv.Itoa(i), n["nonce"].(string), device...)
		if err != nil || resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_FAILED {
			t.Fatalf("attempt %d = %v %v, want a decline", i, resp, err)
		}
	}
	_, _, n := r.tokenizeFrom(t, "192.0.2.60", gateway.CardVisaOK)
	_, err := r.chargeAs("192.0.2.60", "tester-session-new", "dev-late", n["nonce"].(string), device...)
	throttled(t, "the device's charge past the limit", err)
	resp, err := r.chargeAs("192.0.2.60", "another-browser", "dev-other", n["nonce"].(string),
		"x-hangar-client-device", "device-ref-of-another-browser")
	if err != nil || resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
		t.Errorf("another device = %v %v, want paid", resp, err)
	}
}
