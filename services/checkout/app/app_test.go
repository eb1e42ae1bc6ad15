package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	allocation "github.com/hangar/hangar/services/allocation/app"
	catalog "github.com/hangar/hangar/services/catalog/app"
	"github.com/hangar/hangar/services/checkout/app"
	identity "github.com/hangar/hangar/services/identity/app"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/servicetest"
)

func lookup(vars map[string]string) config.Lookup {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

// start runs the real catalog and checkout apps on throwaway databases and answers the
// checkout REST base URL.
func start(t *testing.T, env map[string]string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
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

	vars := map[string]string{"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
		"DATABASE_URL": dbtest.New(t), "SHUTDOWN_TIMEOUT": "2s", "CATALOG_ADDR": catGRPC, "CHECKOUT_DEV_SEED": "true", "LOG_LEVEL": "warn"}
	for k, v := range env {
		vars[k] = v
	}
	var cfg app.Config
	if err := config.LoadFrom(&cfg, lookup(vars)); err != nil {
		t.Fatal(err)
	}
	a, err := app.New(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Run(t, ctx, cancel, a)
	_, httpAddr, _ := a.Addrs()
	return "http://" + httpAddr
}

// startIdentity runs the real identity service with its demo accounts and answers its gRPC
// address (for checkout's IDENTITY_ADDR) and REST base URL (to log in).
func startIdentity(t testing.TB) (grpcAddr, base string) {
	t.Helper()
	broker, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(broker.Close)
	return startIdentityOn(t, broker.Addrs())
}

// startIdentityOn is startIdentity publishing to and consuming from brokers (checkout's
// subscription-changed and marketing-consent-given events reach it there).
func startIdentityOn(t testing.TB, brokers []string) (grpcAddr, base string) {
	t.Helper()
	grpcAddr, base, _ = startIdentityDB(t, brokers)
	return grpcAddr, base
}

// startIdentityDB is startIdentityOn also answering identity's database URL.
func startIdentityDB(t testing.TB, brokers []string) (grpcAddr, base, dbURL string) {
	t.Helper()
	dbURL = dbtest.New(t)
	vars := map[string]string{
		"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0", "SHUTDOWN_TIMEOUT": "2s",
		"DATABASE_URL": dbURL, "KAFKA_BROKERS": strings.Join(brokers, ","), "IDENTITY_DEV_SEED": "true",
		"TRUSTED_PROXIES": "0", "IDENTITY_ARGON2_MEMORY_KIB": "64", "IDENTITY_ARGON2_TIME": "1", "LOG_LEVEL": "warn",
	}
	var cfg identity.Config
	if err := config.LoadFrom(&cfg, lookup(vars)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := identity.New(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Run(t, ctx, cancel, a)
	g, h, _ := a.Addrs()
	return g, "http://" + h, dbURL
}

// startAllocation runs the real allocation service with its dev seed (Acme's tails, the
// runway analysis on N412AC), consuming subscription-changed from brokers, and answers its
// gRPC address (checkout's ALLOCATION_ADDR) and REST base URL.
func startAllocation(t *testing.T, identityAddr string, brokers []string) (grpcAddr, base string) {
	t.Helper()
	vars := map[string]string{
		"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0", "SHUTDOWN_TIMEOUT": "2s",
		"DATABASE_URL": dbtest.New(t), "KAFKA_BROKERS": strings.Join(brokers, ","), "IDENTITY_ADDR": identityAddr,
		"ALLOCATION_DEV_SEED": "true", "TRUSTED_PROXIES": "0", "LOG_LEVEL": "warn",
	}
	var cfg allocation.Config
	if err := config.LoadFrom(&cfg, lookup(vars)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := allocation.New(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Run(t, ctx, cancel, a)
	g, h, _ := a.Addrs()
	return g, "http://" + h
}

// eventually polls cond until it holds or 20 s pass (events are consumed asynchronously).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20 s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// login logs a demo account in at identity and answers the session cookie to send along.
func login(t *testing.T, identityBase, email string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", identityBase+"/pricing/api/login", strings.NewReader(`{"username":"`+email+`","password":"`+identity.DemoPassword+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cookie", "XSRF-TOKEN=test-xsrf")
	req.Header.Set("X-XSRF-TOKEN", "test-xsrf")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == auth.SessionCookie && c.Value != "" {
			return auth.SessionCookie + "=" + c.Value
		}
	}
	b, _ := io.ReadAll(resp.Body)
	t.Fatalf("login %s: %d %s", email, resp.StatusCode, b)
	return ""
}

func call(t testing.TB, method, url, body string, hdr ...string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	// The shared CSRF middleware: a browser echoes the XSRF-TOKEN cookie in the header.
	req.Header.Set("Cookie", "XSRF-TOKEN=test-xsrf")
	req.Header.Set("X-XSRF-TOKEN", "test-xsrf")
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Cookie" { // a session cookie goes along with its own XSRF token
			xsrf := auth.SessionXSRF(strings.TrimPrefix(hdr[i+1], auth.SessionCookie+"="))
			req.Header.Set("Cookie", "XSRF-TOKEN="+xsrf+"; "+hdr[i+1])
			req.Header.Set("X-XSRF-TOKEN", xsrf)
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, b)
	}
	return resp.StatusCode, m
}

func items(m map[string]any) []map[string]any {
	var out []map[string]any
	inv, _ := m["invoice"].(map[string]any)
	list, _ := inv["invoiceItems"].([]any)
	for _, x := range list {
		out = append(out, x.(map[string]any))
	}
	return out
}

func TestAPI(t *testing.T) {
	t.Parallel()
	idGRPC, idBase := startIdentity(t)
	broker, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(broker.Close)
	// The real allocation service: checkout's seed events reach it through the broker, and
	// checkout reads who holds what from it over gRPC.
	allocGRPC, allocBase := startAllocation(t, idGRPC, broker.Addrs())
	base := start(t, map[string]string{"CHECKOUT_CODE_ATTEMPTS": "3", "CHECKOUT_CODE_WINDOW": "1h", "IDENTITY_ADDR": idGRPC,
		"ALLOCATION_ADDR": allocGRPC, "KAFKA_BROKERS": strings.Join(broker.Addrs(), ",")})
	pilot := "00000000-0000-4000-8000-000000000001"
	pilotSession := login(t, idBase, "pilot@demo.hangar.test")
	strs := func(v any) []string {
		var out []string
		list, _ := v.([]any)
		for _, x := range list {
			s, _ := x.(string)
			out = append(out, s)
		}
		return out
	}
	has := func(v any, s string) bool {
		for _, x := range strs(v) {
			if x == s {
				return true
			}
		}
		return false
	}

	t.Run("a logged-in caller's account and e-mail win and the e-mail is locked", func(t *testing.T) {
		_, m := call(t, "POST", base+"/buy/api/invoice/preview", `{"email":"someone@else.test","addOns":["performance","included_geo_us","add_geo_eu"]}`, "Cookie", pilotSession)
		if m["email"] != "pilot@demo.hangar.test" || m["loggedIn"] != true || m["emailLocked"] != true || m["accountId"] != pilot {
			t.Errorf("%v", m)
		}
		// One account id: identity's demo pilot owns checkout's seeded subscription, renewed here.
		if m["isRenewal"] != true {
			t.Errorf("not a renewal: %v", m)
		}
	})
	t.Run("isLoggedIn in the body is ignored: the session decides", func(t *testing.T) {
		_, m := call(t, "POST", base+"/buy/api/invoice/validate", `{"isLoggedIn":true,"email":"pilot@demo.hangar.test","addOns":["performance","included_geo_us"]}`)
		if m["requireLogin"] != true || !has(m["errors"], "An account already exists for this e-mail address. Please log in to continue.") {
			t.Errorf("%v", m)
		}
		_, m = call(t, "POST", base+"/buy/api/invoice/validate", `{"email":"pilot@demo.hangar.test","addOns":["performance","included_geo_us","add_geo_eu"]}`, "Cookie", pilotSession)
		if m["requireLogin"] != false || has(m["errors"], "An account already exists for this e-mail address. Please log in to continue.") {
			t.Errorf("logged in as that account: %v", m)
		}
	})
	t.Run("logged in as another account than the one named", func(t *testing.T) {
		_, m := call(t, "POST", base+"/buy/api/invoice/validate", `{"accountId":"00000000-0000-4000-8000-000000000006","addOns":["pro_plus","included_geo_us"]}`, "Cookie", pilotSession)
		if m["requireLogin"] != true {
			t.Errorf("%v", m)
		}
	})
	t.Run("a multi-licence purchase needs a login", func(t *testing.T) {
		cfg := `{"email":"fleet@new.test","organizationName":"Fleet","addOns":["business_pro","included_geo_us"],"quantity":3,"isLicenseAgreementChecked":true,"isEulaChecked":true}`
		_, m := call(t, "POST", base+"/buy/api/invoice/validate", cfg)
		if m["requireLogin"] != true || !has(m["errors"], "Please log in to buy more than one license.") {
			t.Errorf("%v", m)
		}
		_, m = call(t, "POST", base+"/buy/api/invoice/validate", cfg, "Cookie", login(t, idBase, "member@acme.hangar.test"))
		if m["requireLogin"] != false {
			t.Errorf("logged in: %v", m)
		}
	})
	t.Run("a child account of a group gets CHILD_ACCOUNT_PURCHASE", func(t *testing.T) {
		_, m := call(t, "POST", base+"/buy/api/invoice/preview", `{}`, "Cookie", login(t, idBase, "child@demo.hangar.test"))
		if !has(m["errorCodes"], "CHILD_ACCOUNT_PURCHASE") || len(strs(m["planErrors"])) != 1 {
			t.Errorf("%v", m)
		}
	})
	t.Run("business owner: regions disabled, allocated products locked, allocations asked about, all from the allocation service", func(t *testing.T) {
		owner := login(t, idBase, "owner@acme.hangar.test")
		report := func() map[string]any {
			_, r := call(t, "GET", allocBase+"/account/api/subscription/allocation/report", "", "Cookie", owner)
			m, _ := r["addOnAllocationReports"].(map[string]any)
			return m
		}
		// The pools come from checkout's seed event (and allocation's own seed); the dev seed
		// gives N412AC the one runway licence.
		eventually(t, "Acme's pools and the N412AC runway licence", func() bool {
			r := report()
			lb, _ := r["logbook"].(map[string]any)
			rw, _ := r["runway_tp_pilatus"].(map[string]any)
			return lb != nil && rw != nil && rw["assigned"] == 1.0
		})
		assign := func(path, code, target, typ string) {
			t.Helper()
			status, m := call(t, "POST", allocBase+"/account/api/subscription/allocation/"+path,
				`{"addOnCodes":["`+code+`"],"targetId":"`+target+`","targetType":"`+typ+`"}`, "Cookie", owner)
			if status != 200 {
				t.Fatalf("%s %s to %s: %d %v", path, code, target, status, m)
			}
		}
		// Nobody holds Logbook yet: it may be toggled.
		cart := `{"addOns":["business_pro","included_geo_eu","runway_tp_pilatus"],"quantity":5}`
		_, m := call(t, "POST", base+"/buy/api/invoice/preview", cart, "Cookie", owner)
		if m["regionsDisabled"] != true || has(m["lockedAddOns"], "logbook") || has(m["addOns"], "logbook") || has(m["errorCodes"], "ALLOCATIONS_UNAVAILABLE") {
			t.Errorf("before assigning: %v", m)
		}
		// The owner takes a Logbook licence at the allocation service: now it is locked.
		assign("assign", "logbook", "00000000-0000-4000-8000-000000000002", "USER")
		_, m = call(t, "POST", base+"/buy/api/invoice/preview", cart, "Cookie", owner)
		if m["regionsDisabled"] != true || !has(m["lockedAddOns"], "logbook") || !has(m["addOns"], "logbook") || !has(m["addOns"], "included_geo_us") || has(m["addOns"], "included_geo_eu") {
			t.Errorf("after assigning: %v", m)
		}
		drop := `"addOns":["business_pro","included_geo_us","logbook","efb_bridge"],"quantity":5,"isLicenseAgreementChecked":true,"isEulaChecked":true`
		_, m = call(t, "POST", base+"/buy/api/invoice/validate", `{`+drop+`}`, "Cookie", owner)
		allocs, _ := m["allocations"].([]any)
		if m["status"] != "fail" || len(allocs) != 1 || allocs[0].(map[string]any)["targetId"] != "N412AC" {
			t.Fatalf("%v", m)
		}
		echo, _ := json.Marshal(allocs)
		_, m = call(t, "POST", base+"/buy/api/invoice/validate", `{`+drop+`,"expiredAllocations":`+string(echo)+`}`, "Cookie", owner)
		if has(m["errors"], "Some of your aircraft allocations end with this change. Choose whether to keep them.") {
			t.Errorf("acknowledged: %v", m)
		}
		_, m = call(t, "POST", base+"/buy/api/invoice/preview", `{`+drop+`,"keepExpiredAllocations":true}`, "Cookie", owner)
		if !has(m["addOns"], "runway_tp_pilatus") {
			t.Errorf("kept: %v", m)
		}
		// Read live, not cached: the runway licence moves to N500AC at the allocation service,
		// and the next validate names N500AC.
		assign("unassign", "runway_tp_pilatus", "N412AC", "TAIL")
		assign("assign", "runway_tp_pilatus", "N500AC", "TAIL")
		_, m = call(t, "POST", base+"/buy/api/invoice/validate", `{`+drop+`}`, "Cookie", owner)
		if allocs, _ := m["allocations"].([]any); len(allocs) != 1 || allocs[0].(map[string]any)["targetId"] != "N500AC" {
			t.Errorf("after moving the licence: %v", m)
		}
	})

	t.Run("premium with an added Europe region in USD", func(t *testing.T) {
		code, m := call(t, "POST", base+"/buy/api/invoice/preview", `{"currency":"USD","addOns":["performance","included_geo_us","add_geo_eu"]}`)
		it := items(m)
		if code != 200 || len(it) != 3 || it[0]["amountInCents"] != 37000.0 || it[1]["amountInCents"] != 0.0 || it[2]["amountInCents"] != 10000.0 {
			t.Fatalf("%d %v", code, m)
		}
		inv := m["invoice"].(map[string]any)
		if inv["subtotalInCents"] != 47000.0 || inv["taxInCents"] != 0.0 || inv["taxVatText"] != "Tax" || m["quoteId"] == "" {
			t.Errorf("invoice %v", inv)
		}
	})
	t.Run("one-off products are refused in subscription carts, naming the field", func(t *testing.T) {
		for _, tc := range []struct{ route, body, field string }{
			{"preview", `{"currency":"USD","addOns":["performance","included_geo_us","oneoff_dbcard_garmin_sd"]}`, "addOns"},
			{"validate", `{"currency":"USD","addOns":["performance","included_geo_us","oneoff_chartpack_us_vfr"]}`, "addOns"},
			{"preview", `{"currency":"USD","addOns":["performance","included_geo_us"],"extras":["oneoff_dbcard_avidyne_usb"]}`, "extras"},
			{"submit", `{"currency":"USD","addOns":["performance","included_geo_us","oneoff_dbcard_garmin_sd"],"nonce":"n","cardholderName":"A B","quoteId":"q"}`, "addOns"},
		} {
			var code int
			var m map[string]any
			if tc.route == "submit" {
				code, m, _ = submitRaw(t, base, "oneoff-in-subscription", tc.body, "")
			} else {
				code, m = call(t, "POST", base+"/buy/api/invoice/"+tc.route, tc.body)
			}
			fe, _ := m["fieldErrors"].([]any)
			msg, _ := m["message"].(string)
			if code != 400 || len(fe) != 1 || fe[0].(map[string]any)["field"] != tc.field || !strings.Contains(msg, "one-off product") ||
				!strings.Contains(msg, "("+tc.field+")") {
				t.Errorf("%s %s: %d %v", tc.route, tc.body, code, m)
			}
		}
		// Without them the same cart prices.
		if code, m := call(t, "POST", base+"/buy/api/invoice/preview", `{"currency":"USD","addOns":["performance","included_geo_us"]}`); code != 200 {
			t.Errorf("a subscription cart without one-off products: %d %v", code, m)
		}
	})
	t.Run("business with quantity 1", func(t *testing.T) {
		_, m := call(t, "POST", base+"/buy/api/invoice/preview", `{"addOns":["business_pro","included_geo_us"],"quantity":1}`)
		if errs, _ := m["errors"].([]any); len(errs) != 1 || errs[0] != "business plans require a minimum of two licenses" {
			t.Errorf("%v", m)
		}
	})
	t.Run("the rules' own notes are not sent as the buyer's bullets", func(t *testing.T) {
		// A military cart starts from its plan, and an empty individual cart from its own:
		// changes the rules made, noted for tests and logs, not sentences for the buyer
		// (issue 45: "military carts start from Military Flight Bag Pro" under the invoice).
		for _, body := range []string{`{"currency":"USD","military":true}`, `{"currency":"USD","addOns":["performance"]}`,
			`{"currency":"USD","addOns":["performance","included_geo_us","included_geo_eu"]}`} {
			code, m := call(t, "POST", base+"/buy/api/invoice/preview", body)
			if code != 200 {
				t.Fatalf("%s: %d %v", body, code, m)
			}
			if adj, _ := m["adjustments"].([]any); len(adj) != 0 {
				t.Errorf("%s: adjustments %v", body, adj)
			}
		}
	})
	t.Run("typed quantity text becomes the minimum", func(t *testing.T) {
		_, m := call(t, "POST", base+"/buy/api/invoice/preview", `{"addOns":["business_pro","included_geo_us"],"quantity":"abc"}`)
		if m["quantity"] != 2.0 {
			t.Errorf("%v", m)
		}
	})
	t.Run("seeded subscriber downgrade", func(t *testing.T) {
		_, m := call(t, "POST", base+"/buy/api/invoice/preview", `{"accountId":"`+pilot+`","addOns":["pro_plus","included_geo_us","add_geo_eu"]}`, "Cookie", pilotSession)
		pc := m["planChange"].(map[string]any)
		if pc["isDowngraded"] != true || pc["needsConfirmation"] != true {
			t.Errorf("plan change %v", pc)
		}
		found := false
		for _, it := range items(m) {
			found = found || it["type"] == "SUBSCRIPTION_CREDIT" && it["description"] == "Credit for 143 unused days of Premium" && it["quantity"] == 0.0
		}
		if !found {
			t.Errorf("no credit line: %v", items(m))
		}
		inv := m["invoice"].(map[string]any)
		if inv["taxJurisdiction"] != "US-CA" || inv["taxInCents"] == 0.0 {
			t.Errorf("tax from the subscription's billing contact: %v", inv)
		}
	})
	t.Run("counter follows the page's own quote stream", func(t *testing.T) {
		_, a := call(t, "POST", base+"/buy/api/invoice/preview", `{"cartId":"c1","counter":5}`)
		_, b := call(t, "POST", base+"/buy/api/invoice/preview", `{"cartId":"c1","counter":1}`)
		ca, cb := a["invoice"].(map[string]any)["counter"], b["invoice"].(map[string]any)["counter"]
		// JSON numbers on the public wire (int32), not the strings int64 would be. Another
		// page's request on the same cart id does not move this one's counter.
		if ca != 6.0 || cb != 2.0 {
			t.Errorf("counters %v %v", ca, cb)
		}
	})
	t.Run("unknown JSON fields are refused", func(t *testing.T) {
		code, m := call(t, "POST", base+"/buy/api/invoice/preview", `{"nope":1}`)
		if code != 400 || m["code"] != "invalid_argument" {
			t.Errorf("%d %v", code, m)
		}
	})
	t.Run("validate asks an existing customer to log in", func(t *testing.T) {
		_, m := call(t, "POST", base+"/buy/api/invoice/validate", `{"email":"pilot@demo.hangar.test","addOns":["performance","included_geo_us"]}`)
		if m["status"] != "fail" || m["requireLogin"] != true {
			t.Errorf("%v", m)
		}
		_, m = call(t, "POST", base+"/buy/api/invoice/validate", `{"email":"new@example.com","addOns":["performance","included_geo_us"]}`)
		if m["status"] != "ok" {
			t.Errorf("%v", m)
		}
	})
	t.Run("currency not allowed for the account", func(t *testing.T) {
		_, m := call(t, "POST", base+"/buy/api/currency/validate", `{"currency":"EUR","accountId":"`+pilot+`"}`, "Cookie", pilotSession)
		if m["errorCode"] != "CURRENCY_NOT_ALLOWED_FOR_ACCOUNT" || m["message"] != "Sorry, that currency is not allowed for your account." {
			t.Errorf("%v", m)
		}
	})
	t.Run("renewal price of the legacy subscriber", func(t *testing.T) {
		url := base + "/buy/api/subscription/renewal-price?subscriptionId=10000000-0000-4000-8000-000000000006"
		code, m := call(t, "GET", url, "", "Cookie", login(t, idBase, "employee@demo.hangar.test"))
		if code != 200 || m["legacyPlanReplaced"] != true || m["renewalAmountInCents"] != 19999.0 {
			t.Errorf("%d %v", code, m)
		}
		// An account's renewal price is its billing data: not for anyone else.
		if code, m := call(t, "GET", url, ""); code != 401 {
			t.Errorf("anonymous: %d %v", code, m)
		}
		if code, m := call(t, "GET", url, "", "Cookie", pilotSession); code != 403 {
			t.Errorf("another account: %d %v", code, m)
		}
	})
	t.Run("business can downgrade, child account cannot; asked by who holds Billing on it", func(t *testing.T) {
		const acme, child = "00000000-0000-4000-8000-000000000002", "00000000-0000-4000-8000-000000000005"
		_, m := call(t, "GET", base+"/buy/api/business/can-downgrade?accountId="+acme, "", "Cookie", login(t, idBase, "owner@acme.hangar.test"))
		if m["canDowngrade"] != true {
			t.Errorf("the organization's owner: %v", m)
		}
		_, m = call(t, "GET", base+"/buy/api/business/can-downgrade?accountId="+child, "", "Cookie", login(t, idBase, "employee@demo.hangar.test"))
		if m["canDowngrade"] != false {
			t.Errorf("staff on the child account: %v", m)
		}
		// The answer describes the account's subscription: not for anyone else.
		if code, m := call(t, "GET", base+"/buy/api/business/can-downgrade?accountId="+acme, ""); code != 401 {
			t.Errorf("anonymous: %d %v", code, m)
		}
		if code, m := call(t, "GET", base+"/buy/api/business/can-downgrade?accountId="+acme, "", "Cookie", pilotSession); code != 403 {
			t.Errorf("another account: %d %v", code, m)
		}
		if code, m := call(t, "GET", base+"/buy/api/business/can-downgrade?accountId="+acme, "", "Cookie", login(t, idBase, "member@acme.hangar.test")); code != 403 {
			t.Errorf("a plain member of the organization: %d %v", code, m)
		}
	})
	t.Run("promo code already used and gift in another currency", func(t *testing.T) {
		_, m := call(t, "POST", base+"/buy/api/promo/validate", `{"code":"welcome5","configuration":{"accountId":"`+pilot+`"}}`, "X-Forwarded-For", "10.0.0.1", "Cookie", pilotSession)
		if m["status"] != "fail" || m["message"] != "Code already used." {
			t.Errorf("%v", m)
		}
		_, m = call(t, "POST", base+"/buy/api/promo/validate", `{"code":"GIFT-EUR-50","configuration":{"currency":"USD"}}`, "X-Forwarded-For", "10.0.0.1")
		if m["kind"] != "gift" || m["errorCode"] != "GIFTCARD_CURRENCY_MISMATCH" {
			t.Errorf("%v", m)
		}
	})
	t.Run("code guessing is rate-limited per client", func(t *testing.T) {
		var code int
		var m map[string]any
		for i := range 5 {
			code, m = call(t, "POST", base+"/buy/api/promo/validate", `{"code":"GUESS`+string(rune('A'+i))+`"}`, "X-Forwarded-For", "10.9.9.9")
		}
		if code != 429 || m["code"] != "resource_exhausted" || !strings.Contains(m["message"].(string), "Too many") {
			t.Errorf("%d %v", code, m)
		}
	})
}

// The shared middleware guards checkout's non-safe routes: a POST without the XSRF echo is
// refused before any pricing happens.
func TestPreviewNeedsXSRF(t *testing.T) {
	t.Parallel()
	base := start(t, nil)
	req, _ := http.NewRequest(http.MethodPost, base+"/buy/api/invoice/preview", strings.NewReader(`{"currency":"USD","addOns":["performance"]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), `"code":"permission_denied"`) {
		t.Errorf("POST without XSRF = %d %s; want 403 permission_denied", resp.StatusCode, b)
	}
}

// While the allocation service does not answer, a preview is still priced (200), says so
// (ALLOCATIONS_UNAVAILABLE and a notice among the adjustments) and keeps every pooled
// add-on of the subscription as it is, so no allocation can end without the buyer being
// asked; validate does not ask about tail allocations it cannot see.
func TestPreviewWithoutTheAllocationService(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := l.Addr().String()
	l.Close() // nothing listens there: every call is refused
	idGRPC, idBase := startIdentity(t)
	base := start(t, map[string]string{"ALLOCATION_ADDR": down, "IDENTITY_ADDR": idGRPC})
	// Acme's account is priced for whoever holds its Billing right: its owner.
	owner := login(t, idBase, "owner@acme.hangar.test")
	acme := `"accountId":"00000000-0000-4000-8000-000000000002"`
	code, m := call(t, "POST", base+"/buy/api/invoice/preview", `{`+acme+`,"addOns":["business_pro","included_geo_eu"],"quantity":5}`, "Cookie", owner)
	if code != 200 {
		t.Fatalf("preview with allocation down: %d %v", code, m)
	}
	var notices []string
	list, _ := m["adjustments"].([]any)
	for _, x := range list {
		if a, _ := x.(map[string]any); a["action"] == "notice" {
			notices = append(notices, a["reason"].(string))
		}
	}
	codes, _ := m["errorCodes"].([]any)
	locked, _ := m["lockedAddOns"].([]any)
	addOns, _ := json.Marshal(m["addOns"])
	if len(notices) != 1 || !strings.Contains(notices[0], "cannot be checked right now") || len(codes) != 1 || codes[0] != "ALLOCATIONS_UNAVAILABLE" {
		t.Errorf("no clear notice: notices %v, error codes %v", notices, codes)
	}
	// Pooled: Business Pro (the plan: never locked), Logbook (per user) and the runway
	// analysis (per tail); the region and EFB Bridge have no pool and stay free.
	if m["regionsDisabled"] != true || len(locked) != 2 || locked[0] != "logbook" || locked[1] != "runway_tp_pilatus" ||
		!strings.Contains(string(addOns), `"logbook"`) || !strings.Contains(string(addOns), `"runway_tp_pilatus"`) || strings.Contains(string(addOns), `"efb_bridge"`) {
		t.Errorf("locked %v, regions disabled %v, add-ons %s", locked, m["regionsDisabled"], addOns)
	}
	_, m = call(t, "POST", base+"/buy/api/invoice/validate", `{`+acme+`,"addOns":["business_pro","included_geo_us","logbook"],"quantity":5,"isLicenseAgreementChecked":true,"isEulaChecked":true}`, "Cookie", owner)
	if allocs, _ := m["allocations"].([]any); code != 200 || len(allocs) != 0 {
		t.Errorf("validate with allocation down: %v", m)
	}
}
