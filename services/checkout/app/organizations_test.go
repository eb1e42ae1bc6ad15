package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	iapp "github.com/hangar/hangar/services/checkout/internal/app"
)

// newAccount creates an account with a password at identity (the store's create-account
// route) and answers its id and session cookie.
func newAccount(t *testing.T, identityBase, email string) (id, session string) {
	t.Helper()
	req, _ := http.NewRequest("POST", identityBase+"/pricing/api/create-account/", strings.NewReader(
		`{"username":"`+email+`","password":"a long enough passphrase 42","confirmPassword":"a long enough passphrase 42","is_eu":false,"consent":false}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cookie", "XSRF-TOKEN=x")
	req.Header.Set("X-XSRF-TOKEN", "x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		User struct {
			ID string `json:"account_uuid"`
		} `json:"user"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	for _, c := range resp.Cookies() {
		if c.Name == auth.SessionCookie && c.Value != "" {
			session = c.Name + "=" + c.Value
		}
	}
	if resp.StatusCode != 200 || out.User.ID == "" || session == "" {
		t.Fatalf("create account %s = %d %+v", email, resp.StatusCode, out)
	}
	return out.User.ID, session
}

// Issue 27 (business and groups): a logged-in buyer in no organization who buys Business
// Pro × 3 with an organization name gets the organization at checkout, as its owner:
// isbusiness says true, /buy/api/me names it, and the 3 licences are in the allocation
// report and assignable right after payment (was: isbiz false, no groups, nobody to assign
// the licences to). A retry of the submit creates nothing more.
func TestBusinessPurchaseCreatesTheOrganization(t *testing.T) {
	t.Parallel()
	// Checkout's events go to the allocation service through a broker of their own.
	broker, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(broker.Close)
	st := startStack(t, map[string]string{"KAFKA_BROKERS": strings.Join(broker.Addrs(), ",")})
	_, allocBase := startAllocation(t, st.idGRPC, broker.Addrs())

	email := fmt.Sprintf("fleet-%d@buyer.test", time.Now().UnixNano())
	buyer, session := newAccount(t, st.idBase, email)
	isBiz := func() any {
		_, m := call(t, "GET", st.idBase+"/buy/api/isbusiness?email="+email, "")
		return m["isbiz"]
	}
	if got := isBiz(); got != false {
		t.Fatalf("isbusiness before the purchase: %v", got)
	}
	cfg := `{"currency":"USD","addOns":["business_pro","included_geo_us"],"quantity":3,"organizationName":"Fleet One Aviation",
		"isLicenseAgreementChecked":true,"isEulaChecked":true,"billingInfo":{"zipcode":"97201","country":"US"}}`
	// The organization is named by the buyer: a business buyer in no organization must give
	// the name even when logged in.
	noName := strings.Replace(cfg, `"organizationName":"Fleet One Aviation",`, "", 1)
	if _, v := call(t, "POST", st.base+"/buy/api/invoice/validate", noName, "Cookie", session); !strings.Contains(fmt.Sprint(v["errors"]), "Please enter your organization name.") {
		t.Errorf("validate without an organization name: %v", v)
	}
	body := quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), session)
	code, m, _ := submitRaw(t, st.base, "fleet-one-"+buyer, body, session)
	if code != 200 {
		t.Fatalf("submit: %d %v", code, m)
	}
	// Right after payment, with no event to wait for: identity holds the organization.
	if got := isBiz(); got != true {
		t.Errorf("isbusiness after the purchase: %v", got)
	}
	_, me := call(t, "GET", st.idBase+"/buy/api/me", "", "Cookie", session)
	if me["isOrgOwner"] != true || me["organizationName"] != "Fleet One Aviation" || me["organizationAccount"] != buyer {
		t.Errorf("/buy/api/me after the purchase: owner %v, organization %v %v", me["isOrgOwner"], me["organizationName"], me["organizationAccount"])
	}
	// A retry of the same submit answers the same order and makes no second organization.
	code, again, _ := submitRaw(t, st.base, "fleet-one-"+buyer, body, session)
	if code != 200 || again["invoiceId"] != m["invoiceId"] {
		t.Errorf("retried submit: %d %v (first %v)", code, again["invoiceId"], m["invoiceId"])
	}
	if _, g := call(t, "GET", st.idBase+"/org/api/groups/", "", "Cookie", session); fmt.Sprint(len(g["groups"].([]any))) != "1" {
		t.Errorf("groups after the retry: %v", g)
	}
	// The 3 licences reach the allocation report (checkout's event) under the organization
	// and are assignable at once: the owner takes one.
	eventually(t, "the 3 Business Pro licences in the allocation report", func() bool {
		_, r := call(t, "GET", allocBase+"/account/api/subscription/allocation/report", "", "Cookie", session)
		reports, _ := r["addOnAllocationReports"].(map[string]any)
		bp, _ := reports["business_pro"].(map[string]any)
		return bp != nil && bp["bought"] == 3.0 && bp["free"] == 3.0
	})
	code, a := call(t, "POST", allocBase+"/account/api/subscription/allocation/assign",
		`{"addOnCodes":["business_pro"],"targetId":"`+buyer+`","targetType":"USER"}`, "Cookie", session)
	if code != 200 {
		t.Fatalf("assign a licence to the owner: %d %v", code, a)
	}
	// Members join by invitation: the owner invites a pilot (no account yet), who accepts
	// with a password of their own, and the owner gives them a licence.
	pilotEmail := "pilot-" + email
	code, invited := call(t, "POST", st.idBase+"/org/api/members", `{"email":"`+pilotEmail+`"}`, "Cookie", session)
	if code != 200 || invited["status"] != "invited" {
		t.Fatalf("invite a member: %d %v", code, invited)
	}
	token := invitationToken(t, st, pilotEmail)
	code, added := call(t, "POST", st.idBase+"/org/api/invitations/accept",
		`{"token":"`+token+`","password":"a long enough passphrase 42","confirmPassword":"a long enough passphrase 42"}`)
	user, _ := added["user"].(map[string]any)
	if code != 200 || user == nil || added["organizationAccount"] != buyer {
		t.Fatalf("accept the invitation: %d %v", code, added)
	}
	code, a = call(t, "POST", allocBase+"/account/api/subscription/allocation/assign",
		`{"addOnCodes":["business_pro"],"targetId":"`+user["accountUuid"].(string)+`","targetType":"USER"}`, "Cookie", session)
	if code != 200 {
		t.Fatalf("assign a licence to the new member: %d %v", code, a)
	}
	_, r := call(t, "GET", allocBase+"/account/api/subscription/allocation/report", "", "Cookie", session)
	if bp := r["addOnAllocationReports"].(map[string]any)["business_pro"].(map[string]any); bp["assigned"] != 2.0 || bp["free"] != 1.0 {
		t.Errorf("after assigning two: %v", bp)
	}
	// Nobody is put in an organization without their consent: an existing account is
	// invited as anyone else (the answer tells nothing of it) and has not joined; and only
	// the organization's administrators invite.
	if code, m := call(t, "POST", st.idBase+"/org/api/members", `{"email":"pilot@demo.hangar.test"}`, "Cookie", session); code != 200 || m["status"] != "invited" {
		t.Errorf("invite an existing account: %d %v", code, m)
	}
	if code, m := call(t, "POST", st.idBase+"/org/api/members", `{"email":"x-`+email+`"}`, "Cookie", login(t, st.idBase, "pilot@demo.hangar.test")); code != 403 {
		t.Errorf("add a member as someone in no organization: %d %v", code, m)
	}
}

