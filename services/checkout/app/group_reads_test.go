package app_test

import (
	"testing"

	iapp "github.com/hangar/hangar/services/checkout/internal/app"
)

// TestGroupParentReadsTheChildsSubscription: the group parent submits on its child's
// subscription, and now reads what it buys as the child does — the subscription, its
// renewal price and the child's payment method (payments asks identity who the parent
// is) — while anyone else is refused as before (issue 42 item 4, spec 001 §7).
func TestGroupParentReadsTheChildsSubscription(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	childSub := iapp.SeedSubscriptionID(iapp.SeedChild)
	parent, child := login(t, st.idBase, "group@demo.hangar.test"), login(t, st.idBase, "child@demo.hangar.test")
	pilot := login(t, st.idBase, "pilot@demo.hangar.test")
	subRoute := st.base + "/buy/api/account/" + iapp.SeedChild + "/subscription"
	priceRoute := st.base + "/buy/api/subscription/renewal-price?subscriptionId=" + childSub
	methodRoute := st.payBase + "/buy/api/subscription/payment-method/" + iapp.SeedChild

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
		code, pm := call(t, "GET", methodRoute, "", "Cookie", cookie)
		if code != 200 || pm["paymentMethodType"] == nil {
			t.Errorf("%s reads the payment method: %d %v", who, code, pm)
		}
	}
	// The parent sees the child's card but never its token: a stored method pays only for
	// its owner (docs/authorization.md).
	if _, pm := call(t, "GET", methodRoute, "", "Cookie", parent); pm["paymentMethod"] != nil {
		if m, _ := pm["paymentMethod"].(map[string]any); m["token"] != nil && m["token"] != "" {
			t.Errorf("the parent is answered the child's token: %v", pm)
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
	if code, m := call(t, "GET", methodRoute, "", "Cookie", pilot); code != 403 {
		t.Errorf("a stranger reads the child's payment method: %d %v", code, m)
	}
	if code, m := call(t, "GET", methodRoute, ""); code != 401 {
		t.Errorf("no session reads the child's payment method: %d %v", code, m)
	}
}
