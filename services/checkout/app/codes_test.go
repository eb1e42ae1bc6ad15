package app_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Issue 27 (codes): a code counts as an attempt when first tried, not on every re-price;
// a request carries a few codes; one promotion per order; 429 says when to come back; a
// spent gift certificate says so.
func TestCodes(t *testing.T) {
	t.Parallel()
	base := start(t, nil) // CHECKOUT_CODE_ATTEMPTS 10 per minute, the default
	cart := func(id, codes string) string {
		return `{"cartId":"` + id + `","currency":"USD","addOns":["performance","included_geo_us","add_geo_eu"],"discountPromoCode":[` + codes + `]}`
	}
	discounts := func(m map[string]any) []string {
		var out []string
		for _, it := range items(m) {
			if it["type"] == "PLAN_DISCOUNT" {
				out = append(out, it["description"].(string))
			}
		}
		return out
	}

	t.Run("20 re-prices of a cart with one applied code are all answered", func(t *testing.T) {
		for i := range 20 {
			code, m := call(t, "POST", base+"/buy/api/invoice/preview", cart("reprice", `"SPRING10"`), "X-Forwarded-For", "10.20.0.1")
			if code != 200 || len(discounts(m)) != 1 {
				t.Fatalf("re-price %d: %d %v", i+1, code, m)
			}
		}
	})
	t.Run("new codes still count, one attempt each", func(t *testing.T) {
		guesses := func(n, from int) string {
			var g []string
			for i := range n {
				g = append(g, `"GUESS`+strconv.Itoa(from+i)+`"`)
			}
			return strings.Join(g, ",")
		}
		// 10 new guesses pass (two requests of 5); the 11th attempt is refused with the wait.
		for i := range 2 {
			if code, m := call(t, "POST", base+"/buy/api/invoice/preview", cart("guess", guesses(5, 5*i)), "X-Forwarded-For", "10.20.0.2"); code != 200 {
				t.Fatalf("guesses %d: %d %v", i, code, m)
			}
		}
		code, h := callH(t, "POST", base+"/buy/api/invoice/preview", cart("guess", `"SPRING10","GUESS99"`), "X-Forwarded-For", "10.20.0.2")
		if s, err := strconv.Atoi(h.Get("Retry-After")); code != http.StatusTooManyRequests || err != nil || s < 1 {
			t.Errorf("the 11th attempt: %d, Retry-After %q", code, h.Get("Retry-After"))
		}
		code, h = callH(t, "POST", base+"/buy/api/promo/validate", `{"code":"GUESS100"}`, "X-Forwarded-For", "10.20.0.2")
		if s, err := strconv.Atoi(h.Get("Retry-After")); code != http.StatusTooManyRequests || err != nil || s < 1 {
			t.Errorf("promo validate while blocked: %d, Retry-After %q", code, h.Get("Retry-After"))
		}
	})
	t.Run("a request carries at most 5 promo and 5 gift codes", func(t *testing.T) {
		var many []string
		for i := range 200 {
			many = append(many, fmt.Sprintf(`"G%03d"`, i))
		}
		for _, tc := range []struct{ field, body string }{
			{"discountPromoCode", cart("many", strings.Join(many, ","))},
			{"discountPromoCode", cart("six", strings.Join(many[:6], ","))},
			{"giftCertificateCode", `{"currency":"USD","addOns":["performance","included_geo_us"],"giftCertificateCode":[` + strings.Join(many[:6], ",") + `]}`},
		} {
			for _, route := range []string{"preview", "validate", "submit"} {
				code, m := call(t, "POST", base+"/buy/api/invoice/"+route, tc.body, "X-Forwarded-For", "10.20.0.3", "Idempotency-Key", "k-"+route)
				fe, _ := m["fieldErrors"].([]any)
				if code != 400 || len(fe) != 1 || fe[0].(map[string]any)["field"] != tc.field {
					t.Errorf("%s with %d bytes of codes: %d %v", route, len(tc.body), code, m)
				}
			}
		}
		if code, m := call(t, "POST", base+"/buy/api/invoice/preview", cart("five", strings.Join(many[:5], ",")), "X-Forwarded-For", "10.20.0.4"); code != 200 {
			t.Errorf("5 codes: %d %v", code, m)
		}
	})
	t.Run("three valid promotions: one applies", func(t *testing.T) {
		code, m := call(t, "POST", base+"/buy/api/invoice/preview", cart("stack", `"SPRING10","SAVE25","WELCOME5"`), "X-Forwarded-For", "10.20.0.5")
		d := discounts(m)
		if code != 200 || len(d) != 1 || d[0] != "Promotion SPRING10" {
			t.Fatalf("%d discounts %v", code, d)
		}
		var refused []string
		for _, x := range m["codeErrors"].([]any) {
			ce := x.(map[string]any)
			if ce["message"] == "Only one promotion can be applied to an order." {
				refused = append(refused, ce["code"].(string))
			}
		}
		if len(refused) != 2 {
			t.Errorf("code errors %v", m["codeErrors"])
		}
	})
	t.Run("a spent gift certificate says so", func(t *testing.T) {
		code, m := call(t, "POST", base+"/buy/api/invoice/preview", `{"currency":"USD","addOns":["performance","included_geo_us"],"giftCertificateCode":["GIFT-USD-SPENT"]}`, "X-Forwarded-For", "10.20.0.6")
		ce, _ := m["codeErrors"].([]any)
		if code != 200 || len(ce) != 1 || ce[0].(map[string]any)["message"] != "This gift certificate has been used up: it has no balance left." {
			t.Errorf("%d %v", code, m["codeErrors"])
		}
		code, m = call(t, "POST", base+"/buy/api/promo/validate", `{"code":"GIFT-USD-SPENT","configuration":{"currency":"USD"}}`, "X-Forwarded-For", "10.20.0.6")
		if code != 200 || m["status"] != "fail" || m["message"] != "This gift certificate has been used up: it has no balance left." {
			t.Errorf("promo validate: %d %v", code, m)
		}
	})
}
