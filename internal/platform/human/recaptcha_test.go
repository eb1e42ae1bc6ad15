package human_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/human"
)

const secret = "6Lc-test-secret-never-logged"

// google behaves like Google's siteverify for the tokens the tests use: a form POST with
// secret, response and remoteip; JSON answers with success, score and error-codes. A
// token is answered once; the second time it is "timeout-or-duplicate", as Google does.
func google(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	seen := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || r.ParseForm() != nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		token, answer := r.PostForm.Get("response"), map[string]any{"success": false}
		switch {
		case token == "slow":
			<-r.Context().Done()
			return
		case token == "down":
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		case r.PostForm.Get("secret") != secret:
			answer["error-codes"] = []string{"invalid-input-secret"}
		case seen[token]:
			answer["error-codes"] = []string{"timeout-or-duplicate"}
		case token == "human" && r.PostForm.Get("remoteip") == "203.0.113.7":
			answer = map[string]any{"success": true, "hostname": "store.hangar.test", "challenge_ts": time.Now().Format(time.RFC3339)}
		case token == "v3-human":
			answer = map[string]any{"success": true, "score": 0.9, "action": "submit"}
		case token == "v3-bot":
			answer = map[string]any{"success": true, "score": 0.1, "action": "submit"}
		default:
			answer["error-codes"] = []string{"invalid-input-response"}
		}
		seen[token] = true
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(answer)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestRecaptchaAgainstSiteverify(t *testing.T) {
	t.Parallel()
	srv, calls := google(t)
	ctx := context.Background()
	r := human.NewRecaptcha(human.RecaptchaConfig{Secret: secret, URL: srv.URL, Timeout: 100 * time.Millisecond})
	for _, tc := range []struct {
		name, token string
		want        bool
	}{
		{"a human's token", "human", true},
		{"the same token again (Google answers a token once)", "human", false},
		{"an invalid token", "forged", false},
	} {
		if ok, err := r.Verify(ctx, tc.token, "203.0.113.7"); ok != tc.want || err != nil {
			t.Errorf("%s: %v, %v; want %v", tc.name, ok, err, tc.want)
		}
	}
	before := calls.Load()
	if ok, err := r.Verify(ctx, "  ", "203.0.113.7"); ok || err != nil {
		t.Errorf("blank value: %v, %v", ok, err)
	}
	if calls.Load() != before {
		t.Error("a blank value was sent to Google")
	}

	v3 := human.NewRecaptcha(human.RecaptchaConfig{Secret: secret, URL: srv.URL, MinScore: 0.5})
	if ok, err := v3.Verify(ctx, "v3-human", ""); !ok || err != nil {
		t.Errorf("v3 score 0.9: %v %v", ok, err)
	}
	if ok, err := v3.Verify(ctx, "v3-bot", ""); ok || err != nil {
		t.Errorf("v3 score 0.1 under 0.5: %v %v", ok, err)
	}
}

func TestRecaptchaFailuresAreErrorsWithoutTheSecret(t *testing.T) {
	t.Parallel()
	srv, calls := google(t)
	ctx := context.Background()
	wrong := human.NewRecaptcha(human.RecaptchaConfig{Secret: "wrong-" + secret, URL: srv.URL})
	ok, err := wrong.Verify(ctx, "human", "")
	if ok || err == nil || !strings.Contains(err.Error(), "invalid-input-secret") {
		t.Errorf("wrong secret: %v, %v; want an error (the site is misconfigured, not the buyer a bot)", ok, err)
	}
	r := human.NewRecaptcha(human.RecaptchaConfig{Secret: secret, URL: srv.URL, Timeout: 50 * time.Millisecond})
	before := calls.Load()
	for _, token := range []string{"slow", "down"} {
		ok, err := r.Verify(ctx, token, "")
		if ok || err == nil {
			t.Errorf("%s: %v, %v; want an error", token, ok, err)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("%s: the error shows the secret: %v", token, err)
		}
	}
	if n := calls.Load() - before; n != 2 {
		t.Errorf("siteverify called %d times for 2 verifications: a token must not be retried", n)
	}
}
