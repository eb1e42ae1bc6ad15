package app_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Issue 41: an Idempotency-Key was not bound to its caller, so another anonymous browser
// sending the same key and body received the first buyer's answer and receipt cookie. A key
// is now scoped to its caller (account, session, else address): the first buyer's retry is
// still its replay, another browser's same key and body is a new request.
func TestIdempotencyKeyIsScopedToItsCaller(t *testing.T) {
	t.Parallel()
	st := startStack(t, map[string]string{"TRUSTED_PROXIES": "1"})
	body := `{"giftCertValues":[25],"email":"scoped@buyer.test","zipcode":"97201","country":"US","currency":"USD",
		"cardholderName":"Amelia Earhart","nonce":"` + st.tokenize(t, "4111111111111111") + `","recipient":{"email":"friend@example.com","name":"Bessie Coleman"}}`
	send := func(addr string) (int, string, []*http.Cookie) {
		req, _ := http.NewRequest("POST", st.base+"/buy/api/gift/submit", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Cookie", "XSRF-TOKEN=x")
		req.Header.Set("X-XSRF-TOKEN", "x")
		req.Header.Set("Idempotency-Key", "shared-key")
		req.Header.Set("X-Forwarded-For", addr)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		id, _ := m["invoiceId"].(string)
		return resp.StatusCode, id, resp.Cookies()
	}
	code, first, _ := send("198.51.100.31")
	if code != 200 || first == "" {
		t.Fatalf("the first buyer = %d %q", code, first)
	}
	if code, again, _ := send("198.51.100.31"); code != 200 || again != first {
		t.Errorf("the first buyer's retry = %d %q, want the replay of %q", code, again, first)
	}
	code, other, cookies := send("203.0.113.32")
	if other == first {
		t.Errorf("another browser with the same key and body got the first buyer's order %q (%d)", first, code)
	}
	for _, c := range cookies {
		if strings.Contains(c.Name+c.Value, first) {
			t.Errorf("another browser got the first buyer's receipt cookie %s", c.Name)
		}
	}
}
