package app_test

import (
	"net/url"
	"testing"
)

// isbusiness tells anyone whether an e-mail buys as a business, but the account id only
// to that account's own session (spec 000 §7), with accountUuid present and empty for
// everyone else. Before, any caller got the account id of any e-mail, an individual's
// included.
func TestIsBusinessAnswersTheAccountIdOnlyToItsOwnSession(t *testing.T) {
	t.Parallel()
	r := start(t)
	ask := func(b *browser, email string) map[string]any {
		t.Helper()
		code, body := b.do("GET", "/buy/api/isbusiness?email="+url.QueryEscape(email), "", false)
		if code != 200 {
			t.Fatalf("isbusiness %s = %d %v", email, code, body)
		}
		return body
	}
	anon := newBrowser(t, r.base)
	for email, biz := range map[string]bool{"owner@acme.hangar.test": true, "pilot@demo.hangar.test": false, "nobody@demo.hangar.test": false} {
		body := ask(anon, email)
		if id, present := body["accountUuid"]; !present || id != "" || body["isbiz"] != biz {
			t.Errorf("anonymous isbusiness %s = %v, want isbiz %v and accountUuid present and empty", email, body, biz)
		}
	}
	pilot := newBrowser(t, r.base)
	pilot.login("pilot@demo.hangar.test")
	if body := ask(pilot, "owner@acme.hangar.test"); body["accountUuid"] != "" || body["isbiz"] != true {
		t.Errorf("another account's isbusiness of the owner = %v, want isbiz true and no account id", body)
	}
	_, me := pilot.do("GET", "/buy/api/me", "", false)
	if body := ask(pilot, "pilot@demo.hangar.test"); body["accountUuid"] != me["accountUuid"] || body["accountUuid"] == "" {
		t.Errorf("the account's own isbusiness = %v, want its id %v", body, me["accountUuid"])
	}
}
