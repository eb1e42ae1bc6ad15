package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Issue 27: the sale keeps its own rules at submit (currency, eligibility, billing and
// tax) and the smaller findings of the audit (credit across stacked terms, auto-renew
// values, answers' fields, avionics, a plan's only region).

const (
	msgCurrencyNotAllowed = "Sorry, that currency is not allowed for your account."
	pilotConfig           = `"addOns":["performance","included_geo_us","add_geo_eu"],"billingInfo":{"zipcode":"94105","country":"US"}`
)

func listOf(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func TestSaleKeepsItsRulesAtSubmit(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	charges := func() int { return st.count(t, st.paymentsDB, `SELECT count(*) FROM charges`) }

	t.Run("an EUR switch after a USD purchase is refused at preview, validate and submit; nothing charged", func(t *testing.T) {
		pilot := login(t, st.idBase, "pilot@demo.hangar.test")
		usd := `{"currency":"USD",` + pilotConfig + `}`
		code, m, _ := submitRaw(t, st.base, "usd-then-eur-1", quoted(t, st.base, usd, st.tokenize(t, "4111111111111111"), pilot), pilot)
		if code != 200 {
			t.Fatalf("USD purchase: %d %v", code, m)
		}
		before := charges()
		eur := `{"currency":"EUR","addOns":["performance","included_geo_eu"],"billingInfo":{"zipcode":"10115","country":"DE"},"isGdprCompliant":true}`
		code, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", eur, "Cookie", pilot)
		if code != 200 || !contains(listOf(pv["errorCodes"]), "CURRENCY_NOT_ALLOWED_FOR_ACCOUNT") || !contains(listOf(pv["errors"]), msgCurrencyNotAllowed) {
			t.Errorf("EUR preview: %d errorCodes %v errors %v", code, pv["errorCodes"], pv["errors"])
		}
		for _, it := range items(pv) {
			if it["type"] == "SUBSCRIPTION_CREDIT" {
				t.Errorf("a USD credit crossed into EUR: %v", it)
			}
		}
		code, v := call(t, "POST", st.base+"/buy/api/invoice/validate", eur, "Cookie", pilot)
		if code != 200 || v["status"] != "fail" || !contains(listOf(v["errors"]), msgCurrencyNotAllowed) || !contains(listOf(v["errorCodes"]), "CURRENCY_NOT_ALLOWED_FOR_ACCOUNT") {
			t.Errorf("EUR validate: %d %v %v", code, v["status"], v["errors"])
		}
		body := quoted(t, st.base, strings.Replace(usd, `"USD"`, `"EUR"`, 1), st.tokenize(t, "4111111111111111"), pilot)
		code, m, _ = submitRaw(t, st.base, "usd-then-eur-2", body, pilot)
		if code != 400 || m["message"] != msgCurrencyNotAllowed || m["reason"] != "CURRENCY_NOT_ALLOWED_FOR_ACCOUNT" || m["code"] != "invalid_argument" {
			t.Errorf("EUR submit: %d %v", code, m)
		}
		if n := charges(); n != before {
			t.Errorf("%d charges after the refused EUR submit, want %d", n, before)
		}
		var cur string
		if err := st.checkoutDB.QueryRow(context.Background(), `SELECT currency FROM subscriptions WHERE account_id = $1`,
			"00000000-0000-4000-8000-000000000001").Scan(&cur); err != nil || cur != "USD" {
			t.Errorf("subscription currency %q (%v), want USD", cur, err)
		}
	})

	t.Run("an anonymous civilian is refused a military plan; nothing charged", func(t *testing.T) {
		before := charges()
		cfg := fmt.Sprintf(`{"email":"civilian-%d@example.com","military":true,"addOns":["mfb_performance"],"billingInfo":{"zipcode":"97201","country":"US"}}`, time.Now().UnixNano())
		code, v := call(t, "POST", st.base+"/buy/api/invoice/validate", cfg)
		if code != 200 || v["status"] != "fail" || !strings.Contains(strings.Join(listOf(v["errors"]), " "), "/buy/military") {
			t.Errorf("validate: %d %v %v", code, v["status"], v["errors"])
		}
		code, m, _ := submitRaw(t, st.base, "civilian-mfb", quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), ""), "")
		if code != 400 || !strings.Contains(fmt.Sprint(m["errors"]), "/buy/military") {
			t.Errorf("submit: %d %v", code, m)
		}
		if n := charges(); n != before {
			t.Errorf("%d charges, want %d", n, before)
		}
	})

	t.Run("an eligible pilot may buy a military plan", func(t *testing.T) {
		army := login(t, st.idBase, "pilot@army.mil")
		cfg := `{"military":true,"addOns":["mfb_performance"],"billingInfo":{"zipcode":"97201","country":"US"}}`
		code, v := call(t, "POST", st.base+"/buy/api/invoice/validate", cfg, "Cookie", army)
		if code != 200 || v["status"] != "ok" {
			t.Fatalf("validate: %d %v %v", code, v["status"], v["errors"])
		}
		code, m, _ := submitRaw(t, st.base, "army-mfb", quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), army), army)
		if code != 200 {
			t.Errorf("submit: %d %v", code, m)
		}
	})

	t.Run("allied military domains are eligible", func(t *testing.T) {
		for _, email := range []string{"a.pilot@forces.gc.ca", "a.pilot@defence.gov.au", "a.pilot@mod.uk"} {
			code, m := call(t, "POST", st.idBase+"/buy/eligibility/military", `{"email":"`+email+`","subscription":"military_intl"}`)
			user, _ := m["user"].(map[string]any)
			if code != 200 || user["eligible"] != true {
				t.Errorf("%s: %d %v", email, code, m)
			}
		}
	})

	t.Run("the subscription submit needs the billing address, with the spec's words; nothing charged", func(t *testing.T) {
		before := charges()
		for name, tc := range map[string]struct {
			billing, holder string
			want            []string
		}{
			"blank ZIP":            {`"billingInfo":{"zipcode":"","country":"US"},`, "Amelia Earhart", []string{"Postal Code cannot be blank"}},
			"blank country":        {`"billingInfo":{"zipcode":"97201","country":""},`, "Amelia Earhart", []string{"Please select a country"}},
			"no billing info":      {``, "Amelia Earhart", []string{"Postal Code cannot be blank", "Please select a country"}},
			"a one-word name":      {`"billingInfo":{"zipcode":"97201","country":"US"},`, "Amelia", []string{"Please enter the cardholder's first and last name."}},
			"no cardholder's name": {`"billingInfo":{"zipcode":"97201","country":"US"},`, "", []string{"Name cannot be blank"}},
		} {
			cfg := fmt.Sprintf(`{%s"email":"billing-%d@buyer.test","currency":"USD","addOns":["performance","included_geo_us"]}`, tc.billing, time.Now().UnixNano())
			var b map[string]any
			_ = json.Unmarshal([]byte(quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), "")), &b)
			b["cardholderName"] = tc.holder
			raw, _ := json.Marshal(b)
			code, m, _ := submitRaw(t, st.base, "billing-"+name, string(raw), "")
			errs := listOf(m["errors"])
			for _, w := range tc.want {
				if code != 400 || !contains(errs, w) {
					t.Errorf("%s: %d %v, want %q", name, code, errs, w)
				}
			}
		}
		if n := charges(); n != before {
			t.Errorf("%d charges, want %d", n, before)
		}
	})

	t.Run("tax follows the billing address: 'eu' is Germany", func(t *testing.T) {
		cfg := fmt.Sprintf(`{"email":"eu-%d@buyer.test","currency":"EUR","addOns":["performance","included_geo_eu"],"billingInfo":{"zipcode":"10115","country":"eu"},"businessIdentificationNo":"DE123456789","isGdprCompliant":true}`, time.Now().UnixNano())
		code, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", cfg)
		inv, _ := pv["invoice"].(map[string]any)
		if code != 200 || !strings.Contains(fmt.Sprint(inv["taxJurisdiction"]), "DE") || inv["reverseCharge"] != true {
			t.Errorf("eu billing: %d jurisdiction %v reverse %v", code, inv["taxJurisdiction"], inv["reverseCharge"])
		}
	})
}

