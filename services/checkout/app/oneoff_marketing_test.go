package app_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/events"
)

// marketingConsent answers what identity's GET eu_consent says of the session's account.
func marketingConsent(t *testing.T, st *stack, cookie, account string) any {
	t.Helper()
	code, m := call(t, "GET", st.idBase+"/buy/api/subscription/eu_consent/"+account, "", "Cookie", cookie)
	pref, _ := m["preference"].(map[string]any)
	if code != http.StatusOK || pref == nil {
		t.Fatalf("eu_consent: %d %v", code, m)
	}
	return pref["marketingNotificationsEnabled"]
}

// A one-off buyer who ticks the marketing checkbox has the consent on their account once
// the order commits: checkout writes marketing-consent-given with the order, identity
// records it from the broker, and GET eu_consent then answers true. An order without the
// tick writes no consent; staff selling in sales mode cannot give it for the customer.
func TestOneOffMarketingConsentReachesIdentity(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	staff := login(t, st.idBase, "employee@demo.hangar.test")
	_, c := call(t, "POST", st.base+"/buy/api/cart-create",
		`{"requestJson":{"selectedProducts":[{"code":"oneoff_chartpack_us_vfr","quantity":1}],"currency":"USD"}}`, "Cookie", staff)
	cartID, _ := c["uuid"].(string)
	if cartID == "" {
		t.Fatalf("cart-create: %v", c)
	}
	consentEvents := func() int {
		return st.count(t, st.checkoutDB, `SELECT count(*) FROM outbox WHERE topic = $1`, events.TopicMarketingConsentGiven)
	}
	body := func(extra string) string {
		return `{"configuration":{"cartId":"` + cartID + `","currency":"USD","billingInfo":{"zipcode":"97201","country":"US"},
			"cardholderName":"Amelia Earhart"},"nonce":"` + st.tokenize(t, "4111111111111111") + `"` + extra + `}`
	}

	pilot := login(t, st.idBase, "pilot@demo.hangar.test")
	if got := marketingConsent(t, st, pilot, pilotAccount); got != false {
		t.Fatalf("the demo pilot starts with marketing consent %v, want false", got)
	}
	if code, m := post(t, st.base+"/buy/api/oneoff/submit", "no-tick", body(""), pilot); code != http.StatusOK {
		t.Fatalf("submit without the tick: %d %v", code, m)
	}
	if n := consentEvents(); n != 0 {
		t.Errorf("%d marketing-consent-given events after an order without the tick, want 0", n)
	}

	code, m := post(t, st.base+"/buy/api/oneoff/submit", "tick", body(`,"marketingConsent":true`), pilot)
	invoiceID, _ := m["invoiceId"].(string)
	if code != http.StatusOK || invoiceID == "" {
		t.Fatalf("submit with the tick: %d %v", code, m)
	}
	var payload []byte
	if err := st.checkoutDB.QueryRow(context.Background(), `SELECT payload FROM outbox WHERE topic = $1`, events.TopicMarketingConsentGiven).Scan(&payload); err != nil {
		t.Fatalf("no marketing-consent-given event with the order: %v", err)
	}
	var ev eventsv1.MarketingConsentGiven
	if err := proto.Unmarshal(payload, &ev); err != nil || ev.GetAccountId() != pilotAccount || ev.GetOrderId() != invoiceID || ev.GetSource() != "oneoff" {
		t.Errorf("event = %v (%v), want the pilot's, order %s", &ev, err, invoiceID)
	}
	st.relay(t)
	eventually(t, "the pilot's marketing consent at identity", func() bool { return marketingConsent(t, st, pilot, pilotAccount) == true })

	t.Run("staff selling in sales mode cannot consent for the customer", func(t *testing.T) {
		admin := login(t, st.idBase, "cardadmin@demo.hangar.test")
		customer := "counter-" + cartID[:8] + "@buyer.test"
		before := consentEvents()
		tok := st.readerToken(t, admin, customer)
		code, m := post(t, st.base+"/buy/api/oneoff/submit", "counter-tick", `{"configuration":{"cartId":"`+cartID+`","currency":"USD","email":"`+customer+`",
			"readerSerialNumber":"RDR-0001","billingInfo":{"zipcode":"97201","country":"US"},"cardholderName":"Amelia Earhart"},
			"useSavedCard":true,"paymentMethodToken":"`+tok+`","marketingConsent":true}`, admin)
		if code != http.StatusOK {
			t.Fatalf("sales-mode submit: %d %v", code, m)
		}
		if n := consentEvents(); n != before {
			t.Errorf("%d marketing-consent-given events after a sales-mode order, want %d", n, before)
		}
	})
}

// consentEventsOf answers the marketing-consent-given events in checkout's outbox.
func (st *stack) consentEventsOf(t *testing.T) []*eventsv1.MarketingConsentGiven {
	t.Helper()
	rows, err := st.checkoutDB.Query(context.Background(), `SELECT payload FROM outbox WHERE topic = $1 ORDER BY id`, events.TopicMarketingConsentGiven)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []*eventsv1.MarketingConsentGiven
	for rows.Next() {
		var b []byte
		var ev eventsv1.MarketingConsentGiven
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		if err := proto.Unmarshal(b, &ev); err != nil {
			t.Fatal(err)
		}
		out = append(out, &ev)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// /buy's submit carries the marketing checkbox too (marketingConsent in the configuration):
// a new buyer's consent goes to the account the order created, a signed-in buyer's (the
// Acme owner adding licences) to their own account, and identity then answers true.
func TestSubscriptionMarketingConsentReachesIdentity(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	withTick := func(cfg string) string { return strings.TrimSuffix(cfg, "}") + `,"marketingConsent":true}` }

	code, m, _ := submitRaw(t, st.base, "new-buyer-tick", quoted(t, st.base, withTick(newBuyer("marketing")), st.tokenize(t, "4111111111111111"), ""), "")
	account, _ := m["accountId"].(string)
	if code != http.StatusOK || account == "" {
		t.Fatalf("new buyer's submit: %d %v", code, m)
	}
	evs := st.consentEventsOf(t)
	if len(evs) != 1 || evs[0].GetAccountId() != account || evs[0].GetSource() != "subscription" {
		t.Fatalf("after a new buyer's ticked order: %v, want one event for %s from a subscription", evs, account)
	}

	owner := login(t, st.idBase, "owner@acme.hangar.test")
	_, me := call(t, "GET", st.idBase+"/buy/api/me", "", "Cookie", owner)
	self, _ := me["accountUuid"].(string)
	if got := marketingConsent(t, st, owner, self); got != false {
		t.Fatalf("the Acme owner starts with marketing consent %v, want false", got)
	}
	cfg := `{"currency":"USD","addOns":["business_pro","included_geo_us","efb_bridge","runway_tp_pilatus"],"quantity":8,` +
		`"isLicenseAgreementChecked":true,"isEulaChecked":true,"billingInfo":{"zipcode":"94105","country":"US"}}`
	code, m, _ = submitRaw(t, st.base, "acme-tick", quoted(t, st.base, withTick(cfg), st.tokenize(t, "4111111111111111"), owner), owner)
	if code != http.StatusOK {
		t.Fatalf("the owner's submit: %d %v", code, m)
	}
	evs = st.consentEventsOf(t)
	if len(evs) != 2 || evs[1].GetAccountId() != self {
		t.Fatalf("after the owner's ticked order: %v, want a second event for the owner %s (order account %v)", evs, self, m["accountId"])
	}
	st.relay(t)
	eventually(t, "the Acme owner's marketing consent at identity", func() bool { return marketingConsent(t, st, owner, self) == true })
}
