package app_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/devhuman"
)

// oneOffGuestReq is a one-off order as a browser without a session at Addr (behind the
// trusted proxy) sends it.
type oneOffGuestReq struct {
	Addr, Key, CartID, Email, Nonce, Human string
	// Extra is appended to the request's top level (e.g. a stored method).
	Extra string
}

func (st *stack) oneOffGuest(t *testing.T, r oneOffGuestReq) (int, http.Header, map[string]any) {
	t.Helper()
	body := `{"configuration":{"cartId":"` + r.CartID + `","currency":"USD","email":"` + r.Email + `","billingInfo":{"zipcode":"97201","country":"US"},
		"items":[{"code":"oneoff_chartpack_us_vfr","quantity":3}],"cardholderName":"Amelia Earhart","recaptchaValue":"` + r.Human + `"},"nonce":"` + r.Nonce + `"` + r.Extra + `}`
	return postFrom(t, st.base+"/buy/api/oneoff/submit", body, "", r.Key, r.Addr)
}

// oneOffCart is a staff-made one-off cart of the chart pack and two SD cards.
func (st *stack) oneOffCart(t *testing.T) string {
	t.Helper()
	staff := login(t, st.idBase, "employee@demo.hangar.test")
	_, c := call(t, "POST", st.base+"/buy/api/cart-create",
		`{"requestJson":{"selectedProducts":[{"code":"oneoff_chartpack_us_vfr","quantity":1},{"code":"oneoff_dbcard_garmin_sd","quantity":2}],"applyTax":true,"currency":"USD"}}`, "Cookie", staff)
	id, _ := c["uuid"].(string)
	if id == "" {
		t.Fatalf("cart-create: %v", c)
	}
	return id
}

// Issue 45 item 8 (spec 001 §1: a visitor enters an e-mail and pays by card): a one-off
// cart answered every visitor 401 'Please log in'. A guest now buys it as /buy's guest
// buys a plan: human verification first (nothing is made for a form that fails it), the
// account made for a new e-mail (and kept open for a retry), an e-mail whose account is
// in use asked to log in, a stored method refused without a session.
func TestGuestBuysAOneOffCart(t *testing.T) {
	t.Parallel()
	verifier := httptest.NewServer(devhuman.Handler())
	t.Cleanup(verifier.Close)
	st := startStack(t, map[string]string{"TRUSTED_PROXIES": "1",
		"CHECKOUT_RECAPTCHA_REQUIRED": "true", "CHECKOUT_RECAPTCHA_SECRET": devhuman.Secret,
		"CHECKOUT_RECAPTCHA_URL": verifier.URL + devhuman.SiteverifyPath, "CHECKOUT_RECAPTCHA_SITE_KEY": devhuman.SiteKey,
		"CHECKOUT_RECAPTCHA_SCRIPT_URL": devhuman.ScriptPath})
	cartID := st.oneOffCart(t)
	guest := fmt.Sprintf("guest-%d@buyer.test", time.Now().UnixNano())
	req := func(key, email, human string) oneOffGuestReq {
		return oneOffGuestReq{Addr: "198.51.100.20", Key: key, CartID: cartID, Email: email, Nonce: st.tokenize(t, "4111111111111111"), Human: human}
	}

	if code, _, m := st.oneOffGuest(t, req("not-ticked", guest, "")); code != 400 || !slices.Contains(strs(m["errors"]), "Please verify you are a human.") {
		t.Errorf("guest without human verification = %d %v, want 400", code, m)
	}
	r := req("stored", guest, devhuman.Token())
	r.Extra = `,"useSavedCard":true,"paymentMethodToken":"someone-elses"`
	if code, _, m := st.oneOffGuest(t, r); code != 403 {
		t.Errorf("guest with a stored method = %d %v, want 403", code, m)
	}
	code, _, m := st.oneOffGuest(t, req("in-use", "pilot@demo.hangar.test", devhuman.Token()))
	if code != 401 || m["requireLogin"] != true || !slices.Contains(strs(m["errors"]), "An account already exists for this e-mail address. Please log in to continue.") {
		t.Errorf("guest naming an account in use = %d %v, want 401 requireLogin", code, m)
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM submissions`); n != 0 {
		t.Errorf("refused guest submits kept %d submissions", n)
	}

	code, _, m = st.oneOffGuest(t, req("guest-1", guest, devhuman.Token()))
	inv, _ := m["invoice"].(map[string]any)
	// 3 × 89 + 2 × 49 = 365.00; Oregon has no sales tax.
	if code != 200 || m["status"] != "ok" || inv["totalInCents"] != float64(36500) || m["accountId"] == "" || m["accountId"] == nil {
		t.Fatalf("guest one-off submit = %d %v", code, m)
	}
	// The account made at checkout is never activated yet: the same guest buys again.
	code, _, m2 := st.oneOffGuest(t, req("guest-2", strings.ToUpper(guest), devhuman.Token()))
	if code != 200 || m2["accountId"] != m["accountId"] {
		t.Errorf("the guest's second order = %d %v, want 200 on account %v", code, m2, m["accountId"])
	}
}

// A guest's one-off declines count against the guest's own subjects (address, card,
// session), as /buy's and the gift page's do: a card tester trying fresh e-mails from one
// address is stopped with 429 after 5 declines, while a guest elsewhere pays.
func TestGuestOneOffDeclinesStopTheTester(t *testing.T) {
	t.Parallel()
	st := startStack(t, map[string]string{"TRUSTED_PROXIES": "1"})
	cartID := st.oneOffCart(t)
	const tester = "203.0.113.80"
	for i := range 5 {
		code, _, m := st.oneOffGuest(t, oneOffGuestReq{Addr: tester, Key: "tester-" + strconv.Itoa(i), CartID: cartID,
			Email: fmt.Sprintf("tester%d@example.com", i), Nonce: st.tokenize(t, "4000000000000002")})
		if code != http.StatusPaymentRequired {
			t.Fatalf("tester's decline %d = %d %v", i, code, m)
		}
	}
	code, hdr, m := st.oneOffGuest(t, oneOffGuestReq{Addr: tester, Key: "tester-good", CartID: cartID, Email: "tester-late@example.com",
		Nonce: st.tokenize(t, "4111111111111111")})
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") == "" {
		t.Errorf("the tester's 6th submit = %d %v (Retry-After %q), want 429", code, m, hdr.Get("Retry-After"))
	}
	if code, _, m := st.oneOffGuest(t, oneOffGuestReq{Addr: "198.51.100.81", Key: "buyer", CartID: cartID, Email: "oneoff-buyer@example.com",
		Nonce: st.tokenize(t, "4111111111111111")}); code != 200 {
		t.Errorf("a guest at another address = %d %v, want 200", code, m)
	}
}
