package app_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/devhuman"
	"github.com/hangar/hangar/services/checkout/app"
)

// clientCalls answers checkout's outbound gRPC calls so far, by "client/method".
func (st *stack) clientCalls(t *testing.T) map[string]float64 {
	t.Helper()
	mfs, err := app.Metrics(st.app).Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "hangar_client_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			var client, method string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "client":
					client = l.GetValue()
				case "method":
					method = l.GetValue()
				}
			}
			out[client+"/"+method[strings.LastIndex(method, "/")+1:]] += m.GetCounter().GetValue()
		}
	}
	return out
}

// callsSince is what was called after before (nothing called: absent).
func callsSince(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

// One click is priced once (issue 43.5): the page no longer asks /validate before /submit,
// and submit prices in the quote's currency instead of asking geo where the buyer is a
// second time. What submit still asks other services is what the quote cannot prove or
// what the order does: identity creates the new buyer's account, payments charges.
func TestSubmitPricesOnceInTheQuotesCurrency(t *testing.T) {
	t.Parallel()
	st := startStack(t, map[string]string{"GEO_ADDR": startGeo(t), "CHECKOUT_REFRESH_INTERVAL": "1h", "CHECKOUT_RENEWAL_INTERVAL": "0"})
	// No currency: the preview takes the visitor's default (cookie, else geo, else USD).
	cfg := fmt.Sprintf(`{"email":"once-%d@buyer.test","addOns":["performance","included_geo_us","add_geo_eu"],"billingInfo":{"zipcode":"97201","country":"US"}}`,
		time.Now().UnixNano())
	before := st.clientCalls(t)
	body := quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), "")
	if got := callsSince(before, st.clientCalls(t)); got["geo/Locate"] != 1 {
		t.Fatalf("preview's calls %v: the test needs the preview to ask geo", got)
	}
	before = st.clientCalls(t)
	code, m, _ := submitRaw(t, st.base, "priced-once", body, "")
	if code != 200 || m["invoiceId"] == nil {
		t.Fatalf("submit: %d %v", code, m)
	}
	want := map[string]float64{"identity/ProvisionAccount": 1, "payments/Charge": 1}
	if got := callsSince(before, st.clientCalls(t)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("submit's gRPC calls %v, want %v (no geo: the quote names the currency)", got, want)
	}
	if inv, _ := m["invoice"].(map[string]any); inv["currency"] != "USD" {
		t.Errorf("invoice currency %v, want the quote's USD", m["invoice"])
	}
}

// A forged currency in the quote id prices another hash: refused as a changed quote, and
// nothing charged.
func TestSubmitRefusesAQuoteWithAnotherCurrency(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	cfg := fmt.Sprintf(`{"email":"forged-%d@buyer.test","addOns":["performance","included_geo_us"],"billingInfo":{"zipcode":"97201","country":"US"}}`,
		time.Now().UnixNano())
	body := quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), "")
	if !strings.Contains(body, "_USD_") {
		t.Fatalf("quote id without its currency: %s", body)
	}
	code, m, _ := submitRaw(t, st.base, "forged-currency", strings.Replace(body, "_USD_", "_EUR_", 1), "")
	if code != 409 || m["reason"] != "QUOTE_CHANGED" {
		t.Errorf("submit with the quote's currency changed: %d %v, want 409 QUOTE_CHANGED", code, m)
	}
}

// Without /validate before /submit, submit's refusal tells the page what validate did:
// the fresh preview (error codes such as MILITARY_ELIGIBILITY_REQUIRED, tail allocations,
// promotion notices) beside the messages.
func TestSubmitRefusalCarriesWhatValidateTold(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	cfg := fmt.Sprintf(`{"email":"civilian-%d@example.com","military":true,"addOns":["mfb_performance"],"billingInfo":{"zipcode":"97201","country":"US"}}`, time.Now().UnixNano())
	code, m, _ := submitRaw(t, st.base, "civilian-once", quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), ""), "")
	pv, _ := m["preview"].(map[string]any)
	if code != 400 || !slices.Contains(strs(pv["errorCodes"]), "MILITARY_ELIGIBILITY_REQUIRED") || pv["quoteId"] == "" {
		t.Errorf("refused military submit: %d %v, want 400 with the preview's MILITARY_ELIGIBILITY_REQUIRED", code, m)
	}
}

// A form refused for another reason does not spend the buyer's tick: reCAPTCHA answers a
// token once, and the page now learns of the form's problems from submit itself.
func TestSubmitVerifiesTheTickOnlyForAReadyOrder(t *testing.T) {
	t.Parallel()
	var asked atomic.Int64
	dev := devhuman.Handler()
	verifier := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == devhuman.SiteverifyPath {
			asked.Add(1)
		}
		dev.ServeHTTP(w, r)
	}))
	t.Cleanup(verifier.Close)
	st := startStack(t, map[string]string{
		"CHECKOUT_RECAPTCHA_REQUIRED": "true", "CHECKOUT_RECAPTCHA_SECRET": devhuman.Secret,
		"CHECKOUT_RECAPTCHA_URL": verifier.URL + devhuman.SiteverifyPath, "CHECKOUT_RECAPTCHA_SITE_KEY": devhuman.SiteKey,
		"CHECKOUT_RECAPTCHA_SCRIPT_URL": devhuman.ScriptPath,
	})
	tick := devhuman.Token()
	withTick := func(body string) string {
		return strings.Replace(body, `{`, `{"recaptchaValue":"`+tick+`",`, 1)
	}
	cfg := newBuyer("tick")
	code, m, _ := submitRaw(t, st.base, "tick-1", withTick(quoted(t, st.base, cfg, "", "")), "") // no card
	if code != 400 || !slices.Contains(strs(m["errors"]), "Credit Card cannot be blank") {
		t.Fatalf("submit without a card: %d %v", code, m)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the verifier was asked %d times for a form refused without it, want 0", n)
	}
	code, m, _ = submitRaw(t, st.base, "tick-2", withTick(quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), "")), "")
	if code != 200 || asked.Load() != 1 {
		t.Errorf("ready order: %d %v, verifier asked %d times, want 200 and once", code, m, asked.Load())
	}
}
