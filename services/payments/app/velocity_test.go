package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	paymentsv1 "github.com/hangar/hangar/gen/go/hangar/payments/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/services/payments/app"
	iapp "github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// threshold is the default card-testing rule (PAYMENTS_VELOCITY_DECLINES): the tests run
// with the real one.
const threshold = 5

// tokenizeFrom posts card fields to the fields origin as a browser at addr (behind one
// trusted proxy, which appends its peer).
func (r *running) tokenizeFrom(t *testing.T, addr, number string) (int, http.Header, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"number": number, "cvv": cvvOf(number), "expirationDate": "12/2031",
		"cardholderName": "Card Tester", "postalCode": "94105"})
	req, _ := http.NewRequest("POST", r.fields+"/api/tokenize", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", r.fieldsOrigin)
	req.Header.Set("X-Forwarded-For", addr)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := map[string]any{}
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, resp.Header, out
}

// chargeFrom charges as checkout does for a buyer at addr with session (the client it
// forwards: auth.OutgoingClient).
func (r *running) chargeFrom(addr, session, key, nonce, email string) (*paymentsv1.ChargeResponse, error) {
	ctx := metadata.AppendToOutgoingContext(context.Background(), "x-hangar-client-addr", addr,
		"x-hangar-client-session", auth.SessionRef(session))
	return r.rpc.Charge(ctx, &paymentsv1.ChargeRequest{IdempotencyKey: key, Amount: 2500, Currency: "USD", Nonce: nonce,
		CustomerId: email, CustomerEmail: email, Reference: "gift-" + key})
}

// throttled asserts err is a 429 naming its wait.
func throttled(t *testing.T, what string, err error) {
	t.Helper()
	st, _ := status.FromError(err)
	if st.Code() != codes.ResourceExhausted {
		t.Fatalf("%s = %v, want resource_exhausted", what, err)
	}
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok && ri.GetRetryDelay().AsDuration() > 0 {
			return
		}
	}
	t.Fatalf("%s: no retry delay in %v", what, st.Details())
}

