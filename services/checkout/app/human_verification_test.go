package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/devhuman"
)

// With human verification on (against the development verifier's siteverify, as make dev
// runs it): the pages learn the widget from GET /buy/api/human-verification; a submit
// without a value is 'Please verify you are a human.', one the verifier refuses is the
// captcha error, and a value the widget handed out buys. Nothing is charged until then.
func TestHumanVerificationWithTheDevelopmentVerifier(t *testing.T) {
	t.Parallel()
	verifier := httptest.NewServer(devhuman.Handler())
	t.Cleanup(verifier.Close)
	st := startStack(t, map[string]string{
		"CHECKOUT_RECAPTCHA_REQUIRED": "true", "CHECKOUT_RECAPTCHA_SECRET": devhuman.Secret,
		"CHECKOUT_RECAPTCHA_URL": verifier.URL + devhuman.SiteverifyPath, "CHECKOUT_RECAPTCHA_SITE_KEY": devhuman.SiteKey,
		"CHECKOUT_RECAPTCHA_SCRIPT_URL": devhuman.ScriptPath,
	})

	resp, err := http.Get(st.base + "/buy/api/human-verification")
	if err != nil {
		t.Fatal(err)
	}
	var hv map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&hv)
	resp.Body.Close()
	if resp.StatusCode != 200 || hv["required"] != true || hv["siteKey"] != devhuman.SiteKey || hv["scriptUrl"] != devhuman.ScriptPath {
		t.Fatalf("human-verification: %d %v", resp.StatusCode, hv)
	}

	buyer := fmt.Sprintf("human-%d@buyer.test", time.Now().UnixNano())
	body := func(nonce, value string) string {
		return `{"giftCertValues":[50],"email":"` + buyer + `","zipcode":"97201","country":"US","currency":"USD",
			"cardholderName":"Amelia Earhart","nonce":"` + nonce + `","recaptchaValue":"` + value + `"}`
	}
	for _, c := range []struct{ name, value, want string }{
		{"not ticked", "", "Please verify you are a human."},
		{"refused by the verifier", "forged-value", "We are having problems validating your form."},
	} {
		code, m := post(t, st.base+"/buy/api/gift/submit", "human-"+c.name, body(st.tokenize(t, "4111111111111111"), c.value), "")
		if code != 400 || !slices.Contains(strs(m["errors"]), c.want) {
			t.Errorf("%s: %d %v, want 400 with %q", c.name, code, m, c.want)
		}
	}
	code, m := post(t, st.base+"/buy/api/gift/submit", "human-ticked", body(st.tokenize(t, "4111111111111111"), devhuman.Token()), "")
	if code != 200 || m["status"] != "ok" {
		t.Fatalf("ticked: %d %v", code, m)
	}
}
