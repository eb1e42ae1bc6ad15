package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// giftReq is a gift order as a browser at Addr (behind the trusted proxy) sends it: an
// anonymous one, or a session's with Cookie. Empty fields take giftReq.defaults.
type giftReq struct {
	Addr, Key, Buyer, Recipient, Currency, Values, Nonce, Cookie, Name string
	// Human is the human-verification widget's value (recaptchaValue; none when empty).
	Human string
}

func (g giftReq) defaults() giftReq {
	def := func(v *string, d string) {
		if *v == "" {
			*v = d
		}
	}
	def(&g.Recipient, "friend@example.com")
	def(&g.Currency, "USD")
	def(&g.Values, "25")
	def(&g.Name, "Card Holder")
	return g
}

// gift posts g to /buy/api/gift/submit and answers the status, headers and JSON body.
func (st *stack) gift(t *testing.T, g giftReq) (int, http.Header, map[string]any) {
	t.Helper()
	g = g.defaults()
	fields := map[string]any{"giftCertValues": json.RawMessage("[" + g.Values + "]"), "email": g.Buyer, "zipcode": "97201",
		"country": "US", "currency": g.Currency, "cardholderName": g.Name, "nonce": g.Nonce,
		"recipient": map[string]string{"email": g.Recipient, "name": "Bessie Coleman"}}
	if g.Human != "" {
		fields["recaptchaValue"] = g.Human
	}
	body, _ := json.Marshal(fields)
	return postFrom(t, st.base+"/buy/api/gift/submit", string(body), g.Cookie, g.Key, g.Addr)
}

// postFrom posts a JSON submit as a browser at addr (with cookie: a session; its XSRF pair
// made for it) under the idempotency key, and answers the status, headers and JSON body.
func postFrom(t *testing.T, url, body, cookie, key, addr string) (int, http.Header, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	xsrf := xsrfFor(cookie)
	req.Header.Set("Cookie", strings.TrimSuffix("XSRF-TOKEN="+xsrf+"; "+cookie, "; "))
	req.Header.Set("X-XSRF-TOKEN", xsrf)
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("X-Forwarded-For", addr)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := map[string]any{}
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, resp.Header, m
}

// giftFrom posts a $25 gift order for email as a browser at addr (with cookie: a session).
func (st *stack) giftFrom(t *testing.T, addr, key, email, nonce, cookie string) (int, map[string]any) {
	t.Helper()
	code, _, m := st.gift(t, giftReq{Addr: addr, Key: key, Buyer: email, Nonce: nonce, Cookie: cookie})
	return code, m
}

// giftOrder posts an anonymous gift order of values in currency for buyer to recipient,
// as a browser at addr.
func (st *stack) giftOrder(t *testing.T, addr, key, buyer, recipient, currency, values, nonce string) (int, map[string]any) {
	t.Helper()
	code, _, m := st.gift(t, giftReq{Addr: addr, Key: key, Buyer: buyer, Recipient: recipient, Currency: currency, Values: values,
		Nonce: nonce, Name: "Amelia Earhart"})
	return code, m
}

// cardNumber answers a Visa number of its own for n (Luhn-valid, so the sandbox approves
// it): the gift caps count per card, so tests that buy much use a card each.
func cardNumber(n int) string {
	digits := fmt.Sprintf("4571%011d", n) // clear of the sandbox's declining 4000… numbers
	sum := 0
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if (len(digits)-i)%2 == 1 { // doubled: every second digit from the check digit's left
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return digits + fmt.Sprint((10-sum%10)%10)
}
