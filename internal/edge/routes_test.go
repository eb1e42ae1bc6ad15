package edge

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const table = `routes:
  - {path: /account/api/subscription/available/add-ons, pathType: Exact, service: catalog}
  - {path: /buy/api/subscription, pathType: Prefix, service: checkout}
  - {path: /buy/api/subscription/add-on-prices, pathType: Exact, service: catalog}
  - {path: /buy/api/subscription/payment-method, pathType: Prefix, service: payments}
  - {path: /buy/api/x/, pathType: Prefix, service: x}
  - {path: /buy/api/x, pathType: Exact, service: xexact}
  - {path: /, pathType: Prefix, service: web}
`

func TestMatchFollowsIngressRules(t *testing.T) {
	t.Parallel()
	tab, err := ParseTable([]byte(table))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/account/api/subscription/available/add-ons":  "catalog",
		"/account/api/subscription/available/add-ons/": "web", // Exact does not match a trailing slash
		"/buy/api/subscription":                        "checkout",
		"/buy/api/subscription/simple":                 "checkout",
		"/buy/api/subscription/add-on-prices":          "catalog",
		"/buy/api/subscription/add-on-prices/x":        "checkout", // Exact only matches itself
		"/buy/api/subscription/payment-method/42":      "payments", // longest prefix wins
		"/buy/api/subscriptionx":                       "web",      // prefixes match whole segments
		"/buy/api/x":                                   "xexact",   // Exact beats Prefix at equal length
		"/buy/api/x/1":                                 "x",
		"/pricing":                                     "web",
		"/":                                            "web",
	} {
		got, ok := tab.Match(path)
		if !ok || got.Service != want {
			t.Errorf("Match(%q) = %q, %v; want %q", path, got.Service, ok, want)
		}
	}
}

func TestParseTableRejectsMistakes(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"bad type":   "routes: [{path: /a, pathType: Exactly, service: s}]",
		"no slash":   "routes: [{path: a, pathType: Exact, service: s}]",
		"no service": "routes: [{path: /a, pathType: Exact}]",
		"duplicate":  "routes: [{path: /a, pathType: Exact, service: s}, {path: /a, pathType: Exact, service: t}]",
		"typo":       "routes: [{path: /a, pathTyp: Exact, service: s}]",
	} {
		if _, err := ParseTable([]byte(doc)); err == nil {
			t.Errorf("%s: ParseTable accepted %s", name, doc)
		}
	}
}

// The committed route table parses and routes the catalogue and the pages.
func TestCommittedRouteTable(t *testing.T) {
	t.Parallel()
	tab, err := LoadTable(filepath.Join("..", "..", "deploy", "helm", "hangar", "routes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/account/api/subscription/available/add-ons":    "catalog",
		"/buy/api/jeppesen/avionics/add-on/garmin/g1000": "catalog",
		"/buy":           "web",
		"/pricing":       "web",
		"/remotes/buy/x": "web",
	} {
		if got, _ := tab.Match(path); got.Service != want {
			t.Errorf("Match(%q) = %q, want %q", path, got.Service, want)
		}
	}
}

func TestEdgeProxiesAndServesPages(t *testing.T) {
	t.Parallel()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("api:" + r.URL.Path + "?" + r.URL.RawQuery + " fwd=" + r.Header.Get("X-Forwarded-Host")))
	}))
	defer api.Close()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html>shell</html>"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "assets", "app-1a2b.js"), []byte("js"), 0o644)
	tab, _ := ParseTable([]byte(table))
	u, _ := url.Parse(api.URL)
	ready := false
	e := New(tab, committedHeaders(t), []Backend{{Name: "catalog", URL: u, Ready: func() bool { return ready }}}, dir, nil)
	srv := httptest.NewServer(e)
	defer srv.Close()

	body := func(path string) (int, string, http.Header) {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	if code, _, _ := body("/-/ready"); code != 503 {
		t.Errorf("/-/ready before backends are ready = %d", code)
	}
	ready = true // a backend's routes are gated on its readiness (ready_test.go)
	if code, b, _ := body("/account/api/subscription/available/add-ons?currency=EUR"); code != 200 || !strings.HasPrefix(b, "api:/account/api/subscription/available/add-ons?currency=EUR fwd=127.0.0.1") {
		t.Errorf("proxied = %d %q", code, b)
	}
	if code, b, h := body("/buy/success"); code != 200 || b != "<html>shell</html>" || h.Get("Cache-Control") != "no-cache" {
		t.Errorf("page route = %d %q %q; want the shell", code, b, h.Get("Cache-Control"))
	}
	if code, _, h := body("/assets/app-1a2b.js"); code != 200 || !strings.Contains(h.Get("Cache-Control"), "immutable") {
		t.Errorf("asset = %d %q", code, h.Get("Cache-Control"))
	}
	if code, _, _ := body("/assets/missing.js"); code != 404 {
		t.Errorf("missing asset = %d, want 404", code)
	}
	if code, _, _ := body("/buy/api/subscription/simple"); code != 503 {
		t.Errorf("route to a service not running = %d, want 503", code)
	}
	if code, _, _ := body("/-/ready"); code != 200 {
		t.Errorf("/-/ready = %d", code)
	}
}

