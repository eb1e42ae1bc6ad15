package app_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	kafkago "github.com/segmentio/kafka-go"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/servicetest"
	"github.com/hangar/hangar/internal/platform/telemetry"
	allocation "github.com/hangar/hangar/services/allocation/app"
	catalog "github.com/hangar/hangar/services/catalog/app"
	"github.com/hangar/hangar/services/checkout/app"
	iapp "github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/ports"
	payments "github.com/hangar/hangar/services/payments/app"
)

// stack is catalog, identity, payments and checkout running for real on throwaway
// databases; checkout has no Kafka brokers, so its events stay in its outbox to be counted
// (relay publishes them to the in-process broker, where identity consumes them).
type stack struct {
	base, idBase  string
	idGRPC        string
	catGRPC       string // catalog's gRPC address (the renew command's CATALOG_ADDR)
	payBase       string
	payFields     string // payments' fields origin (tokenize)
	checkoutDB    *pgxpool.Pool
	paymentsDB    *pgxpool.Pool
	app           *app.App
	pay           *payments.App
	broker        *kafka.Broker
	checkoutDBURL string
}

func startStack(t testing.TB, env map[string]string) *stack {
	t.Helper()
	return startCrashingStack(t, env, crashes{})
}

// crashes are the crash seams a stack is built with (nil: none).
type crashes struct {
	afterCapture func(processorKey string) error // payments, between the processor's capture and its commit
	afterCharge  func(key string) error          // checkout, between the charge and the order's write
}

