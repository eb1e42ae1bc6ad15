package app_test

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/auth"
)

// The audit bought 20 × $1,000 gift certificates in one order: a cash-out path for stolen
// cards. A gift order now totals at most CHECKOUT_GIFT_ORDER_CAP ($2,000) and a buyer buys
// at most CHECKOUT_GIFT_DAY_CAP ($5,000) a day, reserved atomically (concurrent submits of
// one buyer do not pass it together), with a clear message and nothing charged.
func TestGiftCertificateCaps(t *testing.T) {
	t.Parallel()
	st := startStack(t, map[string]string{"TRUSTED_PROXIES": "1"})
	cards := 0
	good := func() string { cards++; return st.tokenize(t, cardNumber(cards)) } // a card each: the card is a subject too
	buyer := fmt.Sprintf("caps-%d@buyer.test", time.Now().UnixNano())
	body := func(values, nonce string) string {
		return `{"giftCertValues":[` + values + `],"email":"` + buyer + `","zipcode":"97201","country":"US","currency":"USD",
			"cardholderName":"Amelia Earhart","nonce":"` + nonce + `","recipient":{"email":"friend@example.com","name":"Bessie Coleman"}}`
	}
	twenty := "1000"
	for range 19 {
		twenty += ",1000"
	}
	code, m := post(t, st.base+"/buy/api/gift/submit", "caps-20k", body(twenty, good()), "")
	if code != 400 || !contains(strs(m["errors"]), "A gift certificate order may total at most $2,000.00. Please buy fewer or smaller certificates.") {
		t.Fatalf("20 × $1,000 = %d %v, want the order cap", code, m)
	}

	// $2,000 orders of one buyer: two pass, and of three more sent at once only the one that
	// still fits ($1,000 left) — none of them, as each is $2,000.
	for i := range 2 {
		code, m := post(t, st.base+"/buy/api/gift/submit", "caps-ok-"+strconv.Itoa(i), body("1000,1000", good()), "")
		if code != 200 {
			t.Fatalf("order %d within the caps = %d %v", i, code, m)
		}
	}
	var wg sync.WaitGroup
	codes := make([]int, 3)
	msgs := make([][]string, 3)
	nonces := []string{good(), good(), good()}
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
		if codes[i] != 400 || !contains(msgs[i], "You can buy at most $5,000.00 in gift certificates per day. Please try again tomorrow or buy less.") {
			t.Errorf("order past the day cap = %d %v", codes[i], msgs[i])
		}
	}
	// What is left of the day ($1,000) can still be bought.
	if code, m := post(t, st.base+"/buy/api/gift/submit", "caps-rest", body("1000", good()), ""); code != 200 {
		t.Errorf("the rest of the day = %d %v", code, m)
	}
	// A declined order gives its reservation back (another buyer, address and recipient:
	// the first's address and recipient have bought their day's worth).
	other := fmt.Sprintf("caps-other-%d@buyer.test", time.Now().UnixNano())
	for i := range 3 {
		if code, m := st.giftOrder(t, "198.51.100.90", "caps-decl-"+strconv.Itoa(i), other, "other-friend@example.com", "USD", "1000,1000", st.tokenize(t, "4000000000000002")); code == 200 {
			t.Fatalf("a declined card = %d %v", code, m)
		}
	}
	if code, m := st.giftOrder(t, "198.51.100.90", "caps-after-decl", other, "other-friend@example.com", "USD", "1000,1000", good()); code != 200 {
		t.Errorf("after three declined $2,000 orders = %d %v, want 200 (declines hold no reservation)", code, m)
	}
}

