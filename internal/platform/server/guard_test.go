package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
)

// fakeIdentity answers Login "ok" (a username "slow down" is throttled for 90 s) and
// CreateAccount "ok"; bad input must never reach it.
type fakeIdentity struct {
	identityv1.UnimplementedIdentityServiceServer
	reached chan string
}

func (f *fakeIdentity) Login(_ context.Context, r *identityv1.LoginRequest) (*identityv1.LoginResponse, error) {
	f.reached <- r.GetUsername()
	if r.GetUsername() == "slow down" {
		return nil, errs.Throttled(90*time.Second, "Too many attempts.")
	}
	return &identityv1.LoginResponse{Status: "ok"}, nil
}

func (f *fakeIdentity) CreateAccount(_ context.Context, r *identityv1.CreateAccountRequest) (*identityv1.CreateAccountResponse, error) {
	f.reached <- r.GetUsername()
	return &identityv1.CreateAccountResponse{Status: "ok"}, nil
}

func startWithIdentity(t *testing.T) (string, *fakeIdentity) {
	t.Helper()
	f := &fake{traces: make(chan trace.TraceID, 64)}
	id := &fakeIdentity{reached: make(chan string, 64)}
	s, _, _ := startServerWith(t, f, func(s *server.Server) {
		identityv1.RegisterIdentityServiceServer(s, id)
		s.Gateway(func(ctx context.Context, mux *runtime.ServeMux, conn grpc.ClientConnInterface) error {
			return identityv1.RegisterIdentityServiceHandlerClient(ctx, mux, identityv1.NewIdentityServiceClient(conn))
		})
		s.Handle("GET /plain/{code}", http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			id.reached <- r.PathValue("code")
		}))
	})
	_, httpAddr, _ := s.Addrs()
	return "http://" + httpAddr, id
}

type answer struct {
	status int
	header http.Header
	body   errs.Body
	raw    string
}

func do(t *testing.T, method, url, contentType, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
	_ = json.Unmarshal(raw, &a.body)
	return a
}

func fieldOf(b errs.Body) string {
	if len(b.FieldErrors) == 0 {
		return ""
	}
	return b.FieldErrors[0].Field
}

// Bad bytes and sizes are the client's error (400/413 naming the field) and never reach
// a handler; before the platform guard they were 500s and 503s.
func TestBadBytesAndSizesAreClientErrors(t *testing.T) {
	t.Parallel()
	base, id := startWithIdentity(t)
	const js = "application/json"
	for _, c := range []struct {
		name, method, path, ctype, body string
		status                          int
		field                           string
	}{
		{"NUL in a JSON string", "POST", "/pricing/api/login", js, `{"username":"a\u0000b","password":"x"}`, 400, "username"},
		{"raw invalid UTF-8 in a JSON string", "POST", "/pricing/api/login", js, "{\"password\":\"x\",\"username\":\"a\xffb\"}", 400, "username"},
		{"1 MB username", "POST", "/pricing/api/login", js, `{"username":"` + strings.Repeat("a", 200_000) + `","password":"x"}`, 400, "username"},
		{"body over the limit", "POST", "/pricing/api/login", js, `{"username":"` + strings.Repeat("a", 300<<10) + `"}`, 413, "body"},
		{"broken JSON", "POST", "/pricing/api/login", js, `{"username":`, 400, "body"},
		{"NUL in a query parameter", "GET", "/account/api/subscription/available/add-ons?currency=US%00D", "", "", 400, "currency"},
		{"invalid UTF-8 in a query parameter", "GET", "/account/api/subscription/available/add-ons?currency=%ff", "", "", 400, "currency"},
		{"invalid UTF-8 in an unrouted path", "GET", "/nowhere/%ff", "", "", 400, "path"},
		// A path parameter is named as the API documents it, not as "path".
		{"invalid UTF-8 in a catalog path parameter", "GET", "/buy/api/jeppesen/avionics/add-on/%ff/x", "", "", 400, "manufacturer"},
		{"invalid UTF-8 in a path parameter", "GET", "/buy/jepp/linked-accounts/%ff", "", "", 400, "accountUuid"},
		{"NUL in a path parameter", "GET", "/buy/jepp/linked-accounts/a%00b", "", "", 400, "accountUuid"},
		{"invalid UTF-8 in the second path parameter", "POST", "/buy/jepp/linked-avionics/a/b%fe", js, `{}`, 400, "jeppAccountId"},
		{"invalid UTF-8 in a Handle route's wildcard", "GET", "/plain/%ff", "", "", 400, "code"},
		{"NUL in a form field", "POST", "/pricing/api/login", "application/x-www-form-urlencoded", "username=a%00b", 400, "username"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := do(t, c.method, base+c.path, c.ctype, c.body)
			if a.status != c.status || fieldOf(a.body) != c.field {
				t.Errorf("%s %s = %d field %q (%.200s), want %d naming %q", c.method, c.path, a.status, fieldOf(a.body), a.raw, c.status, c.field)
			}
		})
	}
	select {
	case u := <-id.reached:
		t.Errorf("a refused request reached the handler (username %.20q)", u)
	default:
	}
}

// Requests the gateway cannot decode answer the one error shape naming the field in plain
// words; the parser's words ('proto:', 'strconv.ParseInt', 'invalid character') never show.
func TestDecodeErrorsArePlain(t *testing.T) {
	t.Parallel()
	base, _ := startWithIdentity(t)
	for _, c := range []struct {
		name, method, path, body string
		field, says              string
	}{
		{"bool given as text", "POST", "/pricing/api/create-account", `{"is_eu":"yes"}`, "is_eu", "true or false"},
		{"unknown field", "POST", "/pricing/api/login", `{"user":"x"}`, "user", "not a field"},
		{"string given a number", "POST", "/pricing/api/login", `{"username":1}`, "username", "text"},
		{"top-level array", "POST", "/pricing/api/login", `[1]`, "body", "not valid JSON"},
		{"integer as text in the query", "GET", "/buy/api/subscription/scheduled-prices?quantity=abc", "", "quantity", "whole number"},
		{"integer out of range in the query", "GET", "/buy/api/subscription/scheduled-prices?quantity=99999999999", "", "quantity", "out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := do(t, c.method, base+c.path, "application/json", c.body)
			if a.status != 400 || fieldOf(a.body) != c.field || !strings.Contains(a.body.Message, c.says) {
				t.Errorf("= %d %s; want 400 naming %q saying %q", a.status, a.raw, c.field, c.says)
			}
			for _, leak := range []string{"proto:", "strconv", "invalid character", "line 1", "syntax error"} {
				if strings.Contains(a.raw, leak) {
					t.Errorf("answer shows parser internals %q: %s", leak, a.raw)
				}
			}
		})
	}
}

func TestThrottledAnswersRetryAfter(t *testing.T) {
	t.Parallel()
	base, id := startWithIdentity(t)
	a := do(t, "POST", base+"/pricing/api/login", "application/json", `{"username":"slow down","password":"x"}`)
	<-id.reached
	if a.status != 429 || a.header.Get("Retry-After") != "90" {
		t.Errorf("= %d Retry-After %q (%s); want 429 with Retry-After 90", a.status, a.header.Get("Retry-After"), a.raw)
	}
}

func TestAPIAnswersCarrySecurityHeaders(t *testing.T) {
	t.Parallel()
	base, id := startWithIdentity(t)
	a := do(t, "POST", base+"/pricing/api/login", "application/json", `{"username":"u","password":"p"}`)
	<-id.reached
	for k, want := range map[string]string{
		"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
		"Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'", "Referrer-Policy": "no-referrer",
	} {
		if got := a.header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}