// Unrouted API paths (GET or POST) end in the catalogue, whose gateway answers a JSON 404;
// before, they fell through to the web shell's 200 page.
func TestCommittedRouteTableSendsUnroutedAPIPathsToAService(t *testing.T) {
	t.Parallel()
	tab, err := LoadTable(filepath.Join("..", "..", "deploy", "helm", "hangar", "routes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/buy/api/nope", "/buy/api/invoice/submitx", "/account/api/x/y", "/pricing/api/nope", "/org/api/nope", "/buy/api",
		"/buy/jepp/nope", "/buy/jepp/linked-accountsx", "/buy/eligibility/nope", "/buy/eligibility/military/codex"} {
		if got, _ := tab.Match(p); got.Service == "web" {
			t.Errorf("Match(%q) = web; an API path must go to a service", p)
		}
	}
	if got, _ := tab.Match("/buy/api/subscription/payment-method/42"); got.Service != "payments" {
		t.Errorf("a routed path lost its service: %q", got.Service)
	}
}

// The store's origin takes no card data (docs/pci-saq-a.md): tokenize and the hosted
// fields page are not routed to payments (tokenize falls to the /buy/api tree's JSON 404,
// the page to the shell's not-found page); the card images and the client token are.
func TestCommittedRouteTableKeepsCardDataOffTheStore(t *testing.T) {
	t.Parallel()
	tab, err := LoadTable(filepath.Join("..", "..", "deploy", "helm", "hangar", "routes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/buy/api/payments/tokenize":      "catalog",
		"/buy/payments/":                  "web",
		"/buy/payments/hosted-fields.js":  "web",
		"/buy/payments/cards/visa.svg":    "payments",
		"/buy/api/payments/client-token":  "payments",
		"/buy/api/card-reader/vault":      "payments",
		"/buy/api/payments/tokenize/more": "catalog",
	} {
		if got, _ := tab.Match(path); got.Service != want {
			t.Errorf("Match(%q) = %q, want %q", path, got.Service, want)
		}
	}
}

func TestEdgeAnswersUnknownAPIPathsAndPages404(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html>shell</html>"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"remotes":{"buy":"https://cdn.example.com/buy/remoteEntry.js","gift":"/remotes/gift/remoteEntry.js"}}`), 0o644)
	tab, _ := ParseTable([]byte(table))
	pages, err := LoadPages(filepath.Join("..", "..", "web", "apps", "shell", "src", "routes.ts"))
	if err != nil || pages == nil {
		t.Fatalf("LoadPages = %v, %v", pages, err)
	}
	srv := httptest.NewServer(New(tab, committedHeaders(t), nil, dir, nil).WithPages(pages))
	defer srv.Close()
	for _, c := range []struct {
		method, path string
		code         int
		body         string
	}{
		{"GET", "/buy/api/nope", 404, `"code":"not_found"`},
		{"POST", "/buy/api/nope", 404, `"code":"not_found"`},
		{"POST", "/org/api/x", 404, `"code":"not_found"`},
		{"GET", "/pricing/api/x", 404, `"code":"not_found"`},
		{"GET", "/account/api/x", 404, `"code":"not_found"`},
		{"GET", "/buy/jepp/nope", 404, `"code":"not_found"`},
		{"POST", "/buy/jepp/linked-avionicsx/a/b", 404, `"code":"not_found"`},
		{"POST", "/buy/eligibility/nope", 404, `"code":"not_found"`},
		{"GET", "/no-such-page", 404, "shell"},
		// /buy/{addOns} and /buy/{addOns}/{quantity} are pages (spec 000 §2); deeper is not.
		{"GET", "/buy/flarm_decode", 200, "shell"},
		{"GET", "/buy/business_pro/5", 200, "shell"},
		{"GET", "/buy/a/b/c", 404, "shell"},
		{"GET", "/buy", 200, "shell"},
		{"GET", "/buy/", 200, "shell"},
		{"GET", "/gift/redeem/x", 200, "shell"},
		{"GET", "/product/cart/abc", 200, "shell"},
		// The subscriber's account page (issue 17); its API tree stays JSON.
		{"GET", "/account", 200, "shell"},
		{"GET", "/account/", 200, "shell"},
		{"GET", "/account/nope", 404, "shell"},
		{"GET", "/", 200, "shell"},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader("{}"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code || !strings.Contains(string(b), c.body) {
			t.Errorf("%s %s = %d %q; want %d with %q", c.method, c.path, resp.StatusCode, b, c.code, c.body)
		}
		if isAPIPath(c.path) && resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: Content-Type %q, want JSON", c.method, c.path, resp.Header.Get("Content-Type"))
		}
	}
}

func committedHeaders(t *testing.T) *Headers {
	t.Helper()
	h, err := LoadHeaders(filepath.Join("..", "..", "deploy", "helm", "hangar", "headers.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Every page carries the security headers; the CSP lets the shell load its remotes from
// the origins of its runtime config and frame the hosted fields, and nobody frame it.
func TestPagesCarrySecurityHeaders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html>shell</html>"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"remotes":{"buy":"https://cdn.example.com/buy/remoteEntry.js"}}`), 0o644)
	tab, _ := ParseTable([]byte(table))
	srv := httptest.NewServer(New(tab, committedHeaders(t), nil, dir, nil))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/buy")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"frame-ancestors 'none'", "script-src 'self' https://cdn.example.com", "style-src 'self' https://cdn.example.com", "; frame-src;", "object-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	// With the card-fields origin, the pages may frame it and nothing else (not even
	// themselves: the fields are never on the store's origin).
	fields := httptest.NewServer(New(tab, committedHeaders(t), nil, dir, nil).WithFieldsOrigin("http://127.0.0.1:18341"))
	defer fields.Close()
	resp, err = http.Get(fields.URL + "/buy")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "; frame-src http://127.0.0.1:18341;") {
		t.Errorf("CSP %q: frame-src is not the fields origin alone", csp)
	}
	if strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q allows inline code or styles", csp)
	}
	for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
		"Referrer-Policy": "strict-origin-when-cross-origin"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if resp.Header.Get("Permissions-Policy") == "" {
		t.Error("no Permissions-Policy")
	}
}

// The committed headers file parses; a misspelled key, a CSP without frame-ancestors and a
// CSP hidden among the other headers are refused.
func TestParseHeadersRejectsMistakes(t *testing.T) {
	t.Parallel()
	h := committedHeaders(t)
	if h.StrictTransportSecurity == "" || h.Headers["X-Content-Type-Options"] != "nosniff" {
		t.Errorf("committed headers = %+v", h)
	}
	for name, doc := range map[string]string{
		"typo":               "contentSecurityPolicy: [\"frame-ancestors 'none'\"]\nheaderz: {}",
		"no frame-ancestors": "contentSecurityPolicy: [\"default-src 'self'\"]",
		"CSP among headers":  "contentSecurityPolicy: [\"frame-ancestors 'none'\"]\nheaders: {content-security-policy: x}",
		"HSTS among headers": "contentSecurityPolicy: [\"frame-ancestors 'none'\"]\nheaders: {Strict-Transport-Security: x}",
	} {
		if _, err := ParseHeaders([]byte(doc)); err == nil {
			t.Errorf("%s: ParseHeaders accepted %s", name, doc)
		}
	}
}

func TestStaticServesWebMAsVideo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html>shell</html>"), 0o644)
	_ = os.MkdirAll(filepath.Join(dir, "remotes", "marketing", "assets"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "remotes", "marketing", "assets", "home-video-x.webm"), []byte("\x1a\x45\xdf\xa3webm"), 0o644)
	srv := httptest.NewServer(Static(dir))
	defer srv.Close()
	res, err := http.Get(srv.URL + "/remotes/marketing/assets/home-video-x.webm")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "video/webm" {
		t.Fatalf("status %d, Content-Type %q; want 200 video/webm", res.StatusCode, res.Header.Get("Content-Type"))
	}
}
