package app_test

import (
	"testing"

	iapp "github.com/hangar/hangar/services/checkout/internal/app"
)

// TestGroupParentReadsTheChildsSubscription: the group parent submits on its child's
// subscription, and now reads what it buys as the child does — the subscription and its
// renewal price — while anyone else is refused as before (issue 42 item 4, spec 001 §7).
func TestGroupParentReadsTheChildsSubscription(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	childSub := iapp.SeedSubscriptionID(iapp.SeedChild)
	parent, child := login(t, st.idBase, "group@demo.hangar.test"), login(t, st.idBase, "child@demo.hangar.test")
	pilot := login(t, st.idBase, "pilot@demo.hangar.test")
	subRoute := st.base + "/buy/api/account/" + iapp.SeedChild + "/subscription"
	priceRoute := st.base + "/buy/api/subscription/renewal-price?subscriptionId=" + childSub

	_, asChild := call(t, "GET", subRoute, "", "Cookie", child)
	for who, cookie := range map[string]string{"the child": child, "the parent": parent} {
		code, m := call(t, "GET", subRoute, "", "Cookie", cookie)
		sub, _ := m["subscription"].(map[string]any)
		if code != 200 || sub == nil || sub["id"] != childSub && sub["subscriptionId"] != childSub && m["id"] != childSub {
			t.Errorf("%s reads the child's subscription: %d %v", who, code, m)
		}
		code, p := call(t, "GET", priceRoute, "", "Cookie", cookie)
		if code != 200 || p["renewalAmountInCents"] == nil {
			t.Errorf("%s reads the renewal price: %d %v", who, code, p)
		}
	}
	if code, m := call(t, "GET", subRoute, "", "Cookie", parent); code == 200 && len(m) != len(asChild) {
		t.Errorf("the parent's answer differs from the child's: %v vs %v", m, asChild)
	}
	if code, m := call(t, "GET", subRoute, "", "Cookie", pilot); code != 401 {
		t.Errorf("a stranger reads the child's subscription: %d %v", code, m)
	}
	if code, m := call(t, "GET", priceRoute, "", "Cookie", pilot); code != 403 {
		t.Errorf("a stranger reads the child's renewal price: %d %v", code, m)
	}
}
