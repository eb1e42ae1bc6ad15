package app_test

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/platform/ratelimit"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
)

func TestRateLimitSchemaIsThePlatforms(t *testing.T) {
	t.Parallel()
	b, err := fs.ReadFile(adapters.Migrations, "migrations/0009_rate_limits.sql")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), strings.TrimSpace(ratelimit.Schema)) {
		t.Error("migration 0009 does not contain ratelimit.Schema verbatim")
	}
}

// Issue 27 (accounts stay private): a preview or validate naming an account or a
// subscription the session may not act on answers 401 with requireLogin and nothing of
// that account; the e-mail look-ups answer no account id and are throttled per address.
func TestAccountsStayPrivate(t *testing.T) {
	t.Parallel()
	idGRPC, idBase := startIdentity(t)
	base := start(t, map[string]string{"IDENTITY_ADDR": idGRPC})
	const pilot, acme = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"
	const acmeSub = "10000000-0000-4000-8000-000000000002"
	pilotSession := login(t, idBase, "pilot@demo.hangar.test")
	owner := login(t, idBase, "owner@acme.hangar.test")

	// Nothing of the account may be in a refusal: not its id, e-mail, add-ons, dates or
	// amounts, not its tax area.
	leaks := func(m map[string]any) []string {
		var out []string
		for _, k := range []string{"invoice", "addOns", "accountId", "email", "renewalDate", "renewalAmountInCents", "termStartDate",
			"planChange", "quoteId", "account", "subscriptionAccount", "isRenewal", "quantity", "lockedAddOns"} {
			if _, ok := m[k]; ok {
				out = append(out, k)
			}
		}
		b, _ := json.Marshal(m)
		for _, s := range []string{pilot, acme, "pilot@demo.hangar.test", "US-CA"} {
			if strings.Contains(string(b), s) {
				out = append(out, s)
			}
		}
		return out
	}
	refused := func(t *testing.T, what string, code int, m map[string]any) {
		t.Helper()
		if code != http.StatusUnauthorized || m["requireLogin"] != true || m["code"] != "unauthenticated" {
			t.Errorf("%s: %d %v; want 401 with requireLogin", what, code, m)
		}
		if l := leaks(m); len(l) > 0 {
			t.Errorf("%s: the answer carries the account's %v: %v", what, l, m)
		}
	}

	for _, route := range []string{"preview", "validate"} {
		t.Run(route+": anonymous with the pilot's account id", func(t *testing.T) {
			code, m := call(t, "POST", base+"/buy/api/invoice/"+route, `{"accountId":"`+pilot+`"}`)
			refused(t, "anonymous", code, m)
		})
		t.Run(route+": anonymous with Acme's subscription id", func(t *testing.T) {
			code, m := call(t, "POST", base+"/buy/api/invoice/"+route, `{"subscriptionId":"`+acmeSub+`"}`)
			refused(t, "anonymous", code, m)
		})
		t.Run(route+": anonymous with the account id in the e-mail field", func(t *testing.T) {
			code, m := call(t, "POST", base+"/buy/api/invoice/"+route, `{"email":"`+pilot+`"}`)
			refused(t, "anonymous", code, m)
		})
		t.Run(route+": another account's session", func(t *testing.T) {
			code, m := call(t, "POST", base+"/buy/api/invoice/"+route, `{"subscriptionId":"`+acmeSub+`"}`, "Cookie", pilotSession)
			refused(t, "the pilot on Acme's subscription", code, m)
			code, m = call(t, "POST", base+"/buy/api/invoice/"+route, `{"accountId":"`+acme+`"}`, "Cookie", pilotSession)
			refused(t, "the pilot on Acme's account", code, m)
		})
		t.Run(route+": who may act on it is answered", func(t *testing.T) {
			code, m := call(t, "POST", base+"/buy/api/invoice/"+route, `{"accountId":"`+pilot+`"}`, "Cookie", pilotSession)
			if code != 200 || (route == "preview" && m["isRenewal"] != true) {
				t.Errorf("the pilot on his own account: %d %v", code, m)
			}
			code, m = call(t, "POST", base+"/buy/api/invoice/"+route, `{"subscriptionId":"`+acmeSub+`","quantity":5}`, "Cookie", owner)
			if code != 200 || (route == "preview" && m["isRenewal"] != true) {
				t.Errorf("Acme's owner on Acme's subscription: %d %v", code, m)
			}
		})
	}
	t.Run("promo validate names the account too", func(t *testing.T) {
		code, m := call(t, "POST", base+"/buy/api/promo/validate", `{"code":"welcome5","configuration":{"accountId":"`+pilot+`"}}`, "X-Forwarded-For", "10.7.0.1")
		if code != http.StatusUnauthorized || m["message"] == "Code already used." {
			t.Errorf("anonymous: %d %v", code, m)
		}
	})

	t.Run("the e-mail look-ups answer no account id to a stranger", func(t *testing.T) {
		code, m := call(t, "POST", base+"/buy/api/gift/validate", `{"giftCertValues":[50],"email":"pilot@demo.hangar.test","currency":"USD"}`, "X-Forwarded-For", "10.7.0.2")
		b, _ := json.Marshal(m)
		if code != 200 || strings.Contains(string(b), pilot) {
			t.Errorf("gift validate, anonymous: %d %s", code, b)
		}
		code, m = call(t, "POST", base+"/buy/api/gift/validate", `{"giftCertValues":[50],"currency":"USD"}`, "Cookie", pilotSession)
		if code != 200 || m["accountId"] != pilot {
			t.Errorf("gift validate, the pilot himself: %d %v", code, m)
		}
		code, m = call(t, "POST", base+"/buy/api/invoice/validate", `{"email":"pilot@demo.hangar.test","addOns":["performance","included_geo_us"]}`, "X-Forwarded-For", "10.7.0.2")
		b, _ = json.Marshal(m)
		if code != 200 || m["requireLogin"] != true || strings.Contains(string(b), pilot) {
			t.Errorf("invoice validate by e-mail, anonymous: %d %s", code, b)
		}
	})

	t.Run("40 e-mail look-ups from one address are throttled; another address is not", func(t *testing.T) {
		lookups := []func(i int, addr string) (int, http.Header){
			func(i int, addr string) (int, http.Header) {
				return callH(t, "GET", base+"/buy/api/currency?email=someone"+strconv.Itoa(i)+"@example.com", "", "X-Forwarded-For", addr)
			},
			func(i int, addr string) (int, http.Header) {
				return callH(t, "POST", base+"/buy/api/currency/validate", `{"currency":"USD","email":"someone`+strconv.Itoa(i)+`@example.com"}`, "X-Forwarded-For", addr)
			},
		}
		for n, lookup := range lookups {
			addr := "10.8." + strconv.Itoa(n) + ".1"
			refusedAt, retry := 0, ""
			for i := range 40 {
				code, h := lookup(i, addr)
				if code == http.StatusTooManyRequests {
					refusedAt, retry = i+1, h.Get("Retry-After")
					break
				}
				if code != 200 {
					t.Fatalf("look-up %d: %d", i, code)
				}
			}
			if refusedAt == 0 {
				t.Errorf("look-up %d: 40 of 40 answered from one address", n)
			} else if s, err := strconv.Atoi(retry); err != nil || s < 1 {
				t.Errorf("look-up %d: 429 after %d without a Retry-After in seconds (%q)", n, refusedAt, retry)
			}
			if code, _ := lookup(0, "10.8."+strconv.Itoa(n)+".2"); code != 200 {
				t.Errorf("look-up %d from another address: %d", n, code)
			}
		}
	})
}

// callH is call answering the status and the headers.
func callH(t testing.TB, method, url, body string, hdr ...string) (int, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cookie", "XSRF-TOKEN=test-xsrf")
	req.Header.Set("X-XSRF-TOKEN", "test-xsrf")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}
