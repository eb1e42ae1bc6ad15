package app_test

import (
	"testing"
)

// The avionics partner-account linker (spec 001 §7) through the gateway, as the page calls it.
func TestLinkedPartnerAccounts(t *testing.T) {
	t.Parallel()
	r := start(t)
	pilot := newBrowser(t, r.base)
	pilot.login("pilot@demo.hangar.test")
	_, me := pilot.do("GET", "/buy/api/me", "", false)
	id, _ := me["accountUuid"].(string)

	code, body := pilot.do("GET", "/buy/jepp/linked-accounts/"+id, "", false)
	accts, _ := body["accounts"].([]any)
	if code != 200 || len(accts) != 2 {
		t.Fatalf("linked accounts = %d %v, want the two seeded", code, body)
	}
	first := accts[0].(map[string]any)
	if first["jeppAccountId"] != "JP-100234" || first["username"] != "pilot.demo" || first["linkedAvionics"] != false {
		t.Errorf("first linked account = %v", first)
	}

	// A non-safe call needs the XSRF pair like every other.
	if code, _ := pilot.do("POST", "/buy/jepp/linked-avionics/"+id+"/JP-100234", "{}", false); code != 403 {
		t.Errorf("link without XSRF = %d, want 403", code)
	}
	for range 2 { // idempotent
		code, body = pilot.do("POST", "/buy/jepp/linked-avionics/"+id+"/JP-100234", "{}", true)
		acct, _ := body["account"].(map[string]any)
		if code != 200 || body["status"] != "ok" || acct["linkedAvionics"] != true {
			t.Fatalf("link = %d %v", code, body)
		}
	}
	_, body = pilot.do("GET", "/buy/jepp/linked-accounts/"+id, "", false)
	accts, _ = body["accounts"].([]any)
	if accts[0].(map[string]any)["linkedAvionics"] != true || accts[1].(map[string]any)["linkedAvionics"] != false {
		t.Errorf("after linking = %v", accts)
	}
	if code, _ := pilot.do("POST", "/buy/jepp/linked-avionics/"+id+"/JP-NOPE", "{}", true); code != 404 {
		t.Errorf("unknown partner account = %d, want 404", code)
	}

	// Someone else's accounts are not found; a visitor must log in.
	other := newBrowser(t, r.base)
	other.login("employee@demo.hangar.test")
	if code, _ := other.do("GET", "/buy/jepp/linked-accounts/"+id, "", false); code != 404 {
		t.Errorf("another user's linked accounts = %d, want 404", code)
	}
	if code, _ := newBrowser(t, r.base).do("GET", "/buy/jepp/linked-accounts/"+id, "", false); code != 401 {
		t.Errorf("visitor = %d, want 401", code)
	}
}
