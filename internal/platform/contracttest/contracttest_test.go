package contracttest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/edge"
	"github.com/hangar/hangar/internal/platform/contracttest"
	"github.com/hangar/hangar/internal/platform/errs"
)

func load(t *testing.T) *contracttest.Validator {
	t.Helper()
	v, err := contracttest.Load(contracttest.Dir())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func exchange(method, target, reqBody string, status int, body string) contracttest.Exchange {
	r := httptest.NewRequest(method, target, nil)
	if reqBody != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	h := http.Header{"Content-Type": {"application/json"}}
	return contracttest.Exchange{Request: r, RequestBody: []byte(reqBody), Status: status, Header: h, Body: []byte(body)}
}

// The findings of issue 29 item 3, each as the wire answers it: the documents must accept
// what the services send, and refuse what they do not.
func TestDocumentsDescribeTheWire(t *testing.T) {
	t.Parallel()
	v := load(t)
	for _, tc := range []struct {
		name string
		x    contracttest.Exchange
		ok   bool
	}{
		{"error code is a string of the errs set", exchange("GET", "/buy/api/receipt/7d5e0f5c-0000-4000-8000-000000000000", "", 404, `{"code":"not_found","message":"not found","reason":"NOT_FOUND","status":"fail","errors":["not found"],"msg":"not found"}`), true},
		{"field errors", exchange("GET", "/buy/api/isbusiness?email=x", "", 400, `{"code":"invalid_argument","message":"email is not valid.","fieldErrors":[{"field":"email","message":"email is not valid."}],"reason":"INVALID_ARGUMENT","status":"fail","errors":["email is not valid."],"msg":"email is not valid."}`), true},
		{"grpc-gateway's integer code is not the wire", exchange("GET", "/buy/api/isbusiness?email=x", "", 400, `{"code":3,"message":"bad"}`), false},
		{"a code outside the errs set", exchange("GET", "/buy/api/me", "", 401, `{"code":"nope","message":"x"}`), false},
		{"geo lookup is documented", exchange("GET", "/freegeoip/api/json/", "", 200, `{"ip":"203.0.113.9","location":{"country_code":"DE","is_eu":true},"currency":{"code":"EUR"}}`), true},
		{"geo lookup names every field", exchange("GET", "/freegeoip/api/json/", "", 200, `{"ip":"203.0.113.9","location":{"country_code":"DE"},"currency":{"code":"EUR"}}`), false},
		{"login failure", exchange("POST", "/pricing/api/login", `{"username":"a@example.com","password":"x"}`, 401, `{"status":"fail","msg":"Invalid username or password."}`), true},
		{"gift decline", exchange("POST", "/buy/api/gift/submit", `{"email":"a@example.com"}`, 402,
			`{"status":"fail","errors":["Declined"],"accountId":"","redirectUrl":"","extension":"","mobileDeeplink":"","invoiceId":"","googleConversionCodes":[],"orderId":"","certificates":[],"invoiceNumber":"","code":"PAYMENT_DECLINED","message":"Declined","fieldErrors":[]}`), true},
		{"payment success without extension", exchange("POST", "/buy/api/invoice/submit", `{}`, 200,
			`{"accountId":"a","redirectUrl":"/r","mobileDeeplink":"","invoiceId":"i","googleConversionCodes":[],"invoiceNumber":"1"}`), false},
		{"an undocumented route answers only the error object's 404", exchange("GET", "/buy/api/nope", "", 404, `{"code":"not_found","message":"no route for /buy/api/nope","reason":"NOT_FOUND","status":"fail","errors":["no route for /buy/api/nope"],"msg":"no route for /buy/api/nope"}`), true},
		{"an undocumented route answering 200", exchange("GET", "/buy/api/nope", "", 200, `{}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := v.Check(tc.x)
			if tc.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.ok && err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// The middleware sees what the client sees, and a broken answer is kept as a violation.
func TestMiddlewareRecordsViolations(t *testing.T) {
	t.Parallel()
	v := load(t)
	h := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"code":5,"message":"not found","details":[]}`))
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/buy/api/me", strings.NewReader("")))
	if rec.Code != http.StatusNotFound {
		t.Fatalf("status %d", rec.Code)
	}
	checked, bad := v.Violations()
	if checked != 1 || len(bad) != 1 {
		t.Fatalf("checked %d, violations %q", checked, bad)
	}
}

// The documented codes are the errs set: a code added there is documented in the same change.
func TestErrorCodesDocumented(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(contracttest.Dir(), "..", "..", "proto", "openapi.contract.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		ErrorCodes []string `json:"errorCodes"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	want := errs.Codes()
	got := map[string]bool{}
	for _, c := range c.ErrorCodes {
		got[c] = true
	}
	for _, w := range want {
		if !got[string(w)] {
			t.Errorf("errs code %q is not in proto/openapi.contract.json errorCodes", w)
		}
		delete(got, string(w))
	}
	for c := range got {
		t.Errorf("documented code %q is not an errs code", c)
	}
}

// Every public route of the route table (the Ingress and the dev edge) that a service
// serves is in the documents: an Exact route as a documented path, a Prefix route with a
// documented path under it. The pages ("web") are not API.
func TestEveryPublicRouteDocumented(t *testing.T) {
	t.Parallel()
	table, err := edge.LoadTable(filepath.Join(contracttest.Dir(), "..", "..", "deploy", "helm", "hangar", "routes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	docs, _ := filepath.Glob(filepath.Join(contracttest.Dir(), "hangar", "*", "v1", "*.openapi.json"))
	for _, f := range docs {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Paths map[string]any `json:"paths"`
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		for p := range d.Paths {
			documented = append(documented, p)
		}
	}
	if len(documented) == 0 {
		t.Fatal("no documented paths")
	}
	for _, r := range table.Routes {
		if r.Service == "web" {
			continue
		}
		found := false
		for _, p := range documented {
			if p == r.Path || (r.PathType == "Prefix" && strings.HasPrefix(p, strings.TrimSuffix(r.Path, "/")+"/")) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("route %s %s (%s) is in no OpenAPI document", r.PathType, r.Path, r.Service)
		}
	}
}

// Strict for required fields: an answer that leaves out a field the documents require
// (proto/openapi.contract.json "required") is refused, empty or not; the same answer with
// the field present, empty, passes. Issue 42 item 6: these fields were left out when empty.
func TestAnswerOmittingARequiredFieldRefused(t *testing.T) {
	t.Parallel()
	v := load(t)
	preview := `{"invoice":{"currency":"USD","invoiceItems":[{"type":"SUBSCRIPTION_CREDIT","addOnCode":"","planType":"","description":"Credit","key":"","bundleAddOnCode":"","bundleItemType":""}],"errors":[],"planErrors":[],"selectionErrors":[]},` +
		`"errors":[],"planErrors":[],"selectionErrors":[],"promoInfoRequirements":[]}`
	for _, tc := range []struct {
		name, method, target, reqBody, full string
		old, new                            string // full with old replaced by new leaves the field out
	}{
		{"preview errors", "POST", "/buy/api/invoice/preview", `{}`, preview, `},"errors":[],`, `},`},
		{"preview planErrors", "POST", "/buy/api/invoice/preview", `{}`, preview, `"planErrors":[],"selectionErrors":[],"promo`, `"selectionErrors":[],"promo`},
		{"preview selectionErrors", "POST", "/buy/api/invoice/preview", `{}`, preview, `"selectionErrors":[],"promo`, `"promo`},
		{"preview promoInfoRequirements", "POST", "/buy/api/invoice/preview", `{}`, preview, `,"promoInfoRequirements":[]`, ``},
		{"a credit line's addOnCode", "POST", "/buy/api/invoice/preview", `{}`, preview, `"addOnCode":"",`, ``},
		{"validate errors", "POST", "/buy/api/invoice/validate", `{}`, `{"status":"ok","errors":[],"invoice":{"currency":"USD","invoiceItems":[],"errors":[],"planErrors":[],"selectionErrors":[]},"subscription":{},"counter":0,"isOrgMember":false,"promoInfoRequirements":[],"account":"","subscriptionAccount":""}`, `"errors":[],`, ``},
		{"logout errors", "POST", "/pricing/api/logout", ``, `{"status":"ok","errors":[]}`, `,"errors":[]`, ``},
		{"an empty allocation list", "GET", "/account/api/subscription/allocations?users=", ``, `{"allocations":[],"allAssignments":[],"planAssignments":[],"nonPlanAssignments":[]}`, `"allocations":[],`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := v.Check(exchange(tc.method, tc.target, tc.reqBody, 200, tc.full)); err != nil {
				t.Fatalf("the full answer refused: %v", err)
			}
			short := strings.Replace(tc.full, tc.old, tc.new, 1)
			if short == tc.full {
				t.Fatalf("%s is not in the answer", tc.old)
			}
			if err := v.Check(exchange(tc.method, tc.target, tc.reqBody, 200, short)); err == nil {
				t.Fatalf("accepted without the field: %s", short)
			}
		})
	}
}

// The card-fields origin's POST /api/tokenize is published (issue 42 item 6: it was absent
// from the OpenAPI documents): its request and its answer, the nonce required.
func TestTokenizePublished(t *testing.T) {
	t.Parallel()
	v := load(t)
	req := `{"number":"4111111111111111","cvv":"123","expirationDate":"12/2030","cardholderName":"Amelia Earhart","postalCode":"97201"}`
	if err := v.Check(exchange("POST", "/api/tokenize", req, 200, `{"nonce":"tok_1","type":"CreditCard","details":{"cardType":"Visa","lastFour":"1111"}}`)); err != nil {
		t.Errorf("a tokenize exchange: %v", err)
	}
	if err := v.Check(exchange("POST", "/api/tokenize", req, 200, `{"type":"CreditCard"}`)); err == nil {
		t.Error("an answer without its nonce passed")
	}
}
