package app_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	kafkago "github.com/segmentio/kafka-go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/internal/devmail"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/telemetry"
	"github.com/hangar/hangar/services/identity/app"
)

// linkToken is the token of the set-password link in a mail (the link's fragment).
var linkToken = regexp.MustCompile(`/account/set-password#token=([A-Za-z0-9_-]{43})`)

func waitMail(t *testing.T, sink *devmail.Sink, to, subject string) devmail.Mail {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for n := 1; ; n++ {
		mails, err := sink.Wait(ctx, to, n)
		if err != nil {
			t.Fatalf("no mail %q to %s in the dev mail sink: %v", subject, to, err)
		}
		for _, m := range mails {
			if strings.Contains(m.Subject, subject) {
				return m
			}
		}
	}
}

// firstOrderCompleted publishes checkout's order-completed event of the account's first
// order, as checkout's outbox would after the charge.
func firstOrderCompleted(t *testing.T, brokers []string, accountID, email string) {
	t.Helper()
	payload, err := proto.Marshal(&eventsv1.OrderCompleted{OrderId: "ord-" + accountID, InvoiceId: "inv-" + accountID, InvoiceNumber: "1001",
		AccountId: accountID, Email: email, OrderKind: "subscription", BuyerKind: "new", Currency: "USD", SubtotalInCents: 19999,
		TotalInCents: 19999, CardBrand: "Visa", CardLast4: "1111", ChargeId: "ch-" + accountID, CompletedAt: timestamppb.Now(),
		ReceiptUrl: "/buy/success?invoiceId=inv-" + accountID})
	if err != nil {
		t.Fatal(err)
	}
	p := kafka.NewProducer(brokers, telemetry.Propagator())
	defer p.Close()
	if err := p.Publish(context.Background(), kafkago.Message{Topic: events.TopicOrderCompleted, Key: []byte(accountID), Value: payload,
		Headers: []kafkago.Header{{Key: kafka.HeaderID, Value: []byte("order-completed-" + accountID)}}}); err != nil {
		t.Fatal(err)
	}
}

func tokenOf(t *testing.T, m devmail.Mail) string {
	t.Helper()
	tm, hm := linkToken.FindStringSubmatch(m.Text), linkToken.FindStringSubmatch(m.HTML)
	if tm == nil || hm == nil || tm[1] != hm[1] {
		t.Fatalf("mail %q has no set-password link in both parts:\n%s", m.Subject, m.Text)
	}
	return tm[1]
}

func setPassword(b *browser, token, password, confirm string) (int, map[string]any) {
	b.t.Helper()
	return b.do("POST", "/account/api/password/set", `{"token":"`+token+`","password":"`+password+`","confirmPassword":"`+confirm+`"}`, true)
}

func fieldMessage(body map[string]any, field string) string {
	fes, _ := body["fieldErrors"].([]any)
	for _, f := range fes {
		if m, _ := f.(map[string]any); m["field"] == field {
			s, _ := m["message"].(string)
			return s
		}
	}
	return ""
}

