package devhuman_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/devhuman"
)

// siteverify answers as Google's does: its own tokens pass, anything else is refused, and a
// wrong secret is the site's own error (which checkout reports as the captcha error).
func TestSiteverify(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(devhuman.Handler())
	t.Cleanup(srv.Close)
	verify := func(secret, response string) (ok bool, codes []string) {
		t.Helper()
		resp, err := http.PostForm(srv.URL+devhuman.SiteverifyPath, url.Values{"secret": {secret}, "response": {response}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var a struct {
			Success    bool     `json:"success"`
			ErrorCodes []string `json:"error-codes"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
			t.Fatal(err)
		}
		return a.Success, a.ErrorCodes
	}
	if ok, codes := verify(devhuman.Secret, devhuman.Token()); !ok || len(codes) != 0 {
		t.Errorf("a widget token: %v %v", ok, codes)
	}
	for _, c := range []struct{ secret, response, code string }{
		{devhuman.Secret, "forged", "invalid-input-response"},
		{devhuman.Secret, "", "missing-input-response"},
		{"wrong", devhuman.Token(), "invalid-input-secret"},
		{"", devhuman.Token(), "missing-input-secret"},
	} {
		if ok, codes := verify(c.secret, c.response); ok || len(codes) != 1 || codes[0] != c.code {
			t.Errorf("secret %q response %q: %v %v, want %s", c.secret, c.response, ok, codes, c.code)
		}
	}

	resp, err := http.Get(srv.URL + devhuman.ScriptPath)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") || !strings.Contains(string(b), "window.grecaptcha") {
		t.Errorf("widget script: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
