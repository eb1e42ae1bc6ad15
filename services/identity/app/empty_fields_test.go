package app_test

import "testing"

// Logout answers status and errors (spec 000 §7, spec 001 §7), the empty list included:
// it left errors out (issue 42 item 6).
func TestLogoutAnswersErrors(t *testing.T) {
	t.Parallel()
	r := start(t)
	b := newBrowser(t, r.base)
	b.login("pilot@demo.hangar.test")
	code, body := b.do("POST", "/pricing/api/logout", "", true)
	errs, present := body["errors"].([]any)
	if code != 200 || body["status"] != "ok" || !present || len(errs) != 0 {
		t.Errorf("logout = %d %v, want status ok and errors []", code, body)
	}
}
