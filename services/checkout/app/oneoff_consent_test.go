package app_test

import (
	"net/http"
	"testing"

	"github.com/hangar/hangar/internal/platform/events"
)

// msgEuConsent is the message /buy's submit refuses an order without the EU consent with.
const msgEuConsent = "Please give your consent to the processing of your data to continue."

// The one-off preview says whether the EU consent is required, by /buy's rule (a European
// billing country, 'eu' too, or a known EU customer), and submit refuses the order without
// it with /buy's message; with the consent the order is paid.
func TestOneOffEuConsentThroughTheGateway(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	staff := login(t, st.idBase, "employee@demo.hangar.test")
	_, c := call(t, "POST", st.base+"/buy/api/cart-create",
		`{"requestJson":{"selectedProducts":[{"code":"oneoff_chartpack_us_vfr","quantity":1}],"applyTax":true,"currency":"EUR"}}`, "Cookie", staff)
	cartID, _ := c["uuid"].(string)
	if cartID == "" {
		t.Fatalf("cart-create: %v", c)
	}
	for _, tc := range []struct {
		name, extra string
		want        bool
	}{
		{"US", `"billingInfo":{"country":"US"}`, false},
		{"no country", `"billingInfo":{}`, false},
		{"Germany", `"billingInfo":{"country":"DE"}`, true},
		{"'eu'", `"billingInfo":{"country":"eu"}`, true},
		{"EU customer in the US", `"billingInfo":{"country":"US"},"isEuCustomer":true`, true},
	} {
		code, m := call(t, "POST", st.base+"/buy/api/oneoff/preview", `{"cartId":"`+cartID+`","currency":"EUR",`+tc.extra+`}`)
		if code != http.StatusOK || m["euConsentRequired"] != tc.want {
			t.Errorf("%s: preview %d euConsentRequired=%v, want %v", tc.name, code, m["euConsentRequired"], tc.want)
		}
	}

	pilot := login(t, st.idBase, "pilot@demo.hangar.test")
	cfg := func(nonce, consent string) string {
		return `{"configuration":{"cartId":"` + cartID + `","currency":"EUR","billingInfo":{"zipcode":"10115","country":"DE"},
			"cardholderName":"Amelia Earhart"` + consent + `},"nonce":"` + nonce + `"}`
	}
	nonce := st.tokenize(t, "4111111111111111")
	code, m := post(t, st.base+"/buy/api/oneoff/submit", "oneoff-no-consent", cfg(nonce, ""), pilot)
	if code != http.StatusBadRequest || !contains(strs(m["errors"]), msgEuConsent) {
		t.Errorf("submit without consent: %d %v", code, m)
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM outbox WHERE topic = $1`, events.TopicOrderCompleted); n != 0 {
		t.Errorf("%d order-completed events after a refused submit, want 0", n)
	}
	code, m = post(t, st.base+"/buy/api/oneoff/submit", "oneoff-consent", cfg(nonce, `,"isGdprCompliant":true`), pilot)
	if code != http.StatusOK || m["status"] != "ok" {
		t.Errorf("submit with consent: %d %v", code, m)
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM outbox WHERE topic = $1`, events.TopicOrderCompleted); n != 1 {
		t.Errorf("%d order-completed events after the paid order, want 1", n)
	}
}

// A preset cart created without a currency stores none (GET answers it empty), so the
// page can tell it from a staff choice of USD, which is kept.
func TestPresetCartWithoutCurrencyStoresNone(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	staff := login(t, st.idBase, "employee@demo.hangar.test")
	for _, tc := range []struct{ sent, want string }{{``, ""}, {`,"currency":""`, ""}, {`,"currency":"USD"`, "USD"}, {`,"currency":"cad"`, "CAD"}} {
		_, c := call(t, "POST", st.base+"/buy/api/cart-create",
			`{"requestJson":{"selectedProducts":[{"code":"oneoff_chartpack_us_vfr","quantity":1}]`+tc.sent+`}}`, "Cookie", staff)
		id, _ := c["uuid"].(string)
		if id == "" {
			t.Fatalf("cart-create %s: %v", tc.sent, c)
		}
		code, m := call(t, "GET", st.base+"/buy/api/cart/"+id, "")
		req, _ := m["requestJson"].(map[string]any)
		got, _ := req["currency"].(string)
		if code != http.StatusOK || got != tc.want {
			t.Errorf("cart created with %q: GET %d currency %q, want %q (%v)", tc.sent, code, got, tc.want, m)
		}
		// Without a currency from the page either, the preview prices in the default.
		if _, pv := call(t, "POST", st.base+"/buy/api/oneoff/preview", `{"cartId":"`+id+`"}`); tc.want == "" && pv["currency"] != "USD" {
			t.Errorf("preview of a cart without currency: %v", pv["currency"])
		}
	}
}
