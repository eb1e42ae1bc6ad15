package app_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/hangar/hangar/internal/devhuman"
)

// The audit's card tester went through the store's own gift page: one anonymous client, 16
// gift orders of $25, a fresh session each, never slowed. Through checkout now: the 5th
// decline of one address is its last; the next submit answers 429 with Retry-After and
// nothing is charged or kept (the key may be tried again after the wait), while a buyer at
// another address pays.
func TestCardTesterStoppedThroughTheGiftPage(t *testing.T) {
	t.Parallel()
	st := startStack(t, map[string]string{"TRUSTED_PROXIES": "1"})
	submit := func(addr, key, email, nonce string) (int, http.Header, map[string]any) {
		return st.gift(t, giftReq{Addr: addr, Key: key, Buyer: email, Nonce: nonce, Name: "Card Tester"})
	}
	declines := 0
	for i := range 16 {
		nonce, code := st.tokenizeCode(t, "4000000000000002")
		if code == http.StatusTooManyRequests {
			break // the card itself is past the rule: no nonce
		}
		code, _, m := submit("203.0.113.50", "tester-"+strconv.Itoa(i), fmt.Sprintf("tester%d@example.com", i), nonce)
		if code == http.StatusTooManyRequests {
			break
		}
		if code != http.StatusPaymentRequired {
			t.Fatalf("decline %d = %d %v", i, code, m)
		}
		declines++
	}
	if declines != 5 {
		t.Fatalf("the tester was declined %d times before being stopped, want 5", declines)
	}
	if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges WHERE status = 'failed'`); n != 5 {
		t.Errorf("%d declined charges at payments, want 5", n)
	}
	// Another card from the same address: refused at the charge, nothing kept.
	code, hdr, m := submit("203.0.113.50", "tester-good-card", "tester-late@example.com", st.tokenize(t, "4111111111111111"))
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") == "" {
		t.Fatalf("the tester's next submit = %d %v (Retry-After %q), want 429", code, m, hdr.Get("Retry-After"))
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM submissions WHERE key LIKE 'tester-good-card@%'`); n != 0 {
		t.Errorf("the refused submit kept %d submissions", n)
	}
	if code, _, m := submit("198.51.100.60", "buyer-1", "buyer@example.com", st.tokenize(t, "4111111111111111")); code != 200 {
		t.Errorf("a buyer at another address = %d %v", code, m)
	}
}

// tokenizeCode tokenizes at the fields origin and answers the nonce and the status.
func (st *stack) tokenizeCode(t testing.TB, number string) (string, int) {
	t.Helper()
	code, m := call(t, "POST", st.payFields+"/api/tokenize",
		`{"number":"`+number+`","cvv":"123","expirationDate":"12/2030","cardholderName":"Amelia Earhart","postalCode":"97201"}`)
	nonce, _ := m["nonce"].(string)
	return nonce, code
}

// Issue 41: anonymous declined gift orders that named a customer's e-mail spent that
// customer's decline budget; with the production limit of 5 the customer, logged in at
// their own address, got 429 on every card for 10 minutes. A decline now counts against
// the attacker's subjects (card, address, session) and against an account or e-mail only
// when that account's own session made it: the attacker is stopped, the named customer
// pays.
func TestNamedVictimIsNotLockedOutByAnothersDeclines(t *testing.T) {
	t.Parallel()
	st := startStack(t, map[string]string{"TRUSTED_PROXIES": "1"})
	const victim = "pilot@demo.hangar.test"
	for i := range 5 {
		code, m := st.giftFrom(t, "203.0.113.66", "attack-"+strconv.Itoa(i), victim, st.tokenize(t, "4000000000000002"), "")
		if code != http.StatusPaymentRequired {
			t.Fatalf("attacker's decline %d = %d %v", i, code, m)
		}
	}
	// The attacker's address is past the rule.
	if code, m := st.giftFrom(t, "203.0.113.66", "attack-good", victim, st.tokenize(t, "4111111111111111"), ""); code != http.StatusTooManyRequests {
		t.Errorf("the attacker's 6th attempt = %d %v, want 429", code, m)
	}
	// The named customer, logged in at their own address, pays with a good card.
	session := login(t, st.idBase, victim)
	if code, m := st.giftFrom(t, "198.51.100.77", "victim-pays", victim, st.tokenize(t, "4111111111111111"), session); code != 200 {
		t.Errorf("the named customer's own order = %d %v, want 200", code, m)
	}
	// So does an anonymous buyer elsewhere who names the same e-mail with a good card.
	if code, m := st.giftFrom(t, "198.51.100.78", "victim-anon", victim, st.tokenize(t, "4111111111111111"), ""); code != 200 {
		t.Errorf("an order naming the customer from another address = %d %v, want 200", code, m)
	}
}

// Past the decline limit a card payment asks for human verification first and refuses only
// after that (issue 41). With human verification on, every gift submit carries the widget's
// tick: behind one address (a NAT) that five declined orders brought to the limit, a
// verified buyer still pays, until the verified limit (PAYMENTS_VELOCITY_HUMAN_DECLINES)
// stops the tester too.
func TestVerifiedBuyersPayPastTheDeclineLimit(t *testing.T) {
	t.Parallel()
	verifier := httptest.NewServer(devhuman.Handler())
	t.Cleanup(verifier.Close)
	const hard = 8
	st := startStack(t, map[string]string{"TRUSTED_PROXIES": "1", "PAYMENTS_VELOCITY_HUMAN_DECLINES": strconv.Itoa(hard),
		"CHECKOUT_RECAPTCHA_REQUIRED": "true", "CHECKOUT_RECAPTCHA_SECRET": devhuman.Secret,
		"CHECKOUT_RECAPTCHA_URL": verifier.URL + devhuman.SiteverifyPath, "CHECKOUT_RECAPTCHA_SITE_KEY": devhuman.SiteKey,
		"CHECKOUT_RECAPTCHA_SCRIPT_URL": devhuman.ScriptPath})
	const nat = "203.0.113.70"
	decline := func(i int) int {
		code, _, m := st.gift(t, giftReq{Addr: nat, Key: "nat-decl-" + strconv.Itoa(i), Buyer: fmt.Sprintf("nat%d@example.com", i),
			Nonce: st.tokenize(t, "4000000000000002"), Human: devhuman.Token()})
		if code != http.StatusPaymentRequired && code != http.StatusTooManyRequests {
			t.Fatalf("declined order %d = %d %v", i, code, m)
		}
		return code
	}
	for i := range 5 {
		if code := decline(i); code != http.StatusPaymentRequired {
			t.Fatalf("declined order %d = %d, want 402", i, code)
		}
	}
	code, _, m := st.gift(t, giftReq{Addr: nat, Key: "nat-buyer", Buyer: "nat-buyer@example.com", Nonce: st.tokenize(t, "4111111111111111"),
		Human: devhuman.Token()})
	if code != 200 {
		t.Fatalf("a verified buyer behind the address past the first limit = %d %v, want 200", code, m)
	}
	for i := 5; i < hard; i++ {
		if code := decline(i); code != http.StatusPaymentRequired {
			t.Fatalf("verified declined order %d = %d, want 402 (the verified limit is %d)", i, code, hard)
		}
	}
	code, hdr, m := st.gift(t, giftReq{Addr: nat, Key: "nat-late", Buyer: "nat-late@example.com", Nonce: st.tokenize(t, "4111111111111111"),
		Human: devhuman.Token()})
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") == "" {
		t.Errorf("a verified order past the verified limit = %d %v, want 429", code, m)
	}
}
