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

	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
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
	var codes []string
	rows, _ := st.checkoutDB.Query(t.Context(), `SELECT code FROM gift_certificates WHERE order_id = $1 ORDER BY initial_in_cents DESC`, m["invoiceId"])
	for rows.Next() {
		var c string
		_ = rows.Scan(&c)
		codes = append(codes, c)
	}
	rows.Close()
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM outbox WHERE topic = $1`, events.TopicGiftCertificateIssued); n != 2 {
		t.Errorf("%d gift-certificate-issued events in the outbox, want 2", n)
	}
	msg := st.relayAndRead(t, events.TopicGiftCertificateIssued)
	var ev eventsv1.GiftCertificateIssued
	if err := proto.Unmarshal(msg.Value, &ev); err != nil || ev.GetBuyerEmail() != buyer || ev.GetRecipientEmail() != "friend@example.com" ||
		ev.GetRecipientName() != "Bessie Coleman" || ev.GetMessage() != "Happy flying" ||
		(ev.GetCode() != codes[0] && ev.GetCode() != codes[1]) || ev.GetBalance().GetCurrency() != "USD" {
		t.Errorf("event %v %v (codes %v)", &ev, err, codes)
	}
	if masked := certs[0].(map[string]any)["maskedCode"].(string); strings.Contains(masked, codes[0][:4]) && strings.Count(masked, "•") != 12 {
		t.Errorf("masked code %q shows the code", masked)
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

// A one-off cart: staff create it, a logged-in buyer pays it with a card; anonymous
// buyers are asked to log in; the saved-card path needs the ZIP.
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
	if code, m := post(t, st.base+"/buy/api/oneoff/submit", "oneoff-anon", cfg("n"), ""); code != 401 || m["requireLogin"] != true {
		t.Errorf("anonymous one-off submit: %d %v", code, m)
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