func TestCreditsAndSmallFixes(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	pilot := login(t, st.idBase, "pilot@demo.hangar.test")

	t.Run("a change after an early renewal credits every unused paid day, to the cent", func(t *testing.T) {
		// The seed: Premium + US + Europe, $470 paid, 143 days of 365 left. Renewing the same
		// add-ons early stacks a second paid year after them.
		same := `{"currency":"USD",` + pilotConfig + `}`
		code, m, _ := submitRaw(t, st.base, "early-renewal", quoted(t, st.base, same, st.tokenize(t, "4111111111111111"), pilot), pilot)
		if code != 200 {
			t.Fatalf("early renewal: %d %v", code, m)
		}
		change := `{"currency":"USD","addOns":["performance","included_geo_us"],"billingInfo":{"zipcode":"94105","country":"US"}}`
		code, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", change, "Cookie", pilot)
		inv, _ := pv["invoice"].(map[string]any)
		credit, _ := inv["creditInCents"].(float64)
		toAccount, _ := inv["creditToAccountInCents"].(float64)
		// 143 days of the first $470 year (47000 × 143 / 365 = 18413.69, rounded down) + the
		// whole second year (47000).
		if code != 200 || int64(credit+toAccount) != 18413+47000 {
			t.Errorf("credit %v + to account %v = %v, want %d", credit, toAccount, credit+toAccount, 18413+47000)
		}
	})

	t.Run("isAutoRenew takes true or false only", func(t *testing.T) {
		for _, v := range []string{"maybe", ""} {
			code, m := form(t, st.base+"/buy/api/subscription/auto-renew", "isAutoRenew="+v, pilot)
			if code != 400 || !strings.Contains(fmt.Sprint(m), "isAutoRenew") {
				t.Errorf("isAutoRenew=%q: %d %v", v, code, m)
			}
		}
		_, m := call(t, "GET", st.base+"/buy/api/subscription", "", "Cookie", pilot)
		sub, _ := m["subscription"].(map[string]any)
		if sub["autoRenew"] != true {
			t.Errorf("auto-renew turned off by a bad value: %v", sub["autoRenew"])
		}
		if code, m := form(t, st.base+"/buy/api/subscription/auto-renew?productCode=performance", "isAutoRenew=false", pilot); code != 200 || m["autoRenew"] != false {
			t.Errorf("isAutoRenew=false: %d %v", code, m)
		}
	})

	t.Run("addOnObjects carry licensingMethod", func(t *testing.T) {
		_, m := call(t, "GET", st.base+"/buy/api/subscription", "", "Cookie", pilot)
		sub, _ := m["subscription"].(map[string]any)
		objs, _ := sub["addOnObjects"].([]any)
		if len(objs) == 0 {
			t.Fatalf("no addOnObjects: %v", sub)
		}
		for _, o := range objs {
			if lm, _ := o.(map[string]any)["licensingMethod"].(string); lm == "" {
				t.Errorf("no licensingMethod: %v", o)
			}
		}
	})

	t.Run("the submit answer names every field of the spec, empty ones too", func(t *testing.T) {
		code, m, _ := submitRaw(t, st.base, "fields", quoted(t, st.base, newBuyer("fields"), st.tokenize(t, "4111111111111111"), ""), "")
		if code != 200 {
			t.Fatalf("submit: %d %v", code, m)
		}
		for _, f := range []string{"accountId", "redirectUrl", "extension", "mobileDeeplink", "invoice", "invoiceId", "googleConversionCodes"} {
			if _, ok := m[f]; !ok {
				t.Errorf("no %s in %v", f, m)
			}
		}
		_, g := call(t, "GET", st.idBase+"/org/api/groups", "", "Cookie", pilot)
		if _, ok := g["groups"]; !ok {
			t.Errorf("no groups in %v", g)
		}
		// The list is the card admins' (docs/authorization.md); the field is there for them.
		_, r := call(t, "GET", st.payBase+"/buy/api/card-reader/list", "", "Cookie", login(t, st.idBase, "cardadmin@demo.hangar.test"))
		if _, ok := r["serialNumbers"]; !ok {
			t.Errorf("no serialNumbers in %v", r)
		}
	})

	t.Run("GET /buy/api/subscription/avionics answers the subscription's avionics add-ons", func(t *testing.T) {
		if _, err := st.checkoutDB.Exec(context.Background(), `UPDATE subscriptions SET add_ons = add_ons || '{avionics_garmin_navdata_g1000}'
			WHERE account_id = '00000000-0000-4000-8000-000000000001'`); err != nil {
			t.Fatal(err)
		}
		code, m := call(t, "GET", st.base+"/buy/api/subscription/avionics", "", "Cookie", pilot)
		list, _ := m["avionics"].([]any)
		if code != 200 || len(list) != 1 || list[0].(map[string]any)["addOnCode"] != "avionics_garmin_navdata_g1000" {
			t.Errorf("avionics: %d %v", code, m)
		}
		if code, _ := call(t, "GET", st.base+"/buy/api/subscription/avionics", ""); code != 401 {
			t.Errorf("anonymous avionics: %d", code)
		}
	})

	t.Run("a plan whose only region is an added one includes it", func(t *testing.T) {
		code, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", `{"currency":"USD","addOns":["performance","add_geo_eu"],"billingInfo":{"zipcode":"97201","country":"US"}}`)
		inv, _ := pv["invoice"].(map[string]any)
		for _, it := range items(pv) {
			if it["addOnCode"] == "add_geo_eu" {
				t.Errorf("the only region charged: %v", it)
			}
		}
		if code != 200 || inv["subtotalInCents"] != float64(37000) || !contains(listOf(pv["addOns"]), "included_geo_eu") {
			t.Errorf("preview: %d subtotal %v addOns %v errors %v", code, inv["subtotalInCents"], pv["addOns"], pv["errors"])
		}
	})
}
