package auth_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc/metadata"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/metrics"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// startOther runs a service that is not identity, built with the platform server and the
// shared middleware installed, with one POST and one GET route that echo the caller.
func startOther(t *testing.T, r auth.Resolver, origins ...string) string {
	t.Helper()
	reg := metrics.NewRegistry()
	red, err := metrics.NewRED(reg, "other")
	if err != nil {
		t.Fatal(err)
	}
	s := server.New("other", config.Platform{GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", ShutdownTimeout: time.Second},
		server.Deps{Logger: slog.New(slog.DiscardHandler), Registry: reg, Tracer: noop.NewTracerProvider(), Propagator: telemetry.Propagator(), RED: red})
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := auth.Require(r.Context())
		if err != nil {
			server.WriteError(w, err)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"account": c.AccountUUID})
	})
	s.Handle("POST /echo", echo)
	s.Handle("GET /echo", echo)
	auth.Install(s, auth.Options{Resolver: r, CSRF: auth.CSRFConfig{AllowedOrigins: origins}})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	_, httpAddr, _ := s.Addrs()
	return "http://" + httpAddr
}

var alice = auth.ResolverFunc(func(_ context.Context, token string) (auth.Caller, error) {
	if token == "alice-token" {
		return auth.Caller{AccountUUID: "alice"}, nil
	}
	return auth.Caller{}, auth.ErrLoginRequired
})

func do(t testing.TB, method, url string, hdr map[string]string) (int, string, *http.Response) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp
}

func TestCSRFInAnotherService(t *testing.T) {
	t.Parallel()
	base := startOther(t, alice, "https://store.example.com")
	session := auth.SessionCookie + "=alice-token"

	// A GET issues the XSRF cookie.
	code, _, resp := do(t, "GET", base+"/echo", map[string]string{"Cookie": session})
	if code != 200 {
		t.Fatalf("GET with session = %d, want 200", code)
	}
	var xsrf string
	for _, c := range resp.Cookies() {
		if c.Name == auth.XSRFCookie {
			xsrf = c.Value
			if !c.Secure || c.HttpOnly || c.Path != "/" {
				t.Errorf("XSRF cookie = %+v, want Secure, readable by the page, Path=/", c)
			}
		}
	}
	if xsrf == "" {
		t.Fatal("no XSRF-TOKEN cookie issued")
	}
	if xsrf != auth.SessionXSRF("alice-token") {
		t.Errorf("XSRF cookie of a session = %q, want the session's own token", xsrf)
	}
	cookies := session + "; " + auth.XSRFCookie + "=" + xsrf

	cases := []struct {
		name string
		hdr  map[string]string
		want int
		msg  string
	}{
		{"POST without the header", map[string]string{"Cookie": cookies}, 403, "Missing XSRF token"},
		{"POST with a wrong header", map[string]string{"Cookie": cookies, auth.XSRFHeader: xsrf + "x"}, 403, "mismatch"},
		{"POST with header but no cookie", map[string]string{"Cookie": session, auth.XSRFHeader: xsrf}, 403, "Missing XSRF token"},
		{"POST from another origin", map[string]string{"Cookie": cookies, auth.XSRFHeader: xsrf, "Origin": "https://evil.example"}, 403, "Cross-origin"},
		{"POST marked cross-site", map[string]string{"Cookie": cookies, auth.XSRFHeader: xsrf, "Sec-Fetch-Site": "cross-site"}, 403, "Cross-site"},
		{"POST same-site without an allowed origin", map[string]string{"Cookie": cookies, auth.XSRFHeader: xsrf, "Sec-Fetch-Site": "same-site"}, 403, "Cross-origin"},
		{"POST with matching token", map[string]string{"Cookie": cookies, auth.XSRFHeader: xsrf}, 200, "alice"},
		{"POST from the store's origin", map[string]string{"Cookie": cookies, auth.XSRFHeader: xsrf, "Origin": "https://store.example.com", "Sec-Fetch-Site": "same-origin"}, 200, "alice"},
		{"POST with a dead session", map[string]string{"Cookie": auth.SessionCookie + "=old; " + auth.XSRFCookie + "=" + auth.SessionXSRF("old"), auth.XSRFHeader: auth.SessionXSRF("old")}, 401, "Login Required"},
		// An attacker who can write cookies for the site (a sibling subdomain) plants a pair
		// of their choosing; on a logged-in session it is not the session's token.
		{"POST with a planted pair on a session", map[string]string{"Cookie": session + "; " + auth.XSRFCookie + "=planted", auth.XSRFHeader: "planted"}, 403, "mismatch"},
		{"POST with another session's token", map[string]string{"Cookie": session + "; " + auth.XSRFCookie + "=" + auth.SessionXSRF("bob-token"), auth.XSRFHeader: auth.SessionXSRF("bob-token")}, 403, "mismatch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body, _ := do(t, "POST", base+"/echo", c.hdr)
			if code != c.want || !strings.Contains(body, c.msg) {
				t.Errorf("status %d body %s, want %d containing %q", code, body, c.want, c.msg)
			}
			if code == 403 && !strings.Contains(body, `"code":"permission_denied"`) {
				t.Errorf("403 body %s is not the one error shape", body)
			}
		})
	}
}