// A buyer whose account checkout created (no password) gets a welcome e-mail with a
// link to choose a password; the page's form refuses a mismatch and a breached password,
// then sets it and logs the buyer in; the buyer logs out and in with it; the link is
// single use. Before: the welcome offered no way in, and every such account was locked
// out of its own subscription.
func TestWelcomeLinkOfACheckoutAccountSetsThePassword(t *testing.T) {
	t.Parallel()
	r := start(t)
	sink := startNotifications(t, r.brokers)
	grpcAddr, _, _ := r.a.Addrs()
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const buyer = "new.buyer@example.com"
	p, err := identityv1.NewIdentityServiceClient(conn).ProvisionAccount(context.Background(), &identityv1.ProvisionAccountRequest{Email: buyer})
	if err != nil || !p.GetCreated() || !p.GetPasswordless() {
		t.Fatalf("provision = %v, %v", p, err)
	}
	// Notifications holds a checkout account's welcome until its first order completes (a
	// declined buyer gets none): the order checkout would announce releases it.
	firstOrderCompleted(t, r.brokers, p.GetAccountUuid(), buyer)
	welcome := waitMail(t, sink, buyer, "Welcome to Hangar")
	token := tokenOf(t, welcome)
	if !strings.Contains(welcome.Text, "Choose a password") {
		t.Errorf("welcome text = %q", welcome.Text)
	}

	b := newBrowser(t, r.base)
	b.do("GET", "/buy/api/me", "", false)
	if code, body := setPassword(b, token, "a long enough passphrase 42", "a long enough passphrase 43"); code != 400 ||
		fieldMessage(body, "confirmPassword") != "Passwords do not match" {
		t.Errorf("mismatch = %d %v", code, body)
	}
	if code, body := setPassword(b, token, "password123", "password123"); code != 400 || fieldMessage(body, "password") == "" {
		t.Errorf("breached password = %d %v", code, body)
	}
	if code, body := setPassword(b, token, "short", "short"); code != 400 || !strings.Contains(fieldMessage(body, "password"), "at least 8") {
		t.Errorf("short password = %d %v", code, body)
	}
	const password = "blue skies over the hangar"
	code, body := setPassword(b, token, password, password)
	if code != 200 || body["status"] != "ok" || b.cookies[auth.SessionCookie] == "" {
		t.Fatalf("set password = %d %v", code, body)
	}
	if _, me := b.do("GET", "/buy/api/me", "", false); me["loggedIn"] != true || me["email"] != buyer {
		t.Errorf("me after set password = %v", me)
	}
	if code, _ := b.do("POST", "/pricing/api/logout", "", true); code != 200 {
		t.Fatalf("logout = %d", code)
	}
	if code, body := b.do("POST", "/pricing/api/login", `{"username":"`+buyer+`","password":"`+password+`"}`, true); code != 200 || body["status"] != "ok" {
		t.Errorf("login with the chosen password = %d %v", code, body)
	}
	other := newBrowser(t, r.base)
	other.do("GET", "/buy/api/me", "", false)
	if code, body := setPassword(other, token, "another fine passphrase", "another fine passphrase"); code != 400 ||
		fieldMessage(body, "token") != "This link has expired or has already been used. Please ask for a new one." {
		t.Errorf("link used twice = %d %v", code, body)
	}
	if _, me := b.do("GET", "/buy/api/me", "", false); me["loggedIn"] != true {
		t.Error("the refused second use ended the owner's session")
	}
}

