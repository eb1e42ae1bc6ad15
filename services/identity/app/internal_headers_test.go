package app_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/platform/auth"
)

// raw sends one request with exactly the headers given (no cookie jar), as an attacker
// outside the cluster would.
func raw(t *testing.T, method, url, body string, header http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// The session travels between services in the x-hangar-session metadata. Before, grpc-
// gateway's default matcher turned an outside request's Grpc-Metadata-X-Hangar-Session
// header into that metadata: the token authenticated without the __Host- cookie, and a
// non-safe call with an anonymous XSRF pair passed the session-bound XSRF check. The
// gateway now drops every internal header, so the request is anonymous.
func TestInternalMetadataHeadersAreIgnoredThroughTheGateway(t *testing.T) {
	t.Parallel()
	r := start(t)
	b := newBrowser(t, r.base)
	b.login("pilot@demo.hangar.test")
	token := b.cookies[auth.SessionCookie]

	for _, name := range []string{"Grpc-Metadata-X-Hangar-Session", "grpc-metadata-x-hangar-session", "X-Hangar-Session"} {
		h := http.Header{name: {token}}
		if code, body := raw(t, "GET", r.base+"/buy/api/me", "", h); code != 200 || !strings.Contains(body, `"loggedIn":false`) {
			t.Errorf("GET me with %s and no cookie = %d %s; want an anonymous answer", name, code, body)
		}
		// An anonymous XSRF pair of the attacker's choosing, no session cookie.
		h.Set("Cookie", auth.XSRFCookie+"=x")
		h.Set(auth.XSRFHeader, "x")
		h.Set("Content-Type", "application/json")
		if code, body := raw(t, "POST", r.base+"/account/api/settings/preferences", `{"marketingNotificationsEnabled":false}`, h); code != 401 {
			t.Errorf("POST preferences with %s and no cookie = %d %s; want 401", name, code, body)
		}
	}
}
