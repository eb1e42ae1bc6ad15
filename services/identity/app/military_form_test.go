package app_test

import "testing"

// The military form post answers user.eligible and user.invoiceUrl (spec 001 §4/§7), empty
// URL included: it left invoiceUrl out (issue 42 item 6).
func TestMilitaryFormAnswersInvoiceURL(t *testing.T) {
	t.Parallel()
	r := start(t)
	b := newBrowser(t, r.base)
	b.do("GET", "/buy/api/me", "", false)
	for _, tc := range []struct {
		email    string
		eligible bool
	}{{"sam.sailor@navy.mil", true}, {"pat@example.com", false}} {
		code, body := b.do("POST", "/buy/eligibility/military", `{"email":"`+tc.email+`","subscription":"military"}`, true)
		user, _ := body["user"].(map[string]any)
		url, present := user["invoiceUrl"]
		if code != 200 || user["eligible"] != tc.eligible || !present || url != "" {
			t.Errorf("%s: %d %v", tc.email, code, body)
		}
	}
}