// invitationToken reads the token of the newest invitation to email from identity's
// password-link events (what notifications mails).
func invitationToken(t *testing.T, st *stack, email string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: st.broker.Addrs(), Topic: events.TopicPasswordLinkIssued,
		GroupID: fmt.Sprintf("test-%d", time.Now().UnixNano()), StartOffset: kafkago.FirstOffset, MaxWait: 100 * time.Millisecond})
	defer r.Close()
	for {
		msg, err := r.ReadMessage(ctx)
		if err != nil {
			t.Fatalf("no invitation for %s: %v", email, err)
		}
		var ev eventsv1.PasswordLinkIssued
		if err := proto.Unmarshal(msg.Value, &ev); err != nil {
			t.Fatal(err)
		}
		if token, ok := strings.CutPrefix(ev.GetLink(), "/account/invitation#token="); ok && ev.GetEmail() == email {
			return token
		}
	}
}

// Issue 27 (business and groups): the group parent prices and changes the subscription
// it owns for its child (was: 401 requireLogin on the child's subscription id, and the
// child's 'contact your account administrator' message); the child keeps that message and
// a stranger naming the subscription is refused as before.
func TestGroupParentManagesTheChildsSubscription(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	childSub := iapp.SeedSubscriptionID(iapp.SeedChild)
	parent := login(t, st.idBase, "group@demo.hangar.test")
	cfg := `{"subscriptionId":"` + childSub + `","currency":"USD","addOns":["performance","included_geo_us"],"billingInfo":{"zipcode":"97201","country":"US"}}`

	code, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", cfg, "Cookie", parent)
	if code != 200 || pv["isRenewal"] != true || strings.Contains(fmt.Sprint(pv["errorCodes"]), "CHILD_ACCOUNT_PURCHASE") || fmt.Sprint(pv["planErrors"]) != "[]" && pv["planErrors"] != nil {
		t.Fatalf("the parent's preview of the child's subscription: %d renewal %v codes %v plan errors %v", code, pv["isRenewal"], pv["errorCodes"], pv["planErrors"])
	}
	// Named by the child's account id, the same subscription is priced.
	byAccount := strings.Replace(cfg, `"subscriptionId":"`+childSub+`"`, `"accountId":"`+iapp.SeedChild+`"`, 1)
	if code, m := call(t, "POST", st.base+"/buy/api/invoice/preview", byAccount, "Cookie", parent); code != 200 || m["isRenewal"] != true || strings.Contains(fmt.Sprint(m["errorCodes"]), "CHILD_ACCOUNT_PURCHASE") {
		t.Errorf("the parent's preview by the child's account: %d renewal %v codes %v", code, m["isRenewal"], m["errorCodes"])
	}
	if code, v := call(t, "POST", st.base+"/buy/api/invoice/validate", cfg, "Cookie", parent); code != 200 || v["status"] != "ok" || v["requireLogin"] == true {
		t.Errorf("the parent's validate: %d %v", code, v)
	}
	code, m, _ := submitRaw(t, st.base, "group-changes-child", quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), parent), parent)
	if code != 200 {
		t.Fatalf("the parent's submit: %d %v", code, m)
	}
	var plan, account, parentOf string
	if err := st.checkoutDB.QueryRow(t.Context(), `SELECT plan_code, account_id::text, coalesce(parent_account_id::text, '') FROM subscriptions WHERE id = $1`, childSub).
		Scan(&plan, &account, &parentOf); err != nil {
		t.Fatal(err)
	}
	if plan != "performance" || account != iapp.SeedChild || parentOf != iapp.SeedGroup {
		t.Errorf("the child's subscription after the parent's change: plan %s account %s parent %s", plan, account, parentOf)
	}

	// The child still cannot change it, and is told so in the spec's words.
	_, cv := call(t, "POST", st.base+"/buy/api/invoice/preview", `{"currency":"USD"}`, "Cookie", login(t, st.idBase, "child@demo.hangar.test"))
	if !strings.Contains(fmt.Sprint(cv["errorCodes"]), "CHILD_ACCOUNT_PURCHASE") ||
		!strings.Contains(fmt.Sprint(cv["planErrors"]), "Your subscription is managed by your group account. Please contact your account administrator to make changes.") {
		t.Errorf("the child's preview: codes %v plan errors %v", cv["errorCodes"], cv["planErrors"])
	}
	// Anyone else naming the child's subscription or account: 401 requireLogin, nothing of it.
	pilot := login(t, st.idBase, "pilot@demo.hangar.test")
	for _, c := range []string{cfg, byAccount} {
		code, sv := call(t, "POST", st.base+"/buy/api/invoice/preview", c, "Cookie", pilot)
		if code != 401 || sv["requireLogin"] != true || sv["accountId"] != nil || sv["invoice"] != nil {
			t.Errorf("a stranger's preview: %d %v", code, sv)
		}
	}
}
