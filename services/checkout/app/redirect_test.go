package app_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// Issue 27 (redirects): deeplinkOnSuccess comes back as mobileDeeplink only for the app's
// configured schemes and hosts; anything else is dropped (the page then goes to the
// receipt), and redirectUrl is always a path of this site.
func TestDeeplinkOnSuccessOnlyForTheApp(t *testing.T) {
	t.Parallel()
	st := startStack(t, map[string]string{"CHECKOUT_DEEPLINK_ALLOW": "hangar:,https://app.hangar.example"})
	for _, tc := range []struct{ link, want string }{
		{"https://evil.example/phish", ""},
		{"javascript:alert(1)", ""},
		{"//evil.example/phish", ""},
		{"https://app.hangar.example.evil.example/x", ""},
		{"http://app.hangar.example/done", ""}, // https only, as configured
		{"hangar://purchase/done?ok=1", "hangar://purchase/done?ok=1"},
		{"https://app.hangar.example/done", "https://app.hangar.example/done"},
	} {
		var cfg map[string]any
		body := quoted(t, st.base, newBuyer("deeplink"), st.tokenize(t, "4111111111111111"), "")
		_ = json.Unmarshal([]byte(body), &cfg)
		cfg["deeplinkOnSuccess"] = tc.link
		b, _ := json.Marshal(cfg)
		code, m, _ := submitRaw(t, st.base, "deeplink-"+tc.link, string(b), "")
		got, _ := m["mobileDeeplink"].(string)
		redirect, _ := m["redirectUrl"].(string)
		if code != 200 || got != tc.want {
			t.Errorf("%s: %d mobileDeeplink %q, want %q", tc.link, code, got, tc.want)
		}
		if !strings.HasPrefix(redirect, "/") || strings.HasPrefix(redirect, "//") {
			t.Errorf("%s: redirectUrl %q is not a path of this site", tc.link, redirect)
		}
	}
}
