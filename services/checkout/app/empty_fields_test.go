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