// Issue 41: a live set-password link sat in plain text in notifications' held_mails from
// the moment checkout created the buyer's account until its first order (for ever for a
// declined buyer). Now identity issues the welcome link only when the first order
// completes: before it, no link exists anywhere (no event, no stored link); after it, the
// welcome is mailed with its link at once, never held with it.
func TestWelcomeLinkIsNeverAtRestBeforeTheFirstOrder(t *testing.T) {
	t.Parallel()
	r := start(t)
	notificationsDB := dbtest.New(t)
	sink := startNotificationsOn(t, r.brokers, notificationsDB)
	grpcAddr, _, _ := r.a.Addrs()
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const buyer = "declined.then.paid@example.com"
	p, err := identityv1.NewIdentityServiceClient(conn).ProvisionAccount(context.Background(), &identityv1.ProvisionAccountRequest{Email: buyer})
	if err != nil || !p.GetCreated() {
		t.Fatalf("provision = %v, %v", p, err)
	}
	idb, err := pgx.Connect(context.Background(), r.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer idb.Close(context.Background())
	var links int
	if err := idb.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM outbox WHERE topic = $1 AND key = $2) +
		(SELECT count(*) FROM password_links WHERE account_uuid = $3)`, events.TopicPasswordLinkIssued, []byte(p.GetAccountUuid()), p.GetAccountUuid()).Scan(&links); err != nil || links != 0 {
		t.Fatalf("links and link events of an account with no order = %d (%v), want none", links, err)
	}

	firstOrderCompleted(t, r.brokers, p.GetAccountUuid(), buyer)
	token := tokenOf(t, waitMail(t, sink, buyer, "Welcome to Hangar"))
	ndb, err := pgx.Connect(context.Background(), notificationsDB)
	if err != nil {
		t.Fatal(err)
	}
	defer ndb.Close(context.Background())
	var atRest int
	if err := ndb.QueryRow(context.Background(), `SELECT count(*) FROM held_mails WHERE text_body LIKE '%'||$1||'%' OR html_body LIKE '%'||$1||'%'`,
		token).Scan(&atRest); err != nil || atRest != 0 {
		t.Errorf("held mails carrying the sent link = %d (%v), want none", atRest, err)
	}
}

// invitationToken is the token of the invitation link in a mail (the link's fragment).
var invitationToken = regexp.MustCompile(`/account/invitation#token=([A-Za-z0-9_-]{43})`)

// Issue 41, through the public routes: an organization's administrator invites; the
// answer is the same for an address with an account and one without (before: 409 for a
// known e-mail, 200 for an unknown one, 40 of 40: an e-mail oracle), nothing is created
// until the invitee accepts (before: a passwordless account for any stranger at once), the
// mail names the organization as unverified and links only to the store, and the invitee
// accepts: a new address with a password of their own (logged in), an existing account
// after logging in as itself. Only administrators invite.
func TestInvitationCreatesNothingUntilAccepted(t *testing.T) {
	t.Parallel()
	r := start(t)
	sink := startNotifications(t, r.brokers)
	const crew = "new.crew@acme.hangar.test"
	const pilot = "pilot@demo.hangar.test"
	owner := newBrowser(t, r.base)
	owner.login("owner@acme.hangar.test")
	pool, err := pgx.Connect(context.Background(), r.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close(context.Background())
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	accountsBefore := count(`SELECT count(*) FROM accounts`)

	code, unknown := owner.do("POST", "/org/api/members", `{"email":"`+crew+`","roles":["dispatcher"]}`, true)
	code2, known := owner.do("POST", "/org/api/members", `{"email":"`+pilot+`"}`, true)
	if code != 200 || code2 != 200 || unknown["status"] != "invited" || known["status"] != unknown["status"] || known["message"] != unknown["message"] ||
		len(known) != len(unknown) {
		t.Fatalf("invite an unknown address = %d %v; a known one = %d %v; want the same answer", code, unknown, code2, known)
	}
	if n := count(`SELECT count(*) FROM accounts`); n != accountsBefore || count(`SELECT count(*) FROM accounts WHERE email = $1`, crew) != 0 {
		t.Errorf("accounts %d -> %d after inviting: nothing may be created until accepted", accountsBefore, n)
	}
	if count(`SELECT count(*) FROM memberships m JOIN accounts a ON a.uuid = m.account_uuid WHERE a.email = $1`, pilot) != 0 {
		t.Error("the known account joined without accepting")
	}

	mail := waitMail(t, sink, crew, "You are invited to join an organization on Hangar")
	if !strings.Contains(mail.Text, `calls itself: "Acme Flight Department"`) || !strings.Contains(mail.Text, "has not verified this name") {
		t.Errorf("invitation text = %q", mail.Text)
	}
	tm, hm := invitationToken.FindStringSubmatch(mail.Text), invitationToken.FindStringSubmatch(mail.HTML)
	if tm == nil || hm == nil || tm[1] != hm[1] {
		t.Fatalf("invitation has no link in both parts:\n%s", mail.Text)
	}
	token := tm[1]
	if count(`SELECT count(*) FROM invitations WHERE position(convert_to($1, 'UTF8') in token_hash) > 0`, token) != 0 {
		t.Error("the invitation's token is stored in plain text")
	}

	// The accept page: what it shows, then a new account with its own password.
	invitee := newBrowserXSRF(t, r.base)
	if code, inv := invitee.do("POST", "/org/api/invitations/lookup", `{"token":"`+token+`"}`, true); code != 200 ||
		inv["organizationName"] != "Acme Flight Department" || inv["email"] != crew || inv["hasAccount"] != false {
		t.Errorf("lookup = %d %v", code, inv)
	}
	const password = "cleared for takeoff runway two"
	code, acc := invitee.do("POST", "/org/api/invitations/accept", `{"token":"`+token+`","password":"`+password+`","confirmPassword":"`+password+`"}`, true)
	user, _ := acc["user"].(map[string]any)
	if code != 200 || acc["status"] != "ok" || user == nil || user["email"] != crew || invitee.cookies[auth.SessionCookie] == "" {
		t.Fatalf("accept = %d %v", code, acc)
	}
	if _, me := invitee.do("GET", "/buy/api/me", "", false); me["loggedIn"] != true || me["email"] != crew {
		t.Errorf("me after accepting = %v", me)
	}
	if code, again := newBrowserXSRF(t, r.base).do("POST", "/org/api/invitations/accept", `{"token":"`+token+`","password":"`+password+`","confirmPassword":"`+password+`"}`, true); code != 400 ||
		fieldMessage(again, "token") == "" {
		t.Errorf("the invitation accepted twice = %d %v", code, again)
	}
	fresh := newBrowserXSRF(t, r.base)
	if code, body := fresh.do("POST", "/pricing/api/login", `{"username":"`+crew+`","password":"`+password+`"}`, true); code != 200 || body["status"] != "ok" {
		t.Errorf("the member's login = %d %v", code, body)
	}

	// The existing account: asked to log in, then accepts as itself; another account cannot.
	pm := waitMail(t, sink, pilot, "You are invited to join an organization on Hangar")
	ptoken := invitationToken.FindStringSubmatch(pm.Text)[1]
	anon := newBrowserXSRF(t, r.base)
	if code, body := anon.do("POST", "/org/api/invitations/accept", `{"token":"`+ptoken+`"}`, true); code != 401 {
		t.Errorf("accept an existing account's invitation without a session = %d %v", code, body)
	}
	if code, body := invitee.do("POST", "/org/api/invitations/accept", `{"token":"`+ptoken+`"}`, true); code != 403 {
		t.Errorf("accept another address's invitation = %d %v", code, body)
	}
	p := newBrowser(t, r.base)
	p.login(pilot)
	if code, body := p.do("POST", "/org/api/invitations/accept", `{"token":"`+ptoken+`"}`, true); code != 200 || body["organizationName"] != "Acme Flight Department" {
		t.Errorf("the pilot accepts = %d %v", code, body)
	}
	if count(`SELECT count(*) FROM memberships m JOIN accounts a ON a.uuid = m.account_uuid WHERE a.email = $1`, pilot) != 1 {
		t.Error("the pilot did not join after accepting")
	}

	// Only those who may manage members invite: a dispatcher is refused, anonymous is 401.
	d := newBrowser(t, r.base)
	d.login("dispatcher@acme.hangar.test")
	if code, body := d.do("POST", "/org/api/members", `{"email":"x@example.com"}`, true); code != 403 {
		t.Errorf("a dispatcher invites = %d %v", code, body)
	}
	if code, body := newBrowserXSRF(t, r.base).do("POST", "/org/api/members", `{"email":"x@example.com"}`, true); code != 401 {
		t.Errorf("anonymous invites = %d %v", code, body)
	}
}

// Invitations are throttled per session and per organization (issue 41: 40 of 40
// answered before): one administrator's session is refused past its burst, and a second
// session of the same organization only gets what the organization's bucket has left.
// A user admin of the organization invites too.
func TestInvitationsAreThrottledPerSessionAndOrganization(t *testing.T) {
	t.Parallel()
	r := start(t)
	owner := newBrowser(t, r.base)
	owner.login("owner@acme.hangar.test")
	invited := 0
	for i := range app.InvitePerSession.Burst + 5 {
		code, body := owner.do("POST", "/org/api/members", fmt.Sprintf(`{"email":"crew%d@example.com"}`, i), true)
		switch {
		case code == 200:
			invited++
		case code == 429 && body["code"] == "resource_exhausted":
		default:
			t.Fatalf("invite %d = %d %v", i, code, body)
		}
	}
	if invited != app.InvitePerSession.Burst {
		t.Errorf("one session invited %d, want its burst of %d", invited, app.InvitePerSession.Burst)
	}
	admin := newBrowser(t, r.base)
	admin.login("admin@acme.hangar.test")
	more := 0
	for i := range app.InvitePerOrganization.Burst {
		if code, _ := admin.do("POST", "/org/api/members", fmt.Sprintf(`{"email":"more%d@example.com"}`, i), true); code == 200 {
			more++
		} else if code != 429 {
			t.Fatalf("the user admin's invite %d = %d", i, code)
		}
	}
	if want := app.InvitePerOrganization.Burst - app.InvitePerSession.Burst; more != want {
		t.Errorf("a second session of the organization invited %d, want the %d the organization had left", more, want)
	}
}

// Forgot password: the same answer for a known and an unknown address, a mail (and an
// event) only for the known one; the link sets the password, logs the asker in, ends every
// other session of the account, and tells the owner; a second use is refused.
func TestForgotPasswordEndToEnd(t *testing.T) {
	t.Parallel()
	r := start(t)
	sink := startNotifications(t, r.brokers)
	const pilot = "pilot@demo.hangar.test"
	const unknown = "nobody@nowhere.example"

	elsewhere := newBrowser(t, r.base)
	elsewhere.login(pilot) // a session on another device (or a thief's)

	b := newBrowser(t, r.base)
	b.do("GET", "/buy/api/me", "", false)
	codeU, unknownAnswer := b.do("POST", "/account/api/password/forgot", `{"email":"`+unknown+`"}`, true)
	codeK, knownAnswer := b.do("POST", "/account/api/password/forgot", `{"email":"  Pilot@Demo.Hangar.Test "}`, true)
	if codeU != 200 || codeK != 200 || unknownAnswer["message"] != knownAnswer["message"] || knownAnswer["status"] != "ok" || len(knownAnswer) != len(unknownAnswer) {
		t.Errorf("answers differ: unknown %d %v, known %d %v", codeU, unknownAnswer, codeK, knownAnswer)
	}
	if code, body := b.do("POST", "/account/api/password/forgot", `{"email":"not an address"}`, true); code != 400 || fieldMessage(body, "email") == "" {
		t.Errorf("malformed address = %d %v", code, body)
	}
	reset := waitMail(t, sink, pilot, "Reset your Hangar password")
	token := tokenOf(t, reset)
	if strings.Contains(reset.Text, "welcome=1") {
		t.Error("a reset link reads as a welcome")
	}
	// No mail for the unknown address: identity published no link for it (the unknown
	// request came first, and the outbox relay publishes in order, so its event would be on
	// the topic by now), and the sink holds none.
	if n := topicCount(t, r.brokers, events.TopicPasswordLinkIssued); n != 1 {
		t.Errorf("%d password links published; want 1 (the known address only)", n)
	}
	if m := sink.Mails(unknown); len(m) != 0 {
		t.Errorf("mail to the unknown address: %v", m[0].Subject)
	}

	const password = "a new and secret passphrase"
	code, body := setPassword(b, token, password, password)
	if code != 200 || body["status"] != "ok" {
		t.Fatalf("reset = %d %v", code, body)
	}
	if _, me := b.do("GET", "/buy/api/me", "", false); me["loggedIn"] != true {
		t.Errorf("not logged in after the reset: %v", me)
	}
	if _, me := elsewhere.do("GET", "/buy/api/me", "", false); me["loggedIn"] != false {
		t.Errorf("the other session survived the reset: %v", me)
	}
	changed := waitMail(t, sink, pilot, "password was changed")
	if linkToken.MatchString(changed.Text) {
		t.Error("the notice carries a link with a token")
	}
	if code, _ := setPassword(newBrowserXSRF(t, r.base), token, "yet another passphrase", "yet another passphrase"); code != 400 {
		t.Errorf("reset link used twice = %d, want 400", code)
	}
	fresh := newBrowser(t, r.base)
	fresh.do("GET", "/buy/api/me", "", false)
	if code, _ := fresh.do("POST", "/pricing/api/login", `{"username":"`+pilot+`","password":"`+app.DemoPassword+`"}`, true); code != 401 {
		t.Errorf("old password after the reset = %d, want 401", code)
	}
	if code, _ := fresh.do("POST", "/pricing/api/login", `{"username":"`+pilot+`","password":"`+password+`"}`, true); code != 200 {
		t.Errorf("new password = %d, want 200", code)
	}
}

// An expired link is refused and changes nothing.
func TestExpiredPasswordLinkIsRefused(t *testing.T) {
	t.Parallel()
	r := start(t)
	sink := startNotifications(t, r.brokers)
	const pilot = "pilot@demo.hangar.test"
	b := newBrowserXSRF(t, r.base)
	if code, _ := b.do("POST", "/account/api/password/forgot", `{"email":"`+pilot+`"}`, true); code != 200 {
		t.Fatalf("forgot = %d", code)
	}
	token := tokenOf(t, waitMail(t, sink, pilot, "Reset your Hangar password"))
	conn, err := pgx.Connect(context.Background(), r.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	// An hour has passed (IDENTITY_RESET_LINK_TTL).
	if _, err := conn.Exec(context.Background(), `UPDATE password_links SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	if code, body := setPassword(b, token, "a new and secret passphrase", "a new and secret passphrase"); code != 400 ||
		fieldMessage(body, "token") == "" || b.cookies[auth.SessionCookie] != "" {
		t.Errorf("expired link = %d %v", code, body)
	}
	b.login(pilot) // the password is unchanged
}

// Forgot password is throttled per e-mail over every address and replica (a script
// cannot fill someone's mailbox), the same for unknown e-mails; other e-mails still pass.
func TestForgotPasswordThrottledPerEmailAcrossReplicas(t *testing.T) {
	t.Parallel()
	first := start(t)
	second := startOn(t, first.dbURL, first.brokers)
	replicas := []*running{first, second}
	for _, email := range []string{"pilot@demo.hangar.test", "nobody@nowhere.example"} {
		burst := app.ResetPerEmail.Burst
		for i := range burst + 1 {
			client := fromAddr("127.0.1." + string(rune('1'+i)))
			req, _ := http.NewRequest("POST", replicas[i%2].base+"/account/api/password/forgot", strings.NewReader(`{"email":"`+email+`"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Cookie", auth.XSRFCookie+"=t")
			req.Header.Set(auth.XSRFHeader, "t")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			switch {
			case i < burst && resp.StatusCode != 200:
				t.Errorf("%s: request %d = %d, want 200", email, i+1, resp.StatusCode)
			case i == burst && (resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == ""):
				t.Errorf("%s: request past the burst = %d (Retry-After %q), want 429 with Retry-After", email, resp.StatusCode, resp.Header.Get("Retry-After"))
			}
		}
	}
}

// newBrowserXSRF is a browser that has loaded a page (it holds the XSRF cookie).
func newBrowserXSRF(t *testing.T, base string) *browser {
	b := newBrowser(t, base)
	b.do("GET", "/buy/api/me", "", false)
	return b
}

// topicCount answers how many messages topic holds, read from the partitions' offsets.
func topicCount(t *testing.T, brokers []string, topic string) int64 {
	t.Helper()
	conn, err := kafkago.Dial("tcp", brokers[0])
	if err != nil {
		t.Fatal(err)
	}
	parts, err := conn.ReadPartitions(topic)
	_ = conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, p := range parts {
		lc, err := kafkago.DialLeader(context.Background(), "tcp", brokers[0], topic, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		first, last, err := lc.ReadOffsets()
		_ = lc.Close()
		if err != nil {
			t.Fatal(err)
		}
		n += last - first
	}
	return n
}