// startCrashingStack is startStack with crash seams injected into payments and checkout.
func startCrashingStack(t testing.TB, env map[string]string, c crashes) *stack {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st := &stack{}
	var err error
	if st.broker, err = kafka.StartBroker(0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.broker.Close)
	idGRPC, idBase := startIdentityOn(t, st.broker.Addrs())
	st.idBase, st.idGRPC = idBase, idGRPC

	var ccfg catalog.Config
	if err := config.LoadFrom(&ccfg, lookup(map[string]string{"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
		"DATABASE_URL": dbtest.New(t), "SHUTDOWN_TIMEOUT": "2s", "LOG_LEVEL": "warn"})); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.New(ctx, ccfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Start(t, ctx, cancel, cat)
	catGRPC, _, _ := cat.Addrs()
	st.catGRPC = catGRPC

	payDB := dbtest.New(t)
	var pcfg payments.Config
	pvars := map[string]string{"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
		"DATABASE_URL": payDB, "SHUTDOWN_TIMEOUT": "2s", "LOG_LEVEL": "warn", "IDENTITY_ADDR": idGRPC, "TRUSTED_PROXIES": "0", "PAYMENTS_FIELDS_ADDR": "127.0.0.1:0",
		"PAYMENTS_DEV_SEED": "true", "PAYMENTS_READER_SIMULATOR": "true", "PAYMENTS_CARD_READERS": "RDR-0001",
		"PAYMENTS_SWEEP_INTERVAL": "0"} // tests drive the processor sweep (Sweep)
	if v, ok := env["PAYMENTS_VELOCITY_HUMAN_DECLINES"]; ok {
		pvars["PAYMENTS_VELOCITY_HUMAN_DECLINES"] = v // payments' own setting, for the tests of its human limit
	}
	if err := config.LoadFrom(&pcfg, lookup(pvars)); err != nil {
		t.Fatal(err)
	}
	pctx, pcancel := context.WithCancel(context.Background())
	pay, err := payments.New(pctx, pcfg, io.Discard, payments.WithAfterCapture(c.afterCapture))
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Run(t, pctx, pcancel, pay)
	st.pay = pay
	payGRPC, payHTTP, _ := pay.Addrs()
	st.payBase, st.payFields = "http://"+payHTTP, "http://"+pay.FieldsAddr()

	st.checkoutDBURL = dbtest.New(t)
	vars := map[string]string{"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
		"DATABASE_URL": st.checkoutDBURL, "SHUTDOWN_TIMEOUT": "2s", "CATALOG_ADDR": catGRPC, "CHECKOUT_DEV_SEED": "true", "LOG_LEVEL": "warn",
		"IDENTITY_ADDR": idGRPC, "PAYMENTS_ADDR": payGRPC, "TRUSTED_PROXIES": "0", "CHECKOUT_RECONCILE_INTERVAL": "1h",
		"DATABASE_MAX_CONNS": "8", "CHECKOUT_VAT_REGISTER": "dev"}
	for k, v := range env {
		vars[k] = v
	}
	st.checkoutDBURL = vars["DATABASE_URL"] // a test may bring its database, prepared
	var cfg app.Config
	if err := config.LoadFrom(&cfg, lookup(vars)); err != nil {
		t.Fatal(err)
	}
	kctx, kcancel := context.WithCancel(context.Background())
	st.app, err = app.New(kctx, cfg, io.Discard, app.WithAfterCharge(c.afterCharge))
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Run(t, kctx, kcancel, st.app)
	_, httpAddr, _ := st.app.Addrs()
	st.base = "http://" + httpAddr
	for _, p := range []struct {
		dst **pgxpool.Pool
		url string
	}{{&st.checkoutDB, st.checkoutDBURL}, {&st.paymentsDB, payDB}} {
		pool, err := pgxpool.New(context.Background(), p.url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		*p.dst = pool
	}
	return st
}

func (st *stack) count(t testing.TB, pool *pgxpool.Pool, q string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// tokenize answers a nonce for a test card, tokenised at payments' fields origin.
func (st *stack) tokenize(t testing.TB, number string) string {
	t.Helper()
	code, m := call(t, "POST", st.payFields+"/api/tokenize",
		`{"number":"`+number+`","cvv":"123","expirationDate":"12/2030","cardholderName":"Amelia Earhart","postalCode":"97201"}`)
	nonce, _ := m["nonce"].(string)
	if code != 200 || nonce == "" {
		t.Fatalf("tokenize: %d %v", code, m)
	}
	return nonce
}

// xsrfFor answers the XSRF token to send with cookies: the session's own when they carry
// a session (auth.SessionXSRF), else any pair.
func xsrfFor(cookies string) string {
	cs, _ := http.ParseCookie(cookies)
	for _, c := range cs {
		if c.Name == auth.SessionCookie && c.Value != "" {
			return auth.SessionXSRF(c.Value)
		}
	}
	return "test-xsrf"
}

// submitRaw posts a submit and answers status, body and the cookies set.
func submitRaw(t testing.TB, base, key, body string, cookie string) (int, map[string]any, []*http.Cookie) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/buy/api/invoice/submit", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	xsrf := xsrfFor(cookie)
	req.Header.Set("Cookie", strings.TrimSuffix("XSRF-TOKEN="+xsrf+"; "+cookie, "; "))
	req.Header.Set("X-XSRF-TOKEN", xsrf)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, nil, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Errorf("submit: %d %s", resp.StatusCode, b)
	}
	return resp.StatusCode, m, resp.Cookies()
}

// quoted previews cfg and answers the submit body: cfg plus the quote, nonce and name.
func quoted(t testing.TB, base, cfg, nonce, cookie string) string {
	t.Helper()
	var hdr []string
	if cookie != "" {
		hdr = []string{"Cookie", cookie}
	}
	code, pv := call(t, "POST", base+"/buy/api/invoice/preview", cfg, hdr...)
	if code != 200 || pv["quoteId"] == "" {
		t.Fatalf("preview: %d %v", code, pv)
	}
	var m map[string]any
	_ = json.Unmarshal([]byte(cfg), &m)
	m["quoteId"], m["cardholderName"] = pv["quoteId"], "Amelia Earhart"
	if strings.HasPrefix(nonce, "tok:") {
		m["paymentMethodToken"] = strings.TrimPrefix(nonce, "tok:")
	} else {
		m["nonce"] = nonce
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func newBuyer(tag string) string {
	return fmt.Sprintf(`{"email":"%s-%d@buyer.test","currency":"USD","addOns":["performance","included_geo_us","add_geo_eu"],"billingInfo":{"zipcode":"97201","country":"US"}}`,
		tag, time.Now().UnixNano())
}

func TestSubmit(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	// Read before a subtest relays (and so deletes) the outbox.
	seedEvents := st.subscriptionEvents(t, iapp.SeedSubscriptionID(iapp.SeedBusiness), "seed")

	t.Run("100 concurrent submits with one key: one charge, one order, one subscription change, one event", func(t *testing.T) {
		body := quoted(t, st.base, newBuyer("burst"), st.tokenize(t, "4111111111111111"), "")
		var wg sync.WaitGroup
		invoices := make([]string, 100)
		codes := make([]int, 100)
		for i := range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, m, _ := submitRaw(t, st.base, "burst-key", body, "")
				codes[i] = code
				invoices[i], _ = m["invoiceId"].(string)
			}()
		}
		wg.Wait()
		for i := range 100 {
			if codes[i] != 200 || invoices[i] == "" || invoices[i] != invoices[0] {
				t.Fatalf("answer %d: %d %q (first %q)", i, codes[i], invoices[i], invoices[0])
			}
		}
		if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges`); n != 1 {
			t.Errorf("%d charges", n)
		}
		if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM orders`); n != 1 {
			t.Errorf("%d orders", n)
		}
		if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM subscriptions WHERE last_invoice_id = $1`, invoices[0]); n != 1 {
			t.Errorf("%d subscriptions written", n)
		}
		// The card payments vaulted from the nonce is the one the renewal charges.
		if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM subscriptions WHERE last_invoice_id = $1
			AND payment_method_token <> ''`, invoices[0]); n != 1 {
			t.Errorf("%d subscriptions carry the vaulted payment method token, want 1", n)
		}
		// The new buyer's card is the account's card on file in payments: /account and the
		// payment-method routes show the card the renewal charges.
		if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM subscriptions WHERE last_invoice_id = $1`, invoices[0]); n == 1 {
			var account, token, onFile string
			if err := st.checkoutDB.QueryRow(context.Background(), `SELECT account_id::text, payment_method_token FROM subscriptions
				WHERE last_invoice_id = $1`, invoices[0]).Scan(&account, &token); err != nil {
				t.Fatal(err)
			}
			if err := st.paymentsDB.QueryRow(context.Background(), `SELECT method_token FROM billing_profiles WHERE account_id = $1`,
				account).Scan(&onFile); err != nil || onFile != token {
				t.Errorf("card on file of the new buyer = %q (%v), want the subscription's %q", onFile, err, token)
			}
		}
		// (The dev seed published the seeded subscriptions too: count the buyer's events.)
		for topic, want := range map[string]int{events.TopicOrderCompleted: 1, events.TopicSubscriptionChanged: 1} {
			if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM outbox WHERE topic = $1
				AND key = convert_to((SELECT account_id::text FROM orders WHERE invoice_id = $2), 'UTF8')`, topic, invoices[0]); n != want {
				t.Errorf("%d %s events", n, topic)
			}
		}
		// Published to the broker: the order-completed payload of this order.
		msg := st.relayAndRead(t, events.TopicOrderCompleted)
		var ev eventsv1.OrderCompleted
		if err := proto.Unmarshal(msg.Value, &ev); err != nil || ev.GetInvoiceId() != invoices[0] || ev.GetTotalInCents() != 47000 || ev.GetCardLast4() != "1111" {
			t.Errorf("order completed event: %v %v", &ev, err)
		}
		if string(msg.Key) != ev.GetAccountId() || ev.GetAccountId() == "" {
			t.Errorf("event key %q, account %q", msg.Key, ev.GetAccountId())
		}
		// The same key again later: the same invoice.
		code, m, _ := submitRaw(t, st.base, "burst-key", body, "")
		if code != 200 || m["invoiceId"] != invoices[0] {
			t.Errorf("replay: %d %v", code, m)
		}
		// The same key for another order (another buyer): 409, nothing charged. (The payment
		// fields — nonce, cardholder — are not the order: TestNoPaidOrderLost.)
		code, m, _ = submitRaw(t, st.base, "burst-key", strings.Replace(body, "@buyer.test", "@other.test", 1), "")
		if code != 409 || m["reason"] != "IDEMPOTENCY_KEY_REUSED" {
			t.Errorf("reused key: %d %v", code, m)
		}
		if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges`); n != 1 {
			t.Errorf("%d charges after the replays", n)
		}
	})

	t.Run("the seeded Acme subscription files the same pools as a real order of it", func(t *testing.T) {
		owner := login(t, st.idBase, "owner@acme.hangar.test")
		_, me := call(t, "GET", st.idBase+"/buy/api/me", "", "Cookie", owner)
		org, _ := me["organizationAccount"].(string)
		// The pools an event files: its add-ons with a licensing method (the others, such as
		// regions and the not-purchased markers an order adds, have none).
		pools := func(ev *eventsv1.SubscriptionChanged) map[string]string {
			out := map[string]string{}
			for _, a := range ev.GetAddOns() {
				if a.GetLicensingMethod() != "" {
					out[a.GetAddOnCode()] = fmt.Sprintf("%s/%d", a.GetLicensingMethod(), a.GetQuantity())
				}
			}
			return out
		}
		seed := seedEvents
		if len(seed) == 0 {
			t.Fatal("no seed event for the business subscription")
		}
		// The same subscription bought for real: its add-ons at the same quantity.
		add, _ := json.Marshal(iapp.SeedBusinessAddOns)
		cfg := `{"currency":"USD","addOns":` + string(add) + `,"quantity":5,` +
			`"isLicenseAgreementChecked":true,"isEulaChecked":true,"billingInfo":{"zipcode":"94105","country":"US"}}`
		code, m, _ := submitRaw(t, st.base, "acme-same-licences", quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), owner), owner)
		bought := st.subscriptionEvents(t, iapp.SeedSubscriptionID(iapp.SeedBusiness), "renewal")
		if code != 200 || len(bought) != 1 {
			t.Fatalf("submit: %d %v (%d renewal events)", code, m, len(bought))
		}
		want := pools(bought[0])
		// EFB Bridge is one per organization with no pool (the seed once filed 5 per user).
		if len(want) != 3 || want["business_pro"] != "USER_ALLOCATION/5" || want["logbook"] != "USER_ALLOCATION/5" || want["runway_tp_pilatus"] != "TAIL_ALLOCATION/1" {
			t.Errorf("a real order's add-ons: %v", want)
		}
		for name, got := range map[string]map[string]string{"checkout's seed event": pools(seed[0]),
			"allocation's dev seed event": pools(allocation.SeedEvent(org, time.Now()))} {
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s files %v; a real order files %v", name, got, want)
			}
		}
	})

	t.Run("the Acme owner buying three more licences files them under identity's organization", func(t *testing.T) {
		owner := login(t, st.idBase, "owner@acme.hangar.test")
		_, me := call(t, "GET", st.idBase+"/buy/api/me", "", "Cookie", owner)
		org, _ := me["organizationAccount"].(string)
		cfg := `{"currency":"USD","addOns":["business_pro","included_geo_us","efb_bridge","runway_tp_pilatus"],"quantity":8,` +
			`"isLicenseAgreementChecked":true,"isEulaChecked":true,"billingInfo":{"zipcode":"94105","country":"US"}}`
		code, m, _ := submitRaw(t, st.base, "acme-more-licences", quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), owner), owner)
		if code != 200 || org == "" {
			t.Fatalf("submit: %d %v (organization %q)", code, m, org)
		}
		var payload []byte
		if err := st.checkoutDB.QueryRow(context.Background(), `SELECT payload FROM outbox WHERE topic = $1 ORDER BY id DESC LIMIT 1`,
			events.TopicSubscriptionChanged).Scan(&payload); err != nil {
			t.Fatal(err)
		}
		var ev eventsv1.SubscriptionChanged
		if err := proto.Unmarshal(payload, &ev); err != nil || ev.GetOrganizationId() != org || ev.GetQuantity() != 8 {
			t.Errorf("subscription changed: organization %q, quantity %d (%v); want %q, 8", ev.GetOrganizationId(), ev.GetQuantity(), err, org)
		}
		// Seats carry their licensing method: the plan the subscription's, the runway package
		// the catalogue's (one tail); regions and organisation-wide features none.
		got := map[string]string{}
		for _, a := range ev.GetAddOns() {
			got[a.GetAddOnCode()] = fmt.Sprintf("%s/%d", a.GetLicensingMethod(), a.GetQuantity())
		}
		want := map[string]string{"business_pro": "USER_ALLOCATION/8", "included_geo_us": "/8", "efb_bridge": "/1", "runway_tp_pilatus": "TAIL_ALLOCATION/1"}
		for code, w := range want {
			if got[code] != w {
				t.Errorf("add-on %s = %q, want %q (all: %v)", code, got[code], w, got)
			}
		}
	})

	t.Run("a stale or foreign quote is refused with the fresh preview and nothing charged", func(t *testing.T) {
		before := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges`)
		cfg := newBuyer("quote")
		body := quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), "")
		// Foreign: the quote of another configuration.
		other := quoted(t, st.base, strings.Replace(cfg, `,"add_geo_eu"`, "", 1), "x", "")
		var o map[string]any
		_ = json.Unmarshal([]byte(other), &o)
		var b map[string]any
		_ = json.Unmarshal([]byte(body), &b)
		b["quoteId"] = o["quoteId"]
		foreign, _ := json.Marshal(b)
		code, m, _ := submitRaw(t, st.base, "quote-1", string(foreign), "")
		pv, _ := m["preview"].(map[string]any)
		if code != 409 || m["reason"] != "QUOTE_CHANGED" || pv == nil || pv["quoteId"] == "" {
			t.Errorf("foreign quote: %d %v", code, m)
		}
		// Stale: a forged or expired id.
		b["quoteId"] = "q_1_00000000000000000000000000000000"
		stale, _ := json.Marshal(b)
		if code, m, _ := submitRaw(t, st.base, "quote-2", string(stale), ""); code != 409 || m["reason"] != "QUOTE_CHANGED" {
			t.Errorf("stale quote: %d %v", code, m)
		}
		if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges`); n != before {
			t.Errorf("charged on a refused quote: %d -> %d", before, n)
		}
	})

	t.Run("a declined card: 402 with the processor's message, no order, the quote still usable", func(t *testing.T) {
		orders := st.count(t, st.checkoutDB, `SELECT count(*) FROM orders`)
		cfg := newBuyer("decline")
		body := quoted(t, st.base, cfg, st.tokenize(t, "4000000000000002"), "")
		code, m, _ := submitRaw(t, st.base, "decline-1", body, "")
		if code != 402 || m["reason"] != "PAYMENT_DECLINED" || m["message"] == "" {
			t.Errorf("decline: %d %v", code, m)
		}
		if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM orders`); n != orders {
			t.Errorf("an order was written for a decline")
		}
		if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM submissions WHERE key LIKE 'decline-1@%' AND status = 'declined'`); n != 1 {
			t.Errorf("the failed attempt is not recorded")
		}
		// Another card, a new key, the same quote.
		var b map[string]any
		_ = json.Unmarshal([]byte(body), &b)
		b["nonce"] = st.tokenize(t, "5555555555554444")
		again, _ := json.Marshal(b)
		if code, m, _ := submitRaw(t, st.base, "decline-2", string(again), ""); code != 200 || m["invoiceId"] == "" {
			t.Errorf("another card: %d %v", code, m)
		}
	})

	t.Run("validation: no key, no payment method, an existing account must log in", func(t *testing.T) {
		body := quoted(t, st.base, newBuyer("val"), st.tokenize(t, "4111111111111111"), "")
		if code, m, _ := submitRaw(t, st.base, "", body, ""); code != 400 {
			t.Errorf("no key: %d %v", code, m)
		}
		var b map[string]any
		_ = json.Unmarshal([]byte(body), &b)
		delete(b, "nonce")
		nopay, _ := json.Marshal(b)
		code, m, _ := submitRaw(t, st.base, "val-1", string(nopay), "")
		if code != 400 || !strings.Contains(fmt.Sprint(m["errors"]), "Credit Card cannot be blank") {
			t.Errorf("no payment method: %d %v", code, m)
		}
		existing := quoted(t, st.base, `{"email":"pilot@demo.hangar.test","currency":"USD","addOns":["performance","included_geo_us","add_geo_eu"]}`, st.tokenize(t, "4111111111111111"), "")
		code, m, _ = submitRaw(t, st.base, "val-2", existing, "")
		if code != 401 || m["requireLogin"] != true {
			t.Errorf("existing account: %d %v", code, m)
		}
	})

	t.Run("receipt: the browser that paid and the account read it; anyone else gets 404", func(t *testing.T) {
		body := quoted(t, st.base, newBuyer("receipt"), st.tokenize(t, "4111111111111111"), "")
		code, m, cookies := submitRaw(t, st.base, "receipt-1", body, "")
		if code != 200 {
			t.Fatalf("submit: %d %v", code, m)
		}
		id := m["invoiceId"].(string)
		var jar []string
		for _, c := range cookies {
			jar = append(jar, c.Name+"="+c.Value)
		}
		code, r := call(t, "GET", st.base+"/buy/api/receipt/"+id, "", "Cookie", strings.Join(jar, "; "))
		if code != 200 || r["total"] != "470.00" || r["currency"] != "USD" || r["cardLast4"] != "1111" || r["cardBrand"] != "Visa" ||
			r["created"] != time.Now().UTC().Format("01-02-2006") || !strings.HasSuffix(r["createdTime"].(string), " UTC") {
			t.Errorf("receipt: %d %v", code, r)
		}
		if code, _ := call(t, "GET", st.base+"/buy/api/receipt/"+id, ""); code != 404 {
			t.Errorf("another browser: %d", code)
		}
		pilot := login(t, st.idBase, "pilot@demo.hangar.test")
		if code, _ := call(t, "GET", st.base+"/buy/api/receipt/"+id, "", "Cookie", pilot); code != 404 {
			t.Errorf("another account: %d", code)
		}
		// Issue 26: with checkout's default quote key anyone who knew an invoice id forged
		// the receipt cookie. Receipts have keys of their own now: a cookie signed with the
		// old development quote key (bare, or under a key id) is refused.
		mac := hmac.New(sha256.New, []byte("dev-only-quote-key"))
		mac.Write([]byte("receipt|" + id))
		forged := hex.EncodeToString(mac.Sum(nil))[:40]
		name := ports.ReceiptCookiePrefix + strings.ReplaceAll(id, "-", "")
		for _, v := range []string{forged, "dev." + forged} {
			if code, _ := call(t, "GET", st.base+"/buy/api/receipt/"+id, "", "Cookie", name+"="+v); code != 404 {
				t.Errorf("receipt cookie forged with the quote key (%s): %d, want 404", v, code)
			}
		}
	})

	// The business counters (docs/reliability.md) reconcile with the tables: one count per
	// order written (the 100-request burst and replays count once), its total as revenue,
	// one decline per declined key.
	t.Run("business metrics match the orders and submissions tables", func(t *testing.T) {
		_, _, admin := st.app.Addrs()
		sum := func(name string) float64 { return servicetest.Metric(t, admin, name) }
		orders := st.count(t, st.checkoutDB, `SELECT count(*) FROM orders`)
		revenue := st.count(t, st.checkoutDB, `SELECT coalesce(sum(total_in_cents), 0)::int FROM orders`)
		declined := st.count(t, st.checkoutDB, `SELECT count(*) FROM submissions WHERE status = 'declined'`)
		if got := sum("hangar_orders_total"); got != float64(orders) || orders == 0 {
			t.Errorf("hangar_orders_total = %v, orders table has %d", got, orders)
		}
		if got := sum("hangar_order_revenue_minor_units_total"); got != float64(revenue) {
			t.Errorf("hangar_order_revenue_minor_units_total = %v, orders total %d", got, revenue)
		}
		if got := sum("hangar_payment_declines_total"); got != float64(declined) || declined == 0 {
			t.Errorf("hangar_payment_declines_total = %v, declined submissions %d", got, declined)
		}
	})
}

// The process dies between the charge and the write: the reconciler finds the captured
// charge and writes the order exactly once; the key then answers that order.
func TestSubmitCrashBetweenChargeAndWrite(t *testing.T) {
	t.Parallel()
	st := startCrashingStack(t, map[string]string{"CHECKOUT_SUBMIT_LEASE": "1ns"},
		crashes{afterCharge: func(string) error { return errors.New("injected crash after charge") }})

	body := quoted(t, st.base, newBuyer("crash"), st.tokenize(t, "4111111111111111"), "")
	code, m, _ := submitRaw(t, st.base, "crash-1", body, "")
	if code == 200 {
		t.Fatalf("the injected crash did not happen: %v", m)
	}
	if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges WHERE status = 'captured'`); n != 1 {
		t.Fatalf("%d captured charges", n)
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM orders`); n != 0 {
		t.Fatalf("%d orders before reconciling", n)
	}
	// Several reconcilers at once (replicas) and again later: one order.
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := st.app.Orders().Reconcile(context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if _, err := st.app.Orders().Reconcile(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM orders`); n != 1 {
		t.Fatalf("%d orders after reconciling", n)
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM outbox WHERE topic = $1`, events.TopicOrderCompleted); n != 1 {
		t.Errorf("%d order-completed events", n)
	}
	if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges`); n != 1 {
		t.Errorf("%d charges", n)
	}
	code, m, _ = submitRaw(t, st.base, "crash-1", body, "")
	if code != 200 || m["invoiceId"] == "" {
		t.Errorf("the key after reconciling: %d %v", code, m)
	}
}

