package app_test

import "testing"

// Preview and validate answer every documented field, empty ones too (spec 000 §2 Invoice,
// §7): preview left errors, planErrors, selectionErrors and promoInfoRequirements out when
// empty, and the credit line's addOnCode, which submit answers as "" (issue 42 item 6).
func TestPreviewAndValidateAnswerEmptyFields(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	pilot := login(t, st.idBase, "pilot@demo.hangar.test")
	const cfg = `{"addOns":["pro_plus","included_geo_us","add_geo_eu"]}`

	code, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", cfg, "Cookie", pilot)
	if code != 200 {
		t.Fatalf("preview = %d %v", code, pv)
	}
	for _, f := range []string{"errors", "planErrors", "selectionErrors", "promoInfoRequirements"} {
		if _, ok := pv[f].([]any); !ok {
			t.Errorf("preview has no %s list: %v", f, pv)
		}
	}
	inv, _ := pv["invoice"].(map[string]any)
	for _, f := range []string{"errors", "planErrors", "selectionErrors"} {
		if _, ok := inv[f].([]any); !ok {
			t.Errorf("preview invoice has no %s list: %v", f, inv)
		}
	}
	credit := false
	for _, it := range items(pv) {
		if _, ok := it["addOnCode"].(string); !ok {
			t.Errorf("%v line without addOnCode: %v", it["type"], it)
		}
		credit = credit || it["type"] == "SUBSCRIPTION_CREDIT"
	}
	if !credit {
		t.Fatalf("no SUBSCRIPTION_CREDIT line in %v", items(pv))
	}

	code, v := call(t, "POST", st.base+"/buy/api/invoice/validate", cfg, "Cookie", pilot)
	if code != 200 {
		t.Fatalf("validate = %d %v", code, v)
	}
	for _, f := range []string{"errors", "promoInfoRequirements"} {
		if _, ok := v[f].([]any); !ok {
			t.Errorf("validate has no %s list: %v", f, v)
		}
	}
	for _, f := range []string{"account", "subscriptionAccount"} {
		if _, ok := v[f].(string); !ok {
			t.Errorf("validate has no %s: %v", f, v)
		}
	}
}

// Validate answers the subscription the configuration changes, and an empty one for a new
// subscription: spec 001 §7 and spec 000 §7 list subscription among validate's fields
// (status, errors, invoice, subscription, counter, account, subscriptionAccount,
// isOrgMember, promoInfoRequirements), as gift validate's (issue 42 item 6).
func TestValidateAnswersSubscription(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	pilot := login(t, st.idBase, "pilot@demo.hangar.test")
	named := []string{"status", "errors", "invoice", "subscription", "counter", "account", "subscriptionAccount", "isOrgMember", "promoInfoRequirements"}

	code, v := call(t, "POST", st.base+"/buy/api/invoice/validate", `{"addOns":["pro_plus","included_geo_us","add_geo_eu"]}`, "Cookie", pilot)
	if code != 200 {
		t.Fatalf("validate = %d %v", code, v)
	}
	for _, f := range named {
		if _, ok := v[f]; !ok {
			t.Errorf("validate of a renewal has no %s: %v", f, v)
		}
	}
	sub, _ := v["subscription"].(map[string]any)
	if id, _ := sub["id"].(string); id == "" || sub["accountId"] != v["subscriptionAccount"] || sub["planCode"] == "" {
		t.Errorf("renewal's subscription = %v, want the pilot's (account %v)", sub, v["subscriptionAccount"])
	}

	code, v = call(t, "POST", st.base+"/buy/api/invoice/validate", `{"addOns":["pro_plus","included_geo_us"],"email":"new.buyer@example.com"}`)
	if code != 200 {
		t.Fatalf("validate of a new cart = %d %v", code, v)
	}
	for _, f := range named {
		if _, ok := v[f]; !ok {
			t.Errorf("validate of a new cart has no %s: %v", f, v)
		}
	}
	if sub, ok := v["subscription"].(map[string]any); !ok || sub["id"] != "" || sub["accountId"] != "" {
		t.Errorf("new cart's subscription = %v, want present and empty", v["subscription"])
	}

	code, g := call(t, "POST", st.base+"/buy/api/gift/validate", `{"giftCertValues":[125],"currency":"USD"}`)
	if code != 200 {
		t.Fatalf("gift validate = %d %v", code, g)
	}
	for _, f := range []string{"status", "errors", "invoice", "subscription", "counter", "accountId"} {
		if _, ok := g[f]; !ok {
			t.Errorf("gift validate has no %s: %v", f, g)
		}
	}
}