// The audit's card tester (issue 26): one anonymous client ran 16 gift orders of $25 with
// 6 cards, a fresh session each, 12 declined, never slowed. Now the declines of one address
// stop its card attempts within the threshold — tokenize answers 429 with Retry-After and a
// charge is refused before the processor is asked — while buyers elsewhere pay.
func TestCardTesterStoppedWithinTheThreshold(t *testing.T) {
	t.Parallel()
	r := start(t, map[string]string{"TRUSTED_PROXIES": "1"})
	const tester = "203.0.113.7"
	cards := []string{gateway.CardDecline, gateway.CardInsufficientFunds, gateway.CardExpired, gateway.CardCVVFailure}
	attempts, declined := 0, 0
	for i := range 16 {
		number := cards[i%len(cards)]
		code, hdr, body := r.tokenizeFrom(t, tester, number)
		if code == http.StatusTooManyRequests {
			if hdr.Get("Retry-After") == "" {
				t.Fatalf("attempt %d: 429 without Retry-After", i)
			}
			if s := fmt.Sprint(body); strings.Contains(s, "Do Not Honor") || strings.Contains(s, "Insufficient") {
				t.Fatalf("a refused attempt tells why a card failed: %v", body)
			}
			break
		}
		if code != 200 {
			t.Fatalf("tokenize %d = %d %v", i, code, body)
		}
		attempts++
		resp, err := r.chargeFrom(tester, "fresh-session-"+strconv.Itoa(i), "tester-"+strconv.Itoa(i), body["nonce"].(string),
			fmt.Sprintf("tester%d@example.com", i))
		if err != nil {
			throttled(t, "charge "+strconv.Itoa(i), err)
			break
		}
		if resp.GetCharge().GetStatus() == paymentsv1.ChargeStatus_CHARGE_STATUS_FAILED {
			declined++
		}
	}
	if declined != threshold || attempts > threshold {
		t.Fatalf("the tester made %d attempts, %d declined; want the %d-th decline to be the last", attempts, declined, threshold)
	}
	processed := r.count(t, `SELECT count(*) FROM sandbox_transactions`)

	// A nonce the tester got elsewhere does not help: the charge itself is refused and
	// nothing reaches the processor or the charges.
	_, _, ok := r.tokenizeFrom(t, "198.51.100.20", gateway.CardVisaOK)
	_, err := r.chargeFrom(tester, "yet-another-session", "tester-late", ok["nonce"].(string), "late@example.com")
	throttled(t, "charge past the threshold", err)
	if n := r.count(t, `SELECT count(*) FROM charges WHERE idempotency_key = 'tester-late'`); n != 0 {
		t.Errorf("a refused charge left %d rows", n)
	}
	if n := r.count(t, `SELECT count(*) FROM sandbox_transactions`); n != processed {
		t.Errorf("the processor saw %d more transactions", n-processed)
	}

	// A buyer at another address (IPv6 too) is not affected.
	for _, addr := range []string{"198.51.100.9", "2001:db8:1:2::5"} {
		code, _, body := r.tokenizeFrom(t, addr, gateway.CardVisaOK)
		if code != 200 {
			t.Fatalf("buyer at %s: tokenize = %d %v", addr, code, body)
		}
		resp, err := r.chargeFrom(addr, "buyer-session-"+addr, "buyer-"+addr, body["nonce"].(string), "buyer@example.com")
		if err != nil || resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
			t.Fatalf("buyer at %s: charge = %v %v", addr, resp, err)
		}
	}
	// The decline metric counts the attempts by outcome (the tester's 5 declines and 2
	// refusals; the approvals include the dev seed's cards).
	metrics := r.scrape(t)
	for _, want := range []string{`hangar_payments_card_attempts_total{outcome="declined"} 5`, `hangar_payments_card_attempts_total{outcome="limited"} 2`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// An IPv6 client is one client by its /64: changing the interface identifier does not
// start a new count.
func TestCardTesterOnIPv6CountedByItsSlash64(t *testing.T) {
	t.Parallel()
	r := start(t, map[string]string{"TRUSTED_PROXIES": "1"})
	for i := range threshold {
		addr := fmt.Sprintf("2001:db8:aa:bb::%x", i+1)
		_, _, body := r.tokenizeFrom(t, addr, gateway.CardDecline)
		resp, err := r.chargeFrom(addr, "s"+strconv.Itoa(i), "v6-"+strconv.Itoa(i), body["nonce"].(string), fmt.Sprintf("v6-%d@example.com", i))
		if err != nil || resp.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_FAILED {
			t.Fatalf("decline %d = %v %v", i, resp, err)
		}
	}
	if code, hdr, _ := r.tokenizeFrom(t, "2001:db8:aa:bb:ffff::1", gateway.CardVisaOK); code != 429 || hdr.Get("Retry-After") == "" {
		t.Errorf("another address of the /64 = %d (Retry-After %q), want 429", code, hdr.Get("Retry-After"))
	}
	if code, _, _ := r.tokenizeFrom(t, "2001:db8:aa:bc::1", gateway.CardVisaOK); code != 200 {
		t.Errorf("the next /64 = %d, want 200", code)
	}
}

// updateFrom updates account's payment method through the account route as session at addr.
func (r *running) updateFrom(t *testing.T, addr, session, account, nonce string) (int, http.Header, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"accountId": account, "nonce": nonce, "zipcode": "94105", "cardholderName": "Card Tester",
		"country": "US", "paymentMethod": "CREDIT_CARD"})
	req, _ := http.NewRequest("POST", r.base+"/account/api/subscription/payment-method", bytes.NewReader(b))
	xsrf := auth.SessionXSRF(session)
	req.Header.Set("Cookie", auth.XSRFCookie+"="+xsrf+"; "+auth.SessionCookie+"="+session)
	req.Header.Set(auth.XSRFHeader, xsrf)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", addr)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := map[string]any{}
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, resp.Header, out
}