// subscriptionEvents answers the subscription-changed events of one subscription and kind
// of change still in checkout's outbox, oldest first.
func (st *stack) subscriptionEvents(t *testing.T, subscriptionID, change string) []*eventsv1.SubscriptionChanged {
	t.Helper()
	rows, err := st.checkoutDB.Query(context.Background(), `SELECT payload FROM outbox WHERE topic = $1 ORDER BY id`, events.TopicSubscriptionChanged)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []*eventsv1.SubscriptionChanged
	for rows.Next() {
		var b []byte
		var ev eventsv1.SubscriptionChanged
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		if err := proto.Unmarshal(b, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.GetSubscriptionId() == subscriptionID && ev.GetChange() == change {
			out = append(out, &ev)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// relay publishes checkout's outbox to the in-process broker.
func (st *stack) relay(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	producer := kafka.NewProducer(st.broker.Addrs(), telemetry.Propagator())
	defer producer.Close()
	relay := &kafka.Relay{Pool: st.checkoutDB, Producer: producer, Log: nil}
	for {
		n, err := relay.RelayOnce(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// relayAndRead publishes the outbox to the in-process broker and reads topic's first message.
func (st *stack) relayAndRead(t *testing.T, topic string) kafkago.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st.relay(t)
	// A group reader: the topic has several partitions (a plain reader reads only one).
	r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: st.broker.Addrs(), Topic: topic, GroupID: fmt.Sprintf("test-%d", time.Now().UnixNano()),
		StartOffset: kafkago.FirstOffset, MaxWait: 100 * time.Millisecond})
	defer r.Close()
	msg, err := r.ReadMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// relayAndReadAll publishes the outbox and reads n gift-certificate-issued events of topic.
func (st *stack) relayAndReadAll(t *testing.T, topic string, n int) []*eventsv1.GiftCertificateIssued {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st.relay(t)
	r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: st.broker.Addrs(), Topic: topic, GroupID: fmt.Sprintf("test-all-%d", time.Now().UnixNano()),
		StartOffset: kafkago.FirstOffset, MaxWait: 100 * time.Millisecond})
	defer r.Close()
	var out []*eventsv1.GiftCertificateIssued
	for len(out) < n {
		msg, err := r.ReadMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ev := &eventsv1.GiftCertificateIssued{}
		if err := proto.Unmarshal(msg.Value, ev); err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

// form posts form data with the XSRF pair and a session cookie.
func form(t *testing.T, url, body, cookie string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	xsrf := xsrfFor(cookie)
	req.Header.Set("Cookie", "XSRF-TOKEN="+xsrf+"; "+cookie)
	req.Header.Set("X-XSRF-TOKEN", xsrf)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

func TestSubscriptionRoutes(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	const pilotID = "00000000-0000-4000-8000-000000000001"
	pilot := login(t, st.idBase, "pilot@demo.hangar.test")
	member := login(t, st.idBase, "member@acme.hangar.test")
	var pilotInvoice string

	t.Run("the seed's subscription events carry identity's account, organization and parent ids", func(t *testing.T) {
		rows, err := st.checkoutDB.Query(context.Background(), `SELECT payload FROM outbox WHERE topic = $1`, events.TopicSubscriptionChanged)
		if err != nil {
			t.Fatal(err)
		}
		seeded := map[string]*eventsv1.SubscriptionChanged{}
		for rows.Next() {
			var payload []byte
			ev := &eventsv1.SubscriptionChanged{}
			if err := rows.Scan(&payload); err != nil || proto.Unmarshal(payload, ev) != nil {
				t.Fatal(err)
			}
			if ev.GetChange() == "seed" {
				seeded[ev.GetAccountId()] = ev
			}
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		for _, email := range []string{"pilot@demo.hangar.test", "owner@acme.hangar.test", "pilot@army.mil", "child@demo.hangar.test"} {
			_, me := call(t, "GET", st.idBase+"/buy/api/me", "", "Cookie", login(t, st.idBase, email))
			id, _ := me["accountUuid"].(string)
			org, _ := me["organizationAccount"].(string)
			parent, _ := me["parentUuid"].(string)
			ev := seeded[id]
			if ev == nil {
				t.Errorf("%s: no seeded subscription event under identity's id %q", email, id)
				continue
			}
			if ev.GetOrganizationId() != org {
				t.Errorf("%s: event organization %q, identity's %q", email, ev.GetOrganizationId(), org)
			}
			var stored string
			if err := st.checkoutDB.QueryRow(context.Background(), `SELECT coalesce(parent_account_id::text, '') FROM subscriptions
				WHERE id = $1`, ev.GetSubscriptionId()).Scan(&stored); err != nil || stored != parent {
				t.Errorf("%s: stored parent %q (%v), identity's %q", email, stored, err, parent)
			}
		}
		if acme := seeded["00000000-0000-4000-8000-000000000002"]; acme == nil || acme.GetOrganizationId() == "" {
			t.Errorf("the Acme subscription event names no organization: %v", acme)
		}
	})

	t.Run("GET /buy/api/subscription: the session's subscription under identity's account id", func(t *testing.T) {
		if code, _ := call(t, "GET", st.base+"/buy/api/subscription", ""); code != 401 {
			t.Errorf("anonymous: %d", code)
		}
		code, m := call(t, "GET", st.base+"/buy/api/subscription", "", "Cookie", pilot)
		sub, _ := m["subscription"].(map[string]any)
		if code != 200 || sub["accountId"] != pilotID || sub["planCode"] != "performance" || sub["autoRenew"] != true || sub["quantity"] != 1.0 {
			t.Errorf("%d %v", code, m)
		}
		code, m = call(t, "GET", st.base+"/buy/api/subscription/simple?includePaymentInfo=1", "", "Cookie", pilot)
		pi, _ := m["paymentInfo"].(map[string]any)
		if code != 200 || pi["last4"] != "1111" || pi["token"] == "" {
			t.Errorf("simple with payment info: %d %v", code, m)
		}
	})

	t.Run("the pilot renews with his stored card", func(t *testing.T) {
		_, sub := call(t, "GET", st.base+"/buy/api/subscription/simple?includePaymentInfo=1", "", "Cookie", pilot)
		token := sub["paymentInfo"].(map[string]any)["token"].(string)
		before := sub["subscription"].(map[string]any)["termEndDate"].(string)
		body := quoted(t, st.base, `{"currency":"USD","addOns":["performance","included_geo_us","add_geo_eu"]}`, "tok:"+token, pilot)
		code, m, _ := submitRaw(t, st.base, "pilot-renew", body, pilot)
		if code != 200 || m["accountId"] != pilotID {
			t.Fatalf("renew: %d %v", code, m)
		}
		_, after := call(t, "GET", st.base+"/buy/api/subscription", "", "Cookie", pilot)
		end := after["subscription"].(map[string]any)["termEndDate"].(string)
		b, _ := time.Parse("2006-01-02", before)
		if want := b.AddDate(1, 0, 0).Format("2006-01-02"); end != want {
			t.Errorf("term end %s, want %s (extended from the current end)", end, want)
		}
		pilotInvoice, _ = m["invoiceId"].(string)
		// His session reads the receipt.
		if code, _ := call(t, "GET", st.base+"/buy/api/receipt/"+m["invoiceId"].(string), "", "Cookie", pilot); code != 200 {
			t.Errorf("receipt by the account: %d", code)
		}
	})

	t.Run("auto-renew: form data isAutoRenew", func(t *testing.T) {
		code, m := form(t, st.base+"/buy/api/subscription/auto-renew?productCode=performance", "isAutoRenew=false", pilot)
		if code != 200 || m["status"] != "succeeded" || m["autoRenew"] != false {
			t.Errorf("%d %v", code, m)
		}
		_, s := call(t, "GET", st.base+"/buy/api/subscription", "", "Cookie", pilot)
		if s["subscription"].(map[string]any)["autoRenew"] != false {
			t.Errorf("not stored: %v", s)
		}
		if code, _ := form(t, st.base+"/buy/api/subscription/auto-renew?productCode=mfb_pro", "isAutoRenew=true", pilot); code != 400 {
			t.Errorf("another product: %d", code)
		}
	})

	t.Run("GET /buy/api/currency: the customer's currency", func(t *testing.T) {
		code, m := call(t, "GET", st.base+"/buy/api/currency?email=pilot@demo.hangar.test", "")
		if code != 200 || m["currency"] != "USD" || m["fromSubscription"] != true || m["symbol"] != "$" {
			t.Errorf("%d %v", code, m)
		}
		if _, m := call(t, "GET", st.base+"/buy/api/currency?accountId=00000000-0000-4000-8000-0000000000ff", "", "Cookie", login(t, st.idBase, "employee@demo.hangar.test")); m["fromSubscription"] != false {
			t.Errorf("unknown account, asked by staff: %v", m)
		}
	})

	t.Run("account routes decide with auth.MayActOn's Billing right", func(t *testing.T) {
		if pilotInvoice == "" {
			t.Fatal("the renewal subtest made no receipt, so the receipt route cannot be checked")
		}
		const acmeID = "00000000-0000-4000-8000-000000000002"
		sessions := map[string]string{"anonymous": "", "pilot": pilot, "member": member}
		for name, email := range map[string]string{"owner": "owner@acme.hangar.test", "user admin": "admin@acme.hangar.test",
			"dispatcher": "dispatcher@acme.hangar.test", "employee": "employee@demo.hangar.test", "card admin": "cardadmin@demo.hangar.test"} {
			sessions[name] = login(t, st.idBase, email)
		}
		routes := []struct{ method, path, body string }{
			{"GET", "/buy/api/account/" + pilotID + "/subscription?subscriptionOnly=true", ""},
			{"GET", "/buy/api/account/" + acmeID + "/subscription?subscriptionOnly=true", ""},
			{"GET", "/buy/api/currency?accountId=" + pilotID, ""},
			{"GET", "/buy/api/receipt/" + pilotInvoice, ""},
			// The account's subscription currency is read for the check: Billing, as above.
			{"POST", "/buy/api/currency/validate", `{"currency":"USD","accountId":"` + pilotID + `"}`},
		}
		// Spec 001 §8 answers the account subscription route's refusals 403 (no session) and
		// 401 (not yours); a receipt is 404 to anyone who may not read it.
		for _, tc := range []struct {
			caller string
			want   [5]int
		}{
			{"anonymous", [5]int{403, 403, 401, 404, 401}},
			{"pilot", [5]int{200, 401, 200, 200, 200}},
			{"owner", [5]int{401, 200, 403, 404, 403}},
			{"user admin", [5]int{401, 401, 403, 404, 403}},
			{"dispatcher", [5]int{401, 401, 403, 404, 403}},
			{"member", [5]int{401, 401, 403, 404, 403}},
			{"employee", [5]int{200, 200, 200, 200, 200}},
			{"card admin", [5]int{200, 200, 200, 200, 200}},
		} {
			for i, r := range routes {
				var hdr []string
				if c := sessions[tc.caller]; c != "" {
					hdr = []string{"Cookie", c}
				}
				if code, m := call(t, r.method, st.base+r.path, r.body, hdr...); code != tc.want[i] {
					t.Errorf("%s %s %s: %d, want %d (%v)", tc.caller, r.method, r.path, code, tc.want[i], m)
				}
			}
		}
		// An e-mail alone stays anonymous, as GET /buy/api/currency?email= does.
		if code, m := call(t, "POST", st.base+"/buy/api/currency/validate", `{"currency":"EUR","email":"pilot@demo.hangar.test"}`); code != 200 || m["errorCode"] != "CURRENCY_NOT_ALLOWED_FOR_ACCOUNT" {
			t.Errorf("anonymous by e-mail: %d %v", code, m)
		}
	})

	t.Run("billing contact: 403 without a session, 401 for another account, saved for the account", func(t *testing.T) {
		url := st.base + "/buy/api/account/" + pilotID + "/subscription?subscriptionOnly=true"
		if code, _ := call(t, "GET", url, ""); code != 403 {
			t.Errorf("anonymous: %d", code)
		}
		if code, m := call(t, "GET", url, "", "Cookie", member); code != 401 || m["message"] != "You are not authorized." {
			t.Errorf("another account: %d %v", code, m)
		}
		upd := st.base + "/buy/api/account/subscription/contact/update/" + pilotID
		contact := `{"name":"Pat Pilot","physicalAddress":"1 Runway Rd","city":"Portland","stateProvince":"OR","postalCode":"97201","country":"us"}`
		if code, _ := call(t, "POST", upd, contact, "Cookie", member); code != 401 {
			t.Errorf("update by another account: %d", code)
		}
		code, m := call(t, "POST", upd, contact, "Cookie", pilot)
		if code != 200 || m["country"] != "US" || m["city"] != "Portland" {
			t.Errorf("update: %d %v", code, m)
		}
		_, m = call(t, "GET", url, "", "Cookie", pilot)
		bc := m["subscription"].(map[string]any)["billingContact"].(map[string]any)
		if bc["name"] != "Pat Pilot" || bc["postalCode"] != "97201" {
			t.Errorf("read back: %v", m)
		}
	})
}
