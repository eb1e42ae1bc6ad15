package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/devmail"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/servicetest"
	"github.com/hangar/hangar/services/checkout/app"
	notifications "github.com/hangar/hangar/services/notifications/app"
)

// startMailer runs the notifications service on brokers, mailing to a dev mail sink (the
// /-/mail of make dev).
func startMailer(t *testing.T, brokers []string) *devmail.Sink {
	t.Helper()
	sink, err := devmail.Listen("127.0.0.1:0", 20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sink.Close() })
	var cfg notifications.Config
	if err := config.LoadFrom(&cfg, lookup(map[string]string{"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
		"DATABASE_URL": dbtest.New(t), "SHUTDOWN_TIMEOUT": "2s", "LOG_LEVEL": "warn", "KAFKA_BROKERS": strings.Join(brokers, ","),
		"SMTP_ADDR": sink.Addr(), "SMTP_TLS": "none"})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n, err := notifications.New(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Run(t, ctx, cancel, n)
	return sink
}

// sessionOf posts body to identity with cookie (or the anonymous XSRF pair) and answers the
// status, the body and the session cookie the answer sets, if any.
func sessionOf(t *testing.T, url, body, cookie string) (code int, m map[string]any, session string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	xsrf := xsrfFor(cookie)
	req.Header.Set("Cookie", strings.TrimSuffix("XSRF-TOKEN="+xsrf+"; "+cookie, "; "))
	req.Header.Set("X-XSRF-TOKEN", xsrf)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_ = json.NewDecoder(resp.Body).Decode(&m)
	for _, c := range resp.Cookies() {
		if c.Name == auth.SessionCookie && c.Value != "" {
			session = c.Name + "=" + c.Value
		}
	}
	return resp.StatusCode, m, session
}

var welcomeToken = regexp.MustCompile(`/account/set-password#token=([A-Za-z0-9_-]{43})`)

// Issue 28's "Done when": a new buyer pays on /buy with a new e-mail (the account is created
// at checkout, without a password) and is locked out of his own subscription when he comes
// back (401 requireLogin); the welcome e-mail, sent once the order completed, carries the
// set-password link; he chooses a password, logs out, logs in with it and renews as the
// logged-in owner (200); when the term ends, the renewal pass (its clock moved forward with
// -as-of) charges his stored card once.
func TestCheckoutBuyerComesBackAndRenews(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	// Notifications on the broker identity publishes to and checkout's outbox is relayed to.
	sink := startMailer(t, st.broker.Addrs())
	ctx := context.Background()

	email := fmt.Sprintf("returning-%d@buyer.test", time.Now().UnixNano())
	cfg := `{"email":"` + email + `","currency":"USD","addOns":["performance","included_geo_us"],"billingInfo":{"zipcode":"97201","country":"US"}}`
	code, first, _ := submitRaw(t, st.base, "first-"+email, quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), ""), "")
	if code != 200 || first["invoiceId"] == nil {
		t.Fatalf("first purchase: %d %v", code, first)
	}
	var account, subscription, card string
	var termEnd time.Time
	if err := st.checkoutDB.QueryRow(ctx, `SELECT s.account_id::text, s.id::text, s.payment_method_token, s.term_end FROM orders o
		JOIN subscriptions s ON s.account_id = o.account_id WHERE o.invoice_id = $1`, first["invoiceId"]).Scan(&account, &subscription, &card, &termEnd); err != nil {
		t.Fatal(err)
	}
	if card == "" {
		t.Fatal("the first purchase stored no card for the renewal")
	}
	charges := func() int {
		return st.count(t, st.paymentsDB, `SELECT count(*) FROM charges WHERE customer_id = $1 AND status = 'captured'`, account)
	}
	if n := charges(); n != 1 {
		t.Fatalf("%d charges for the first purchase", n)
	}

	// Coming back without a password: the same cart for his account asks for a login.
	code, v := call(t, "POST", st.base+"/buy/api/invoice/validate", cfg)
	if code != 200 || v["requireLogin"] != true {
		t.Errorf("validate of the returning buyer, logged out: %d %v", code, v)
	}
	code, locked, _ := submitRaw(t, st.base, "again-anonymous-"+email, quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), ""), "")
	if code != 401 || locked["requireLogin"] != true {
		t.Fatalf("submit of the returning buyer, logged out: %d %v; want 401 requireLogin", code, locked)
	}
	if n := charges(); n != 1 {
		t.Fatalf("the refused submit charged: %d charges", n)
	}

	// The welcome, its link issued once the first order completed, comes with the set-password link.
	st.relay(t) // checkout's order-completed reaches notifications
	mctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var token string
	for n := 1; token == ""; n++ {
		mails, err := sink.Wait(mctx, email, n)
		if err != nil {
			t.Fatalf("no welcome with a set-password link to %s: %v", email, err)
		}
		for _, m := range mails {
			if tm := welcomeToken.FindStringSubmatch(m.Text); strings.Contains(m.Subject, "Welcome to Hangar") && tm != nil {
				token = tm[1]
			}
		}
	}

	const password = "a week later over the hangar"
	code, set, session := sessionOf(t, st.idBase+"/account/api/password/set",
		`{"token":"`+token+`","password":"`+password+`","confirmPassword":"`+password+`"}`, "")
	if code != 200 || set["status"] != "ok" || session == "" {
		t.Fatalf("set the password from the welcome link: %d %v", code, set)
	}
	if code, _, _ := sessionOf(t, st.idBase+"/pricing/api/logout", "", session); code != 200 {
		t.Fatalf("logout: %d", code)
	}
	if _, me := call(t, "GET", st.idBase+"/buy/api/me", "", "Cookie", session); me["loggedIn"] == true {
		t.Errorf("the session still works after logout: %v", me)
	}
	code, in, session := sessionOf(t, st.idBase+"/pricing/api/login", `{"username":"`+email+`","password":"`+password+`"}`, "")
	if code != 200 || session == "" {
		t.Fatalf("login with the chosen password: %d %v", code, in)
	}

	// Logged in, the same renewal is priced for his account and paid: 200.
	code, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", `{"currency":"USD","addOns":["performance","included_geo_us"]}`, "Cookie", session)
	if code != 200 || pv["isRenewal"] != true || pv["accountId"] != account || pv["emailLocked"] != true {
		t.Fatalf("preview as the owner: %d renewal %v account %v (want %s)", code, pv["isRenewal"], pv["accountId"], account)
	}
	own := `{"currency":"USD","addOns":["performance","included_geo_us"],"isLicenseAgreementChecked":true,"isEulaChecked":true}`
	if code, v := call(t, "POST", st.base+"/buy/api/invoice/validate", own, "Cookie", session); code != 200 || v["requireLogin"] == true || v["status"] != "ok" {
		t.Errorf("validate as the owner: %d %v", code, v)
	}
	code, renewed, _ := submitRaw(t, st.base, "again-owner-"+email, quoted(t, st.base, own, "tok:"+card, session), session)
	if code != 200 || renewed["invoiceId"] == nil || renewed["invoiceId"] == first["invoiceId"] {
		t.Fatalf("submit of the returning buyer, logged in: %d %v; want 200", code, renewed)
	}
	var subs int
	var after time.Time
	if err := st.checkoutDB.QueryRow(ctx, `SELECT count(*), max(term_end) FROM subscriptions WHERE account_id = $1 AND valid`, account).Scan(&subs, &after); err != nil {
		t.Fatal(err)
	}
	if subs != 1 || !after.After(termEnd) {
		t.Errorf("after the early renewal: %d subscriptions, term end %v (was %v)", subs, after, termEnd)
	}
	if n := charges(); n != 2 {
		t.Errorf("%d charges after the early renewal, want 2", n)
	}

	// The term ends: the renewal pass, its clock moved to a day before, charges his card
	// once; a rerun as of the same time charges nothing more.
	payGRPC, _, _ := st.pay.Addrs()
	var rcfg app.Config
	if err := config.LoadFrom(&rcfg, lookup(map[string]string{"DATABASE_URL": st.checkoutDBURL, "CATALOG_ADDR": st.catGRPC,
		"PAYMENTS_ADDR": payGRPC, "LOG_LEVEL": "warn"})); err != nil {
		t.Fatal(err)
	}
	asOf := after.Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	for run := 1; run <= 2; run++ {
		var out bytes.Buffer
		if err := app.Renew(ctx, rcfg, []string{"-as-of", asOf}, &out); err != nil {
			t.Fatalf("renew -as-of %s (run %d): %v\n%s", asOf, run, err, out.String())
		}
		t.Logf("run %d: %s", run, strings.TrimSpace(out.String()))
		if run == 1 && !strings.Contains(out.String(), "renewed 1,") {
			t.Errorf("renewal pass as of %s: %s", asOf, out.String())
		}
		if n := charges(); n != 3 {
			t.Errorf("after renewal pass %d: %d charges, want 3 (one by the pass)", run, n)
		}
	}
	var byPass string
	if err := st.paymentsDB.QueryRow(ctx, `SELECT method_token FROM charges WHERE customer_id = $1 AND status = 'captured'
		ORDER BY created_at DESC LIMIT 1`, account).Scan(&byPass); err != nil || byPass != card {
		t.Errorf("the pass charged method %q (%v), want his stored card %q", byPass, err, card)
	}
	if err := st.checkoutDB.QueryRow(ctx, `SELECT max(term_end) FROM subscriptions WHERE account_id = $1 AND valid`, account).Scan(&termEnd); err != nil || !termEnd.After(after) {
		t.Errorf("term end after the pass: %v (was %v), %v", termEnd, after, err)
	}
}
