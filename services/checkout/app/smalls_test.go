package app_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestSmallerSaleFixes: issue 42 item 6, each through the public routes.
func TestSmallerSaleFixes(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	pilot := login(t, st.idBase, "pilot@demo.hangar.test")
	_, me := call(t, "GET", st.idBase+"/buy/api/me", "", "Cookie", pilot)
	pilotID, _ := me["accountUuid"].(string)

	t.Run("daysRemaining counts the days the credit pays (spec 000 §4)", func(t *testing.T) {
		code, m := call(t, "GET", st.base+"/buy/api/account/"+pilotID+"/subscription", "", "Cookie", pilot)
		sub, _ := m["subscription"].(map[string]any)
		if code != 200 || sub == nil {
			t.Fatalf("subscription: %d %v", code, m)
		}
		days := int(num(sub["daysRemaining"]))
		_, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", `{"addOns":["pro_plus","included_geo_us","add_geo_eu"]}`, "Cookie", pilot)
		credit := ""
		for _, it := range items(pv) {
			if it["type"] == "SUBSCRIPTION_CREDIT" {
				credit = fmt.Sprint(it["description"])
			}
		}
		if want := fmt.Sprintf("Credit for %d unused days of Premium", days); credit != want {
			t.Errorf("daysRemaining %d, credit line %q, want %q", days, credit, want)
		}
	})

	t.Run("auto-renew needs the productCode (spec 001 §7)", func(t *testing.T) {
		code, m := form(t, st.base+"/buy/api/subscription/auto-renew", "isAutoRenew=false", pilot)
		if code != 400 || !strings.Contains(fmt.Sprint(m["fieldErrors"]), "productCode") {
			t.Errorf("auto-renew without productCode: %d %v", code, m)
		}
		_, s := call(t, "GET", st.base+"/buy/api/subscription", "", "Cookie", pilot)
		if sub, _ := s["subscription"].(map[string]any); sub["autoRenew"] != true {
			t.Errorf("auto-renew changed by the refused request: %v", sub["autoRenew"])
		}
	})

	t.Run("legacy replacements keep their regions (spec 000 §4)", func(t *testing.T) {
		for _, tc := range []struct{ addOns, region string }{
			{`"hangar_mobile_three_month"`, "included_geo_us"},
			{`"pro_ca"`, "included_geo_ca"},
		} {
			_, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", newBuyerWith("legacy", tc.addOns), "X-Forwarded-For", "10.42.6.2")
			if errs := fmt.Sprint(pv["errors"]); strings.Contains(errs, "No region(s) selected.") || pv["legacyPlanReplaced"] != true {
				t.Errorf("%s: replaced %v, errors %s", tc.addOns, pv["legacyPlanReplaced"], errs)
			}
			if !strings.Contains(fmt.Sprint(pv["addOns"]), tc.region) {
				t.Errorf("%s: add-ons %v, want %s", tc.addOns, pv["addOns"], tc.region)
			}
		}
	})

	t.Run("a three-month line names its term once (spec 001 §4)", func(t *testing.T) {
		_, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", newBuyerWith("three", `"hangar_basic_plus_three_month","included_geo_us"`), "X-Forwarded-For", "10.42.6.1")
		var names []string
		for _, it := range items(pv) {
			names = append(names, fmt.Sprint(it["description"]))
			if d := fmt.Sprint(it["description"]); strings.Count(strings.ToLower(d), "month") > 1 {
				t.Errorf("line %q names its term twice", d)
			}
		}
		if len(names) == 0 || names[0] != "Starter — 3 Months" {
			t.Errorf("lines %v", names)
		}
	})
}

// newBuyerWith is a new buyer's configuration of the given add-ons (JSON strings).
func newBuyerWith(tag, addOns string) string {
	return strings.Replace(newBuyer(tag), `"addOns":["performance","included_geo_us","add_geo_eu"]`, `"addOns":[`+addOns+`]`, 1)
}
