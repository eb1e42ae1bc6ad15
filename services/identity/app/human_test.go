package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/devhuman"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/human"
	"github.com/hangar/hangar/services/identity/app"
)

// loginHuman posts a login from ip with the human-verification value and answers the
// status and the error body.
func loginHuman(t *testing.T, base, ip, email, password, value string) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"username": email, "password": password, "recaptchaValue": value})
	req, _ := http.NewRequest("POST", base+"/pricing/api/login", strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cookie", auth.XSRFCookie+"=x")
	req.Header.Set(auth.XSRFHeader, "x")
	resp, err := fromAddr(ip).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := map[string]any{}
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

// Past its limits a login asks for human verification instead of refusing (issue 41):
// with human verification on, the address that used up its guesses is asked for the
// widget's value (400 naming recaptchaValue, no Retry-After wait), a made-up value is
// refused, and with a ticked widget the right password logs in while a wrong one is still
// only a wrong password.
func TestLoginPastItsLimitsAsksForHumanVerification(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(devhuman.Handler())
	t.Cleanup(srv.Close)
	r := start(t, map[string]string{"IDENTITY_THROTTLE_WINDOW": "24h", "IDENTITY_RECAPTCHA_REQUIRED": "true",
		"IDENTITY_RECAPTCHA_SECRET": devhuman.Secret, "IDENTITY_RECAPTCHA_URL": srv.URL + devhuman.SiteverifyPath})
	const owner, ip = "pilot@demo.hangar.test", "127.0.3.1"
	for i := range 5 {
		if code, body := loginHuman(t, r.base, ip, owner, "wrong-"+string(rune('a'+i)), ""); code != 401 {
			t.Fatalf("wrong password %d = %d %v, want 401", i+1, code, body)
		}
	}
	code, body := loginHuman(t, r.base, ip, owner, app.DemoPassword, "")
	if code != 400 || body["reason"] != human.ReasonRequired || !strings.Contains(fmtJSON(body["fieldErrors"]), `"field":"recaptchaValue"`) {
		t.Fatalf("the right password past the limits without the value = %d %v, want 400 asking for human verification", code, body)
	}
	if code, body := loginHuman(t, r.base, ip, owner, app.DemoPassword, "made-up-by-a-script"); code != 400 || body["message"] != human.MsgUnavailable {
		t.Fatalf("a made-up value = %d %v, want 400", code, body)
	}
	if code, body := loginHuman(t, r.base, ip, owner, "still-wrong", devhuman.Token()); code != 401 {
		t.Fatalf("a wrong password with a ticked widget = %d %v, want 401", code, body)
	}
	if code, body := loginHuman(t, r.base, ip, owner, app.DemoPassword, devhuman.Token()); code != 200 {
		t.Fatalf("the right password with a ticked widget = %d %v, want 200", code, body)
	}
}

func fmtJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
