package app_test

import "testing"

// Issue 27 (business and groups): invoice validate's isOrgMember says what /buy/api/me
// says of the same session (was: false for Acme's members without a subscription of their
// own, whom /buy/api/me calls members).
func TestValidateAndMeAgreeOnMembership(t *testing.T) {
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
