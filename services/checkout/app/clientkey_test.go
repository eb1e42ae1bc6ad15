package app_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Issue 41: the promo and gift code limiter keyed on the raw address, so an IPv6 client
// had fresh attempts at every address of its /64. Code attempts now count a client by the
// platform's key: the addresses of one /64 share CHECKOUT_CODE_ATTEMPTS (10 a minute),
// while the next /64 is served.
func TestCodeAttemptsCountAnIPv6ClientByItsSlash64(t *testing.T) {
	t.Parallel()
	base := start(t, nil) // one trusted proxy: X-Forwarded-For names the client
	preview := func(addr string, from, n int) int {
		var g []string
		for i := range n {
			g = append(g, `"GUESS`+strconv.Itoa(from+i)+`"`)
		}
		body := `{"cartId":"v6","currency":"USD","addOns":["performance","included_geo_us"],"discountPromoCode":[` + strings.Join(g, ",") + `]}`
		code, _ := call(t, "POST", base+"/buy/api/invoice/preview", body, "X-Forwarded-For", addr)
		return code
	}
	for i := range 2 {
		if code := preview("2001:db8:41:a::"+strconv.Itoa(i+1), 5*i, 5); code != 200 {
			t.Fatalf("guesses %d within the limit = %d", i, code)
		}
	}
	if code := preview("2001:db8:41:a:ffff::1", 50, 1); code != http.StatusTooManyRequests {
		t.Errorf("the 11th guess from another address of the /64 = %d, want 429", code)
	}
	if code := preview("2001:db8:41:b::1", 60, 1); code != 200 {
		t.Errorf("a guess from the next /64 = %d, want 200", code)
	}
}