// The audit's free account learnt, for each card, whether it was good and why not from
// the payment-method update, as often as it liked. The update is a card verification: one
// account's declines through its own session (from any address) stop it, each decline
// answers one generic message (issue 41: it named "Do Not Honor", "Insufficient Funds",
// "Expired Card"), and past the limit it answers 429. Another account is not affected.
func TestPaymentMethodUpdateStopsTellingWhyCardsFail(t *testing.T) {
	t.Parallel()
	r := start(t, map[string]string{"TRUSTED_PROXIES": "1"})
	cards := []string{gateway.CardDecline, gateway.CardInsufficientFunds, gateway.CardExpired, gateway.CardCVVFailure}
	for i := range threshold {
		addr := fmt.Sprintf("192.0.2.%d", i+1) // a new address each time: the account counts
		_, _, n := r.tokenizeFrom(t, addr, cards[i%len(cards)])
		code, _, body := r.updateFrom(t, addr, "other-token", "acct-other", n["nonce"].(string))
		if code != 200 || body["status"] != "failed" || fmt.Sprint(body["errors"]) != "["+iapp.MsgCardNotVerified+"]" {
			t.Fatalf("verification %d = %d %v, want a failure with the generic message only", i, code, body)
		}
	}
	_, _, n := r.tokenizeFrom(t, "192.0.2.100", gateway.CardDecline)
	code, hdr, body := r.updateFrom(t, "192.0.2.100", "other-token", "acct-other", n["nonce"].(string))
	if code != 429 || hdr.Get("Retry-After") == "" {
		t.Fatalf("verification past the limit = %d %v (Retry-After %q), want 429", code, body, hdr.Get("Retry-After"))
	}
	// The pilot, elsewhere, still puts a card on file.
	_, _, n = r.tokenizeFrom(t, "198.51.100.30", gateway.CardMastercardOK)
	if code, _, body := r.updateFrom(t, "198.51.100.30", "pilot-token", "acct-pilot", n["nonce"].(string)); code != 200 || body["status"] != "succeeded" {
		t.Errorf("another account = %d %v", code, body)
	}
}

// scrape answers the admin port's metrics.
func (r *running) scrape(t *testing.T) string {
	t.Helper()
	resp, err := http.Get("http://" + r.admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// Issue 26: PAYMENTS_FINGERPRINT_KEY fell back to a fixed development key. Outside
// development mode payments now refuses to start without it, naming the variable.
//
//layercheck:serial it sets the process environment (t.Setenv), which Go allows only in a test that runs alone
func TestRefusesToStartWithoutItsKeyOutsideDevelopment(t *testing.T) {
	t.Setenv("HANGAR_DEV_MODE", "false")
	t.Setenv("PAYMENTS_FINGERPRINT_KEY", "")
	if _, err := app.LoadConfig(); err == nil || !strings.Contains(err.Error(), "PAYMENTS_FINGERPRINT_KEY") {
		t.Fatalf("LoadConfig = %v, want a refusal naming PAYMENTS_FINGERPRINT_KEY", err)
	}
	t.Setenv("PAYMENTS_FINGERPRINT_KEY", "a-production-key-from-a-secret")
	// Issue 31: the sales address named to buyers had a placeholder default too.
	t.Setenv("PAYMENTS_SALES_CONTACT", "")
	if _, err := app.LoadConfig(); err == nil || !strings.Contains(err.Error(), "PAYMENTS_SALES_CONTACT must be set") {
		t.Fatalf("LoadConfig without the sales address = %v, want a refusal naming PAYMENTS_SALES_CONTACT", err)
	}
	t.Setenv("PAYMENTS_SALES_CONTACT", "sales@hangar-avionics.ie")
	if c, err := app.LoadConfig(); err != nil || c.FingerprintKey != "a-production-key-from-a-secret" || c.SalesContact != "sales@hangar-avionics.ie" {
		t.Fatalf("LoadConfig with the key = %v", err)
	}
}

// The card reader's vault is a verification too: cards declined at the reader count
// against the seller who asked for them and the reader, and each decline answers one
// generic message (issue 41: it named the processor's reason, "Do Not Honor", "Insufficient
// Funds"); past the limit the reader is refused.
func TestCardReaderVaultCountsAsAVerification(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	cards := []string{gateway.CardDecline, gateway.CardInsufficientFunds, gateway.CardExpired}
	present := func(i int, number string) (int, map[string]any) {
		req := map[string]string{"email": fmt.Sprintf("walk-in-%d@example.com", i), "readerSerialNumber": "RDR-0001"}
		if code, body := r.do(t, "POST", "/buy/api/card-reader/vault", "admin-token", req); code != 200 {
			t.Fatalf("vault request %d = %d %v", i, code, body)
		}
		return r.do(t, "POST", "/buy/api/card-reader/simulate", "", map[string]string{"readerSerialNumber": "RDR-0001",
			"number": number, "cvv": cvvOf(number), "expirationDate": "0931", "cardholderName": "Walk In"})
	}
	for i := range threshold {
		code, body := present(i, cards[i%len(cards)])
		if code != 200 || body["status"] != "failed" || body["message"] != iapp.MsgCardNotVerified {
			t.Fatalf("declined card %d at the reader = %d %v, want the generic message", i, code, body)
		}
	}
	code, body := present(threshold, gateway.CardDecline)
	if code != 429 || strings.Contains(fmt.Sprint(body), "Do Not Honor") {
		t.Fatalf("past the limit = %d %v, want 429 without the card's failure", code, body)
	}
}
