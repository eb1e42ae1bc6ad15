package app_test

import (
	"context"
	"testing"

	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/events"
)

// pilotAccount is the demo pilot's fixed account id (identity's and checkout's seeds).
const pilotAccount = "00000000-0000-4000-8000-000000000001"

// readerToken runs the card-reader flow as the credit-card admin: a vault for email on
// RDR-0001, the simulator presenting a card, the result's payment method token.
func (st *stack) readerToken(t *testing.T, admin, email string) string {
	t.Helper()
	code, v := call(t, "POST", st.payBase+"/buy/api/card-reader/vault", `{"email":"`+email+`","readerSerialNumber":"RDR-0001"}`, "Cookie", admin)
	ctxID, _ := v["contextId"].(string)
	if code != 200 || ctxID == "" {
		t.Fatalf("reader vault: %d %v", code, v)
	}
	if code, m := call(t, "POST", st.payBase+"/buy/api/card-reader/simulate",
		`{"readerSerialNumber":"RDR-0001","number":"4111111111111111","cvv":"123","expirationDate":"12/2030","cardholderName":"Amelia Earhart"}`); code != 200 {
		t.Fatalf("simulate: %d %v", code, m)
	}
	code, r := call(t, "GET", st.payBase+"/buy/api/card-reader/vault-result?contextId="+ctxID, "", "Cookie", admin)
	pm, _ := r["paymentMethod"].(map[string]any)
	tok, _ := pm["token"].(string)
	if code != 200 || tok == "" {
		t.Fatalf("reader result: %d %v", code, r)
	}
	return tok
}

// The sales-mode exemption from requireLogin (docs/storefront.md): only a credit-card
// admin's session together with the sales-mode reader lets staff buy for an existing
// customer who is not logged in; kiosk mode, a reader serial from anyone else, or an admin
// without the reader do not. The exempt purchase is the customer's, paid with the reader's
// card, and keeps the seller.
func TestSalesModeExemptsCardAdminsFromRequireLogin(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	admin := login(t, st.idBase, "cardadmin@demo.hangar.test")
	employee := login(t, st.idBase, "employee@demo.hangar.test")
	const customer = `{"email":"pilot@demo.hangar.test","currency":"USD","addOns":["performance","included_geo_us","add_geo_eu"],` +
		`"billingInfo":{"zipcode":"97201","country":"US"}`
	withReader := customer + `,"readerSerialNumber":"RDR-0001"}`
	validate := func(cfg, cookie string) map[string]any {
		t.Helper()
		var hdr []string
		if cookie != "" {
			hdr = []string{"Cookie", cookie}
		}
		_, m := call(t, "POST", st.base+"/buy/api/invoice/validate", cfg, hdr...)
		return m
	}
	for name, c := range map[string]struct{ cfg, cookie string }{
		"anonymous":                       {customer + "}", ""},
		"anonymous with a reader serial":  {withReader, ""},
		"a card admin without the reader": {customer + "}", admin},
		"an employee with a reader":       {withReader, employee},
	} {
		if m := validate(c.cfg, c.cookie); m["requireLogin"] != true {
			t.Errorf("%s: requireLogin = %v, want true (%v)", name, m["requireLogin"], m["errors"])
		}
	}
	m := validate(withReader, admin)
	if m["requireLogin"] == true || m["status"] != "ok" {
		t.Fatalf("card admin in sales mode: %v", m)
	}
	// Priced as the customer's: the pilot's $25 account balance pays part of it.
	balance := false
	for _, it := range items(m) {
		balance = balance || it["type"] == "ACCOUNT_BALANCE"
	}
	if !balance {
		t.Errorf("sales-mode validate did not price against the customer's subscription: %v", items(m))
	}

	// Submit: a typed card is refused in sales mode; the reader's card pays.
	code, r, _ := submitRaw(t, st.base, "sales-typed", quoted(t, st.base, withReader, st.tokenize(t, "4111111111111111"), admin), admin)
	if code != 400 || !contains(strs(r["errors"]), "In sales mode the customer's card is read by the card reader.") {
		t.Errorf("sales mode with a typed card: %d %v", code, r)
	}
	tok := st.readerToken(t, admin, "pilot@demo.hangar.test")
	code, r, _ = submitRaw(t, st.base, "sales-reader", quoted(t, st.base, withReader, "tok:"+tok, admin), admin)
	invoiceID, _ := r["invoiceId"].(string)
	if code != 200 || invoiceID == "" || r["accountId"] != pilotAccount {
		t.Fatalf("sales-mode submit: %d %v", code, r)
	}
	var account, email, seller string
	if err := st.checkoutDB.QueryRow(context.Background(), `SELECT o.account_id::text, o.email, s.purchase->'purchase'->>'sellerAccountId'
		FROM orders o JOIN submissions s ON s.key = o.submission_key WHERE o.invoice_id = $1`, invoiceID).Scan(&account, &email, &seller); err != nil {
		t.Fatal(err)
	}
	_, me := call(t, "GET", st.idBase+"/buy/api/me", "", "Cookie", admin)
	if account != pilotAccount || email != "pilot@demo.hangar.test" || seller == "" || seller != me["accountUuid"] {
		t.Errorf("order account %q e-mail %q seller %q (admin %v)", account, email, seller, me["accountUuid"])
	}

	t.Run("a one-off cart sold at the counter is the customer's", func(t *testing.T) {
		_, c := call(t, "POST", st.base+"/buy/api/cart-create",
			`{"requestJson":{"selectedProducts":[{"code":"oneoff_dbcard_garmin_sd","quantity":1}],"applyTax":true,"currency":"USD"}}`, "Cookie", admin)
		cartID, _ := c["uuid"].(string)
		customer := "counter-" + cartID[:8] + "@buyer.test"
		body := func(pay string) string {
			return `{"configuration":{"cartId":"` + cartID + `","currency":"USD","email":"` + customer + `","readerSerialNumber":"RDR-0001",
				"billingInfo":{"zipcode":"97201","country":"US"},"cardholderName":"Amelia Earhart"},` + pay + `}`
		}
		if code, m := post(t, st.base+"/buy/api/oneoff/submit", "counter-typed", body(`"nonce":"`+st.tokenize(t, "4111111111111111")+`"`), admin); code != 400 ||
			!contains(strs(m["errors"]), "In sales mode the customer's card is read by the card reader.") {
			t.Errorf("typed card in sales mode: %d %v", code, m)
		}
		tok := st.readerToken(t, admin, customer)
		code, m := post(t, st.base+"/buy/api/oneoff/submit", "counter-reader", body(`"useSavedCard":true,"paymentMethodToken":"`+tok+`"`), admin)
		invoiceID, _ := m["invoiceId"].(string)
		if code != 200 || invoiceID == "" {
			t.Fatalf("sales-mode one-off: %d %v", code, m)
		}
		var account, email, seller string
		if err := st.checkoutDB.QueryRow(context.Background(), `SELECT o.account_id::text, o.email, s.purchase->'purchase'->>'sellerAccountId'
			FROM orders o JOIN submissions s ON s.key = o.submission_key WHERE o.invoice_id = $1`, invoiceID).Scan(&account, &email, &seller); err != nil {
			t.Fatal(err)
		}
		if email != customer || account == "" || account == me["accountUuid"] || seller != me["accountUuid"] {
			t.Errorf("one-off order account %q e-mail %q seller %q (admin %v)", account, email, seller, me["accountUuid"])
		}
	})
}

