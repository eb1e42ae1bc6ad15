package app_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/services/identity/app"
)

// loginFrom posts a login from the loopback address ip (the per-address limits see it as
// the client) and answers the status and Retry-After.
func loginFrom(t *testing.T, base, ip, email, password string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/pricing/api/login", strings.NewReader(`{"username":"`+email+`","password":"`+password+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cookie", auth.XSRFCookie+"=x")
	req.Header.Set(auth.XSRFHeader, "x")
	resp, err := fromAddr(ip).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// Nobody can lock the owner out by knowing the e-mail. Before, the per-account cap (50
// failures from anywhere) refused the right password from every address for 15 minutes:
// 10 addresses × 5 wrong passwords did it. Failures now count per account and address;
// an account that sees failures from many addresses slows down (each further address gets
// fewer guesses), but the owner's right password from an address of their own logs in.
func TestWrongPasswordsFromManyAddressesDoNotLockTheOwnerOut(t *testing.T) {
	t.Parallel()
	// A day's window: the buckets refill one failure every 29 minutes (account) and 4.8
	// hours (pair), so how long the 72 logins take cannot give a token back mid-test.
	r := start(t, map[string]string{"IDENTITY_THROTTLE_WINDOW": "24h"})
	const victim = "pilot@demo.hangar.test"
	// 60 wrong passwords from 12 addresses, 5 each. The first 50 (10 addresses) are all
	// checked; then the account is under attack and each further address gets 2.
	for a := 1; a <= 12; a++ {
		ip := fmt.Sprintf("127.0.1.%d", a)
		checked := 0
		for i := range 5 {
			code, retry := loginFrom(t, r.base, ip, victim, "guess-"+ip+"-"+fmt.Sprint(i))
			switch {
			case code == 401:
				checked++
			case code != 429 || retry == "":
				t.Fatalf("wrong password %d from attacker %s = %d Retry-After %q, want 401 or 429 with Retry-After", i+1, ip, code, retry)
			}
		}
		want := 5
		if a > 10 {
			want = 2
		}
		if checked != want {
			t.Errorf("attacker %s had %d of 5 guesses checked, want %d", ip, checked, want)
		}
		// The guesser's own address is done for the window, and told when to come back.
		if code, retry := loginFrom(t, r.base, ip, victim, "one-more"); code != 429 || retry == "" {
			t.Fatalf("one more guess from %s = %d Retry-After %q, want 429 with Retry-After", ip, code, retry)
		}
	}
	if code, _ := loginFrom(t, r.base, "127.0.1.13", victim, app.DemoPassword); code != 200 {
		t.Errorf("the owner's right password from a 13th address after the attack = %d, want 200", code)
	}
}
