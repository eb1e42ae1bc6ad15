package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/events"
)

// post sends a purchase submit with an Idempotency-Key and answers status and body.
func post(t *testing.T, url, key, body, cookie string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	xsrf := xsrfFor(cookie) // a session's own token when the cookie carries one
	req.Header.Set("Cookie", strings.TrimSuffix("XSRF-TOKEN="+xsrf+"; "+cookie, "; "))
	req.Header.Set("X-XSRF-TOKEN", xsrf)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Errorf("%s: %d %s", url, resp.StatusCode, b)
	}
	return resp.StatusCode, m
}

// Buying gift certificates: one charge, one certificate per value with a fresh code, an
// event per certificate with the code, a receipt; a retry with the same key answers the
// same order; the code then pays part of a USD subscription and is refused in EUR.
func TestGiftSubmitIssuesCertificates(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	buyer := fmt.Sprintf("gift-%d@buyer.test", time.Now().UnixNano())
	body := func(nonce string) string {
		return `{"giftCertValues":[370,"40"],"email":"` + buyer + `","zipcode":"97201","country":"US","currency":"USD",
			"cardholderName":"Amelia Earhart","nonce":"` + nonce + `","recipient":{"email":" friend@example.com","name":"  Bessie   Coleman ","message":"Happy flying"}}`
	}
	// The form's messages first: nothing is charged.
	code, m := post(t, st.base+"/buy/api/gift/submit", "gift-bad", `{"giftCertValues":[],"email":"x"}`, "")
	if code != 400 || m["status"] != "fail" || len(strs(m["errors"])) != 6 {
		t.Errorf("empty form: %d %v", code, m)
	}
	if code, m := post(t, st.base+"/buy/api/gift/submit", "", body("n"), ""); code != 400 || m["code"] != "invalid_argument" {
		t.Errorf("no key: %d %v", code, m)
	}

	nonce := st.tokenize(t, "4111111111111111")
	var wg sync.WaitGroup
	answers := make([]map[string]any, 5)
	for i := range answers { // the same key five times at once: one order
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, answers[i] = post(t, st.base+"/buy/api/gift/submit", "gift-key-1", body(nonce), "")
		}()
	}
	wg.Wait()
	m = answers[0]
	inv, _ := m["invoice"].(map[string]any)
	if m["status"] != "ok" || m["invoiceId"] == "" || inv["totalInCents"] != float64(41000) || !strings.HasPrefix(m["redirectUrl"].(string), "/buy/success?invoiceId=") {
		t.Fatalf("gift submit: %v", m)
	}
	for _, a := range answers[1:] {
		if a["invoiceId"] != m["invoiceId"] {
			t.Errorf("same key answered another order: %v vs %v", a["invoiceId"], m["invoiceId"])
		}
	}
	certs, _ := m["certificates"].([]any)
	if len(certs) != 2 {
		t.Fatalf("certificates %v", m["certificates"])
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM gift_certificates WHERE order_id = $1 AND recipient_name = 'Bessie Coleman'
		AND recipient_email = 'friend@example.com'`, m["invoiceId"]); n != 2 {
		t.Errorf("%d certificates stored for the recipient, want 2", n)
	}
	if c := certs[0].(map[string]any); c["recipientName"] != "Bessie Coleman" || c["recipientEmail"] != "friend@example.com" {
		t.Errorf("certificate answer %v", c)
	}
	long := strings.Replace(body("n"), "  Bessie   Coleman ", strings.Repeat("B", 101), 1)
	if code, m := post(t, st.base+"/buy/api/gift/submit", "gift-long-name", long, ""); code != 400 || !contains(strs(m["errors"]), "The recipient's name must be at most 100 characters.") {
		t.Errorf("a 101-character recipient name: %d %v", code, m)
	}
	if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges WHERE amount = 41000`); n != 1 {
		t.Errorf("%d charges of 410.00, want 1", n)
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM outbox WHERE topic = $1`, events.TopicGiftCertificateIssued); n != 2 {
		t.Errorf("%d gift-certificate-issued events in the outbox, want 2", n)
	}
	// The codes travel only in the events (the e-mails): codes[0] the $370, codes[1] the $40.
	codes := make([]string, 2)
	for _, ev := range st.relayAndReadAll(t, events.TopicGiftCertificateIssued, 2) {
		if ev.GetBuyerEmail() != buyer || ev.GetRecipientEmail() != "friend@example.com" || ev.GetRecipientName() != "Bessie Coleman" ||
			ev.GetMessage() != "Happy flying" || ev.GetBalance().GetCurrency() != "USD" || ev.GetCode() == "" {
			t.Errorf("event %v", ev)
		}
		if ev.GetBalance().GetAmountInCents() == 37000 {
			codes[0] = ev.GetCode()
		} else {
			codes[1] = ev.GetCode()
		}
	}
	for _, c := range certs {
		if masked := c.(map[string]any)["maskedCode"].(string); strings.Count(masked, "•") != 12 ||
			(!strings.HasSuffix(codes[0], masked[len(masked)-4:]) && !strings.HasSuffix(codes[1], masked[len(masked)-4:])) {
			t.Errorf("masked code %q shows more than the last four of %v", masked, codes)
		}
	}
	// Issue 41: a certificate is stored by the hash of its code; no column of any row holds
	// the code (before: gift_certificates.code, and the ledger and invoice lines of the
	// orders it paid).
	for _, c := range codes {
		if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM gift_certificates g WHERE position($1 in g::text) > 0`, c); n != 0 {
			t.Errorf("%d certificates store the code %s in plain text", n, c)
		}
	}

	// The $370 certificate pays part of a new buyer's order (redeemed by its hash): the
	// balance drops, and the order's lines, ledger and priced purchase name it only masked
	// or hashed.
	paid := strings.Replace(newBuyer("gift-pays"), `"currency":"USD"`, `"currency":"USD","giftCertificateCode":["`+strings.ToLower(codes[0])+`"]`, 1)
	code, o, _ := submitRaw(t, st.base, "gift-pays-1", quoted(t, st.base, paid, st.tokenize(t, "4111111111111111"), ""), "")
	if code != 200 || o["invoiceId"] == nil {
		t.Fatalf("an order paid in part by the certificate: %d %v", code, o)
	}
	if n := st.count(t, st.checkoutDB, `SELECT balance_in_cents FROM gift_certificates WHERE code_hash = sha256(convert_to($1, 'UTF8'))`, codes[0]); n != 0 {
		t.Errorf("the $370 certificate's balance after paying = %d, want 0", n)
	}
	for table, q := range map[string]string{
		"invoice_lines":     `SELECT count(*) FROM invoice_lines x WHERE position($1 in x::text) > 0`,
		"balance_movements": `SELECT count(*) FROM balance_movements x WHERE position($1 in x::text) > 0`,
		"submissions":       `SELECT count(*) FROM submissions x WHERE position($1 in x::text) > 0`,
		"orders":            `SELECT count(*) FROM orders x WHERE position($1 in x::text) > 0`,
		"gift_certificates": `SELECT count(*) FROM gift_certificates x WHERE position($1 in x::text) > 0`,
	} {
		if n := st.count(t, st.checkoutDB, q, codes[0]); n != 0 {
			t.Errorf("%d rows of %s hold the redeemed code in plain text", n, table)
		}
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM balance_movements m JOIN gift_certificates g ON g.id::text = m.ref
		WHERE m.kind = 'gift' AND m.invoice_id = $1 AND m.amount_in_cents = -37000`, o["invoiceId"]); n != 1 {
		t.Errorf("ledger movements of the certificate = %d, want 1 naming it by id", n)
	}

	// The $40 certificate pays part of a USD subscription, and is refused in EUR.
	usd := `{"email":"` + buyer + `","currency":"USD","addOns":["performance","included_geo_us"],"giftCertificateCode":["` + strings.ToLower(codes[1]) + `"]}`
	_, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", usd)
	if pi := pv["invoice"].(map[string]any); pi["giftCertificateCreditInCents"] != float64(4000) || len(strs(pi["errors"])) != 0 {
		t.Errorf("USD preview with the certificate: %v", pi)
	}
	eur := strings.Replace(usd, `"currency":"USD"`, `"currency":"EUR"`, 1)
	_, pv = call(t, "POST", st.base+"/buy/api/invoice/preview", eur)
	if errs := strs(pv["invoice"].(map[string]any)["errors"]); len(errs) != 1 || errs[0] != "The currency for that gift card does not match the currency you have selected." {
		t.Errorf("EUR preview with a USD certificate: %v", errs)
	}
}

// A one-off cart: staff create it, a logged-in buyer pays it with a card; the saved-card
// path needs the ZIP (a guest's purchase: oneoff_guest_test.go).
func TestOneOffSubmit(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	staff := login(t, st.idBase, "employee@demo.hangar.test")
	_, c := call(t, "POST", st.base+"/buy/api/cart-create",
		`{"requestJson":{"selectedProducts":[{"code":"oneoff_chartpack_us_vfr","quantity":1},{"code":"oneoff_dbcard_garmin_sd","quantity":2}],"applyTax":true,"currency":"USD"}}`, "Cookie", staff)
	cartID, _ := c["uuid"].(string)
	if cartID == "" {
		t.Fatalf("cart-create: %v", c)
	}
	cfg := func(nonce string) string {
		return `{"configuration":{"cartId":"` + cartID + `","currency":"USD","billingInfo":{"zipcode":"97201","country":"US"},
			"items":[{"code":"oneoff_chartpack_us_vfr","quantity":3}],"cardholderName":"Amelia Earhart"},"nonce":"` + nonce + `"}`
	}
	pilot := login(t, st.idBase, "pilot@demo.hangar.test")
	saved := `{"configuration":{"cartId":"` + cartID + `","currency":"USD"},"useSavedCard":true,"paymentMethodToken":"x"}`
	if code, m := post(t, st.base+"/buy/api/oneoff/submit", "oneoff-saved", saved, pilot); code != 400 || !contains(strs(m["errors"]), "Please enter your zipcode") {
		t.Errorf("saved card without ZIP: %d %v", code, m)
	}
	nonce := st.tokenize(t, "4111111111111111")
	code, m := post(t, st.base+"/buy/api/oneoff/submit", "oneoff-1", cfg(nonce), pilot)
	inv, _ := m["invoice"].(map[string]any)
	// 3 × 89 + 2 × 49 = 365.00; Oregon has no sales tax.
	if code != 200 || m["status"] != "ok" || inv["totalInCents"] != float64(36500) || m["invoiceId"] == "" {
		t.Fatalf("one-off submit: %d %v", code, m)
	}
	if again, m2 := post(t, st.base+"/buy/api/oneoff/submit", "oneoff-1", cfg(nonce), pilot); again != 200 || m2["invoiceId"] != m["invoiceId"] {
		t.Errorf("retry: %d %v", again, m2)
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM outbox WHERE topic = $1`, events.TopicOrderCompleted); n != 1 {
		t.Errorf("%d order-completed events, want 1", n)
	}
	code, r := call(t, "GET", st.base+"/buy/api/receipt/"+m["invoiceId"].(string), "", "Cookie", pilot)
	if code != 200 || r["invoiceId"] != m["invoiceId"] {
		t.Errorf("receipt: %d %v", code, r)
	}
	declined := st.tokenize(t, "4000000000000002")
	if code, m := post(t, st.base+"/buy/api/oneoff/submit", "oneoff-2", cfg(declined), pilot); code != 402 || m["reason"] != "PAYMENT_DECLINED" {
		t.Errorf("declined card: %d %v", code, m)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