// A logged-in buyer pays a one-off cart with the card on file (spec 001 §4 "the saved-card
// path validates the zipcode and then submits with the existing payment method"): an
// order and its invoice lines, a receipt the buyer can read, and order-completed naming
// the stored card.
func TestOneOffSubmitWithTheSavedCard(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	staff := login(t, st.idBase, "employee@demo.hangar.test")
	_, c := call(t, "POST", st.base+"/buy/api/cart-create",
		`{"requestJson":{"selectedProducts":[{"code":"oneoff_dbcard_garmin_sd","quantity":2}],"applyTax":true,"currency":"USD"}}`, "Cookie", staff)
	cartID, _ := c["uuid"].(string)
	if cartID == "" {
		t.Fatalf("cart-create: %v", c)
	}
	pilot := login(t, st.idBase, "pilot@demo.hangar.test")
	code, pm := call(t, "GET", st.payBase+"/buy/api/subscription/payment-method/"+pilotAccount, "", "Cookie", pilot)
	card, _ := pm["paymentMethod"].(map[string]any)
	tok, _ := card["token"].(string)
	if code != 200 || tok == "" {
		t.Fatalf("the pilot's stored card: %d %v", code, pm)
	}
	body := `{"configuration":{"cartId":"` + cartID + `","currency":"USD","billingInfo":{"zipcode":"97201","country":"US"},
		"items":[{"code":"oneoff_dbcard_garmin_sd","quantity":2}]},"useSavedCard":true,"paymentMethodToken":"` + tok + `"}`
	code, m := post(t, st.base+"/buy/api/oneoff/submit", "oneoff-saved-card", body, pilot)
	invoiceID, _ := m["invoiceId"].(string)
	inv, _ := m["invoice"].(map[string]any)
	if code != 200 || m["status"] != "ok" || invoiceID == "" || inv["totalInCents"] != float64(9800) {
		t.Fatalf("saved-card one-off submit: %d %v", code, m)
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM orders WHERE invoice_id = $1 AND kind = 'oneoff' AND account_id = $2
		AND total_in_cents = 9800`, invoiceID, pilotAccount); n != 1 {
		t.Errorf("%d one-off orders of the pilot for 98.00", n)
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM invoice_lines WHERE invoice_id = $1 AND type = 'NON_RECURRING_ITEM'`, invoiceID); n != 1 {
		t.Errorf("%d NON_RECURRING_ITEM lines", n)
	}
	if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges WHERE amount = 9800`); n != 1 {
		t.Errorf("%d charges of 98.00", n)
	}
	code, rc := call(t, "GET", st.base+"/buy/api/receipt/"+invoiceID, "", "Cookie", pilot)
	if code != 200 || rc["invoiceId"] != invoiceID || rc["cardLast4"] != "1111" {
		t.Errorf("receipt: %d %v", code, rc)
	}
	var payload []byte
	if err := st.checkoutDB.QueryRow(context.Background(), `SELECT payload FROM outbox WHERE topic = $1 ORDER BY id DESC LIMIT 1`,
		events.TopicOrderCompleted).Scan(&payload); err != nil {
		t.Fatal(err)
	}
	var ev eventsv1.OrderCompleted
	if err := proto.Unmarshal(payload, &ev); err != nil || ev.GetInvoiceId() != invoiceID || ev.GetAccountId() != pilotAccount ||
		ev.GetTotalInCents() != 9800 || ev.GetCardLast4() != "1111" {
		t.Errorf("order-completed: %v %v", &ev, err)
	}
}