// Issue 41: the caps counted per buyer e-mail and per currency, so one client bought
// $9,000 + €2,000 + A$2,000 in a minute by changing the buyer's e-mail and the currency.
// The day cap ($5,000) now holds per client address (an IPv6 client by its /64), per
// recipient and per buyer over every currency, converted with the catalogue's rates, and a
// concurrent burst cannot pass it; a buyer elsewhere is unaffected.
func TestGiftCapsFollowTheMoney(t *testing.T) {
	t.Parallel()
	st := startStack(t, map[string]string{"TRUSTED_PROXIES": "1"})
	n := time.Now().UnixNano()
	email := func(tag string, i int) string { return fmt.Sprintf("%s-%d-%d@buyer.test", tag, i, n) }
	cards := 0
	good := func() string { cards++; return st.tokenize(t, cardNumber(cards)) } // a card each: the card is a subject too

	// One /64, a new interface identifier, buyer and recipient each time: $2,000, then
	// €1,000 ($1,075.27) and A$1,000 ($666.67) fit the day's $5,000; $2,000 more does not.
	for i, o := range []struct{ cur, values string }{{"USD", "1000,1000"}, {"EUR", "1000"}, {"AUD", "1000"}} {
		if code, m := st.giftOrder(t, fmt.Sprintf("2001:db8:41:c::%x", i+1), fmt.Sprintf("money-%d", i), email("b", i), email("r", i), o.cur, o.values, good()); code != 200 {
			t.Fatalf("order %d (%s %s) within the caps = %d %v", i, o.cur, o.values, code, m)
		}
	}
	code, m := st.giftOrder(t, "2001:db8:41:c:ffff::9", "money-over", email("b", 9), email("r", 9), "USD", "1000,1000", good())
	if code != 400 || !contains(strs(m["errors"]), "You can buy at most $5,000.00 in gift certificates per day. Please try again tomorrow or buy less.") {
		t.Errorf("the address's $2,000 past $3,741.94 = %d %v, want the day cap", code, m["errors"])
	}
	// A buyer elsewhere pays.
	if code, m := st.giftOrder(t, "198.51.100.91", "money-elsewhere", email("b", 10), email("r", 10), "USD", "1000", good()); code != 200 {
		t.Errorf("a buyer at another address = %d %v", code, m)
	}
	// One recipient over buyers and addresses: $2,000 + $2,000 fit, $2,000 more does not.
	for i := range 3 {
		code, m := st.giftOrder(t, fmt.Sprintf("198.51.100.%d", 100+i), fmt.Sprintf("recipient-%d", i), email("rb", i), "one-friend@example.com", "USD", "1000,1000", good())
		if want := map[bool]int{true: 200, false: 400}[i < 2]; code != want {
			t.Errorf("order %d for one recipient = %d %v, want %d", i, code, m, want)
		}
	}
	// An order in euros is capped by its USD value: €2,000 is $2,150.54.
	if code, m := st.giftOrder(t, "198.51.100.120", "money-eur-order", email("b", 20), email("r", 20), "EUR", "1000,1000", good()); code != 400 ||
		!strings.Contains(fmt.Sprint(m["errors"]), "A gift certificate order may total at most") {
		t.Errorf("a €2,000 order = %d %v, want the order cap", code, m)
	}
	// Five $2,000 orders from one new address at once: two fit its $5,000, three do not.
	nonces := make([]string, 5)
	for i := range nonces {
		nonces[i] = good()
	}
	codes := make([]int, 5)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = st.giftOrder(t, "203.0.113.141", fmt.Sprintf("burst-%d", i), email("burst", i), email("burst-r", i), "USD", "1000,1000", nonces[i])
		}()
	}
	wg.Wait()
	ok, refused := 0, 0
	for _, c := range codes {
		switch c {
		case 200:
			ok++
		case 400:
			refused++
		}
	}
	if ok != 2 || refused != 3 {
		t.Errorf("a burst of five $2,000 orders from one address: %v, want two 200 and three 400", codes)
	}
}

// Issue 41: the caps follow the money to its source. One card pays every order, while the
// buyer's e-mail, the recipient, the currency, the session and the address change each
// time: $2,000, then €1,000 ($1,075.27) and A$1,000 ($666.67) fit the card's $5,000 a day,
// and $2,000 more with that card is refused before anything is charged, from yet another
// address and session. Another card at that address pays.
func TestGiftCapsPerCard(t *testing.T) {
	t.Parallel()
	st := startStack(t, map[string]string{"TRUSTED_PROXIES": "1"})
	n := time.Now().UnixNano()
	const card = "4242424242424242"
	orders := []struct{ cur, values string }{{"USD", "1000,1000"}, {"EUR", "1000"}, {"AUD", "1000"}}
	for i, o := range orders {
		code, _, m := st.gift(t, giftReq{Addr: fmt.Sprintf("198.51.100.%d", 150+i), Key: fmt.Sprintf("card-%d", i),
			Buyer: fmt.Sprintf("card-b%d-%d@buyer.test", i, n), Recipient: fmt.Sprintf("card-r%d-%d@buyer.test", i, n),
			Currency: o.cur, Values: o.values, Nonce: st.tokenize(t, card), Cookie: fmt.Sprintf("%s=card-session-%d", auth.SessionCookie, i)})
		if code != 200 {
			t.Fatalf("order %d (%s %s) with the card = %d %v", i, o.cur, o.values, code, m)
		}
	}
	charged := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges`)
	code, _, m := st.gift(t, giftReq{Addr: "203.0.113.160", Key: "card-over", Buyer: fmt.Sprintf("card-b9-%d@buyer.test", n),
		Recipient: fmt.Sprintf("card-r9-%d@buyer.test", n), Values: "1000,1000", Nonce: st.tokenize(t, card),
		Cookie: auth.SessionCookie + "=card-session-9"})
	if code != 400 || !contains(strs(m["errors"]), "You can buy at most $5,000.00 in gift certificates per day. Please try again tomorrow or buy less.") {
		t.Fatalf("the card's $2,000 past $3,741.94 = %d %v, want the day cap", code, m)
	}
	if after := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges`); after != charged {
		t.Errorf("the refused order reached payments: %d charges, before %d", after, charged)
	}
	code, _, m = st.gift(t, giftReq{Addr: "203.0.113.160", Key: "other-card", Buyer: fmt.Sprintf("card-b10-%d@buyer.test", n),
		Recipient: fmt.Sprintf("card-r10-%d@buyer.test", n), Values: "1000,1000", Nonce: st.tokenize(t, cardNumber(7))})
	if code != 200 {
		t.Errorf("another card at that address = %d %v", code, m)
	}
}
