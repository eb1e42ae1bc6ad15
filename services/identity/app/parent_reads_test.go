package app_test

import (
	"testing"
)

// A group parent buys for its child accounts, so spec 001 §7 grants it the reads its submit
// needs (the subscription, the renewal price, the payment method: payments asks users/info
// whether the caller is the child's parent). users/info answers the parent that link and
// nothing of the child's profile (no e-mail, roles or organization), and no other read of
// the child opens: its marketing consent and its avionics links stay 404 to the parent, as
// to a stranger. The child still reads itself in full.
func TestGroupParentLearnsTheLinkOnly(t *testing.T) {
	t.Parallel()
	r := start(t)
	child := newBrowser(t, r.base)
	child.login("child@demo.hangar.test")
	_, me := child.do("GET", "/account/api/users/info/me", "", false)
	user, _ := me["user"].(map[string]any)
	childID, _ := user["accountUuid"].(string)
	if childID == "" || user["email"] != "child@demo.hangar.test" {
		t.Fatalf("the child's own info = %v", me)
	}

	parent := newBrowser(t, r.base)
	parent.login("group@demo.hangar.test")
	code, body := parent.do("GET", "/account/api/users/info/"+childID, "", false)
	got, _ := body["user"].(map[string]any)
	if code != 200 || got["accountUuid"] != childID || got["parentUuid"] == "" || got["parentUuid"] == nil {
		t.Fatalf("the parent's users/info of its child = %d %v, want the link", code, body)
	}
	for _, field := range []string{"email", "username", "organizationName", "organizationAccount"} {
		if v, ok := got[field]; ok && v != "" {
			t.Errorf("the parent's users/info of its child shows %s = %v", field, v)
		}
	}
	if roles, _ := got["roles"].([]any); len(roles) > 0 {
		t.Errorf("the parent's users/info of its child shows roles %v", roles)
	}
	for _, path := range []string{"/buy/api/subscription/eu_consent/" + childID, "/buy/jepp/linked-accounts/" + childID} {
		if code, body := parent.do("GET", path, "", false); code != 404 {
			t.Errorf("the parent's GET %s = %d %v, want 404", path, code, body)
		}
	}
	if code, body := parent.do("POST", "/buy/jepp/linked-avionics/"+childID+"/jepp-123", "{}", true); code != 404 {
		t.Errorf("the parent linking its child's avionics = %d %v, want 404", code, body)
	}

	stranger := newBrowser(t, r.base)
	stranger.login("pilot@demo.hangar.test")
	if code, body := stranger.do("GET", "/account/api/users/info/"+childID, "", false); code != 404 {
		t.Errorf("a stranger's users/info of the child = %d %v, want 404", code, body)
	}
}
