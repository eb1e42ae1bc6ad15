package app_test

import (
	"fmt"
	"strings"
	"testing"
)

// Issue 27 (business and groups): invoice validate's isOrgMember says what /buy/api/me
// says of the same session (was: false for Acme's members without a subscription of their
// own, whom /buy/api/me calls members).
func TestValidateAndMeAgreeOnMembership(t *testing.T) {
	t.Parallel()
	idGRPC, idBase := startIdentity(t)
	base := start(t, map[string]string{"IDENTITY_ADDR": idGRPC})
	for _, email := range []string{"pilot@demo.hangar.test", "owner@acme.hangar.test", "member@acme.hangar.test", "dispatcher@acme.hangar.test"} {
		session := login(t, idBase, email)
		_, me := call(t, "GET", idBase+"/buy/api/me", "", "Cookie", session)
		code, v := call(t, "POST", base+"/buy/api/invoice/validate", `{"addOns":["performance","included_geo_us"]}`, "Cookie", session)
		if _, ok := me["isOrgMember"].(bool); !ok || code != 200 || v["isOrgMember"] != me["isOrgMember"] {
			t.Errorf("%s: validate isOrgMember %v, /buy/api/me %v (%d)", email, v["isOrgMember"], me["isOrgMember"], code)
		}
	}
}

// Issue 27 (business downgrade, spec 000 §4): when can-downgrade says yes, the downgrade
// cart (businessDowngrade: Starter, the default region, one licence) prices without the
// existing-business refusal and is bought (was: 'You are already subscribed under a
// business plan…' right after can-downgrade said true).
func TestBusinessDowngradeEndToEnd(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	owner := login(t, st.idBase, "owner@acme.hangar.test")
	if _, m := call(t, "GET", st.base+"/buy/api/business/can-downgrade?accountId=00000000-0000-4000-8000-000000000002", "", "Cookie", owner); m["canDowngrade"] != true {
		t.Fatalf("can-downgrade: %v", m)
	}
	cfg := `{"businessDowngrade":true,"currency":"USD","billingInfo":{"zipcode":"94105","country":"US"}}`
	code, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", cfg, "Cookie", owner)
	if errs, _ := pv["errors"].([]any); code != 200 || len(errs) != 0 || pv["quantity"] != 1.0 || pv["isBusiness"] != false {
		t.Fatalf("downgrade preview: %d errors %v quantity %v business %v", code, pv["errors"], pv["quantity"], pv["isBusiness"])
	}
	if add, _ := pv["addOns"].([]any); len(add) != 2 || add[0] != "basic_plus" || add[1] != "included_geo_us" {
		t.Errorf("downgrade cart: %v", pv["addOns"])
	}
	if code, v := call(t, "POST", st.base+"/buy/api/invoice/validate", cfg, "Cookie", owner); code != 200 || v["status"] != "ok" {
		t.Errorf("downgrade validate: %d %v", code, v)
	}
	code, m, _ := submitRaw(t, st.base, "acme-downgrade", quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), owner), owner)
	if code != 200 {
		t.Fatalf("downgrade submit: %d %v", code, m)
	}
	if _, s := call(t, "GET", st.base+"/buy/api/subscription", "", "Cookie", owner); !strings.Contains(fmt.Sprint(s), "basic_plus") {
		t.Errorf("after the downgrade: %v", s)
	}
}