// The cache remembers refusals only: a live session is asked of identity on every
// request, so a session revoked between two requests is refused on the second one.
func TestCacheRemembersRefusalsNeverLiveSessions(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var revoked atomic.Bool
	now := time.Unix(0, 0)
	clock := func() time.Time { return now }
	r := auth.NewCache(auth.ResolverFunc(func(ctx context.Context, token string) (auth.Caller, error) {
		calls.Add(1)
		if revoked.Load() {
			return auth.Caller{}, auth.ErrLoginRequired
		}
		return alice.Resolve(ctx, token)
	}), 5*time.Second, 4, clock)
	ctx := context.Background()
	for range 3 {
		if c, err := r.Resolve(ctx, "alice-token"); err != nil || c.AccountUUID != "alice" {
			t.Fatalf("Resolve() = %+v, %v", c, err)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("resolver called %d times for 3 uses of a live session, want 3 (never cached)", n)
	}
	revoked.Store(true) // logout
	if _, err := r.Resolve(ctx, "alice-token"); errs.CodeOf(err) != errs.Unauthorized {
		t.Errorf("Resolve() right after revocation = %v, want unauthenticated", err)
	}
	revoked.Store(false)
	calls.Store(0)
	if _, err := r.Resolve(ctx, "bad"); errs.CodeOf(err) != errs.Unauthorized {
		t.Errorf("Resolve(bad) = %v, want unauthenticated", err)
	}
	if _, err := r.Resolve(ctx, "bad"); errs.CodeOf(err) != errs.Unauthorized {
		t.Errorf("Resolve(bad) cached = %v", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("resolver called %d times for a refused token twice, want 1 (refusal cached)", n)
	}
	now = now.Add(6 * time.Second)
	_, _ = r.Resolve(ctx, "bad")
	if n := calls.Load(); n != 2 {
		t.Errorf("resolver called %d times after expiry, want 2", n)
	}
	for i := range 20 { // bounded
		_, _ = r.Resolve(ctx, strings.Repeat("x", i+1))
	}
}

func TestClientIPAndToken(t *testing.T) {
	t.Parallel()
	md := metadata.Pairs("x-forwarded-for", "6.6.6.6, 1.2.3.4, 10.0.0.9", "grpcgateway-cookie", "a=b; "+auth.SessionCookie+"=tok")
	ctx := metadata.NewIncomingContext(context.Background(), md)
	if ip := auth.ClientIP(ctx, 1); ip != "1.2.3.4" {
		t.Errorf("ClientIP(1 proxy) = %q, want 1.2.3.4", ip)
	}
	if ip := auth.ClientIP(ctx, 0); ip != "10.0.0.9" {
		t.Errorf("ClientIP(no proxy) = %q, want 10.0.0.9", ip)
	}
	if ip := auth.ClientIP(ctx, 9); ip != "6.6.6.6" {
		t.Errorf("ClientIP(too many) = %q", ip)
	}
	// The one client-address parser: a hop with a port or IPv4-mapped is its address, and
	// garbage where the client should be falls back to the proxy that reported it.
	for xff, want := range map[string]string{"1.2.3.4:5678, 10.0.0.9": "1.2.3.4", "::ffff:1.2.3.4, 10.0.0.9": "1.2.3.4", "junk, 10.0.0.9": "10.0.0.9"} {
		c := metadata.NewIncomingContext(context.Background(), metadata.Pairs("x-forwarded-for", xff))
		if ip := auth.ClientIP(c, 1); ip != want {
			t.Errorf("ClientIP(%q, 1 proxy) = %q, want %q", xff, ip, want)
		}
	}
	if tok := auth.Token(ctx); tok != "tok" {
		t.Errorf("Token() = %q, want tok", tok)
	}
}

// Issue 41: only card declines grouped an IPv6 client by its /64; every other limit keyed
// on the raw address, so a client with a /64 had no ceiling. ClientKey is the one key: the
// address behind the trusted proxies, IPv4 as is, IPv6 by its /64; a client-supplied hop
// left of the trusted ones does not change it.
func TestClientKeyGroupsIPv6BySlash64BehindTheTrustedProxies(t *testing.T) {
	t.Parallel()
	key := func(xff string, proxies int) string {
		return auth.ClientKey(metadata.NewIncomingContext(context.Background(), metadata.Pairs("x-forwarded-for", xff)), proxies)
	}
	for _, tc := range []struct {
		xff     string
		proxies int
		want    string
	}{
		{"2001:db8:aa:bb::1, 10.0.0.9", 1, "2001:db8:aa:bb::/64"},
		{"2001:db8:aa:bb:ffff:ffff:ffff:fffe, 10.0.0.9", 1, "2001:db8:aa:bb::/64"},
		{"6.6.6.6, 2001:db8:aa:bb::7, 10.0.0.9", 1, "2001:db8:aa:bb::/64"},
		{"2001:db8:aa:bc::1, 10.0.0.9", 1, "2001:db8:aa:bc::/64"},
		{"198.51.100.7, 10.0.0.9", 1, "198.51.100.7"},
		{"198.51.100.7, 10.0.0.9", 0, "10.0.0.9"},
		{"[2001:db8:aa:bb::1]:443, 10.0.0.9", 1, "2001:db8:aa:bb::/64"},
	} {
		if got := key(tc.xff, tc.proxies); got != tc.want {
			t.Errorf("ClientKey(%q, %d proxies) = %q, want %q", tc.xff, tc.proxies, got, tc.want)
		}
	}
	if got := auth.ClientKey(context.Background(), 1); got != "" {
		t.Errorf("ClientKey without an address = %q, want empty", got)
	}
}
