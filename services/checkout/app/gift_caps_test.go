package app_test

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The audit bought 20 × $1,000 gift certificates in one order: a cash-out path for stolen
// cards. A gift order now totals at most CHECKOUT_GIFT_ORDER_CAP ($2,000) and a buyer buys
// at most CHECKOUT_GIFT_DAY_CAP ($5,000) a day, reserved atomically (concurrent submits of
// one buyer do not pass it together), with a clear message and nothing charged.
func TestGiftCertificateCaps(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	buyer := fmt.Sprintf("caps-%d@buyer.test", time.Now().UnixNano())
	body := func(values, nonce string) string {
		return `{"giftCertValues":[` + values + `],"email":"` + buyer + `","zipcode":"97201","country":"US","currency":"USD",
			"cardholderName":"Amelia Earhart","nonce":"` + nonce + `","recipient":{"email":"friend@example.com","name":"Bessie Coleman"}}`
	}
	twenty := "1000"
	for range 19 {
		twenty += ",1000"
	}
	code, m := post(t, st.base+"/buy/api/gift/submit", "caps-20k", body(twenty, st.tokenize(t, "4111111111111111")), "")
	if code != 400 || !contains(strs(m["errors"]), "A gift certificate order may total at most $2000.00. Please buy fewer or smaller certificates.") {
		t.Fatalf("20 × $1,000 = %d %v, want the order cap", code, m)
	}

	// $2,000 orders of one buyer: two pass, and of three more sent at once only the one that
	// still fits ($1,000 left) — none of them, as each is $2,000.
	for i := range 2 {
		code, m := post(t, st.base+"/buy/api/gift/submit", "caps-ok-"+strconv.Itoa(i), body("1000,1000", st.tokenize(t, "4111111111111111")), "")
		if code != 200 {
			t.Fatalf("order %d within the caps = %d %v", i, code, m)
		}
	}
	var wg sync.WaitGroup
	codes := make([]int, 3)
	msgs := make([][]string, 3)
	nonces := []string{st.tokenize(t, "4111111111111111"), st.tokenize(t, "4111111111111111"), st.tokenize(t, "4111111111111111")}
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var m map[string]any
			codes[i], m = post(t, st.base+"/buy/api/gift/submit", "caps-over-"+strconv.Itoa(i), body("1000,1000", nonces[i]), "")
			msgs[i] = strs(m["errors"])
		}()
	}
	wg.Wait()
	for i := range codes {
		if codes[i] != 400 || !contains(msgs[i], "You can buy at most $5000.00 in gift certificates per day. Please try again tomorrow or buy less.") {
			t.Errorf("order past the day cap = %d %v", codes[i], msgs[i])
		}
	}
	// What is left of the day ($1,000) can still be bought.
	if code, m := post(t, st.base+"/buy/api/gift/submit", "caps-rest", body("1000", st.tokenize(t, "4111111111111111")), ""); code != 200 {
		t.Errorf("the rest of the day = %d %v", code, m)
	}
	// A declined order gives its reservation back.
	other := fmt.Sprintf("caps-other-%d@buyer.test", time.Now().UnixNano())
	b2 := func(nonce string) string {
		return `{"giftCertValues":[1000,1000],"email":"` + other + `","zipcode":"97201","country":"US","currency":"USD",
			"cardholderName":"Amelia Earhart","nonce":"` + nonce + `","recipient":{"email":"friend@example.com","name":"Bessie Coleman"}}`
	}
	for i := range 3 {
		if code, m := post(t, st.base+"/buy/api/gift/submit", "caps-decl-"+strconv.Itoa(i), b2(st.tokenize(t, "4000000000000002")), ""); code == 200 {
			t.Fatalf("a declined card = %d %v", code, m)
		}
	}
	if code, m := post(t, st.base+"/buy/api/gift/submit", "caps-after-decl", b2(st.tokenize(t, "4111111111111111")), ""); code != 200 {
		t.Errorf("after three declined $2,000 orders = %d %v, want 200 (declines hold no reservation)", code, m)
	}
}
