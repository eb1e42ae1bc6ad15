package app_test

import (
	"context"
	"strings"
	"testing"
)

// acmeAccount is the account of Acme Flight Department (its owner's business account).
const acmeAccount = "00000000-0000-4000-8000-000000000002"

// msgMethodRefused is payments' (and checkout's) refusal of a stored method.
const msgMethodRefused = "This stored payment method cannot be used for this purchase."

// storedToken answers the token of account's method on file as session reads it.
func (st *stack) storedToken(t *testing.T, session, account string) string {
	t.Helper()
	code, pm := call(t, "GET", st.payBase+"/buy/api/subscription/payment-method/"+account, "", "Cookie", session)
	card, _ := pm["paymentMethod"].(map[string]any)
	tok, _ := card["token"].(string)
	if code != 200 || tok == "" {
		t.Fatalf("the stored card of %s: %d %v", account, code, pm)
	}
	return tok
}

// money is what a purchase leaves behind: charges and processor transactions in payments,
// orders and submissions in checkout.
type money struct{ charges, txs, orders, submissions int }

func (st *stack) money(t *testing.T) money {
	t.Helper()
	return money{charges: st.count(t, st.paymentsDB, `SELECT count(*) FROM charges`),
		txs:         st.count(t, st.paymentsDB, `SELECT count(*) FROM sandbox_transactions`),
		orders:      st.count(t, st.checkoutDB, `SELECT count(*) FROM orders`),
		submissions: st.count(t, st.checkoutDB, `SELECT count(*) FROM submissions`)}
}

// refused checks a submit's answer is the stored-method refusal (403 in the error shape)
// and that it left nothing behind.
func (st *stack) refused(t *testing.T, who string, before money, code int, m map[string]any) {
	t.Helper()
	if code != 403 || m["code"] != "permission_denied" || m["message"] != msgMethodRefused {
		t.Errorf("%s: %d %v, want 403 %q", who, code, m, msgMethodRefused)
	}
	if after := st.money(t); after != before {
		t.Errorf("%s: the refused submit left %+v (before %+v)", who, after, before)
	}
}

// The audit's finding (issue 26): an anonymous visitor submitted the demo pilot's stored
// method with a new e-mail and the pilot's card paid the stranger's subscription; a card
// the sales-mode reader vaulted for one customer paid another's order. Every submit now
// lets a stored method pay only for its owner, the owner of its organization, or the
// customer the seller's reader vaulted it for: anyone else gets 403 and nothing is charged.
func TestStoredMethodPaysOnlyForItsOwner(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	pilot := login(t, st.idBase, "pilot@demo.hangar.test")
	owner := login(t, st.idBase, "owner@acme.hangar.test")
	member := login(t, st.idBase, "member@acme.hangar.test")
	employee := login(t, st.idBase, "employee@demo.hangar.test")
	admin := login(t, st.idBase, "cardadmin@demo.hangar.test")
	pilotCard := st.storedToken(t, pilot, pilotAccount)
	acmeCard := st.storedToken(t, owner, acmeAccount)
	const individual = `{"currency":"USD","addOns":["performance","included_geo_us","add_geo_eu"],"billingInfo":{"zipcode":"97201","country":"US"}}`

	t.Run("subscription submits of anyone else are refused", func(t *testing.T) {
		for _, c := range []struct{ who, cfg, session, card string }{
			{"a stranger without a session, with a new e-mail", newBuyer("stranger"), "", pilotCard},
			{"a member of another organization", individual, member, pilotCard},
			{"a plain member of the card's organization", individual, member, acmeCard},
			{"an employee", individual, employee, pilotCard},
			{"a card admin", individual, admin, pilotCard},
			{"a card admin in sales mode, for a new customer", strings.Replace(newBuyer("counter"), `"currency"`, `"readerSerialNumber":"RDR-0001","currency"`, 1), admin, pilotCard},
		} {
			before := st.money(t)
			code, m, _ := submitRaw(t, st.base, "refused-"+c.who, quoted(t, st.base, c.cfg, "tok:"+c.card, c.session), c.session)
			st.refused(t, c.who, before, code, m)
		}
	})

	t.Run("one-off submits of anyone else are refused", func(t *testing.T) {
		_, cart := call(t, "POST", st.base+"/buy/api/cart-create",
			`{"requestJson":{"selectedProducts":[{"code":"oneoff_dbcard_garmin_sd","quantity":1}],"applyTax":true,"currency":"USD"}}`, "Cookie", employee)
		cartID, _ := cart["uuid"].(string)
		body := func(card string) string {
			return `{"configuration":{"cartId":"` + cartID + `","currency":"USD","billingInfo":{"zipcode":"97201","country":"US"},
				"items":[{"code":"oneoff_dbcard_garmin_sd","quantity":1}]},"useSavedCard":true,"paymentMethodToken":"` + card + `"}`
		}
		for _, c := range []struct{ who, session, card string }{
			{"a member of another organization", member, pilotCard},
			{"a plain member of the card's organization", member, acmeCard},
			{"an employee", employee, pilotCard},
			{"a card admin", admin, pilotCard},
		} {
			before := st.money(t)
			code, m := post(t, st.base+"/buy/api/oneoff/submit", "oneoff-refused-"+c.who, body(c.card), c.session)
			st.refused(t, c.who, before, code, m)
		}

		t.Run("the organization's billing owner pays with its card", func(t *testing.T) {
			before := st.money(t)
			code, m := post(t, st.base+"/buy/api/oneoff/submit", "oneoff-acme-owner", body(acmeCard), owner)
			if code != 200 || m["status"] != "ok" || m["accountId"] != acmeAccount {
				t.Fatalf("Acme's owner: %d %v", code, m)
			}
			if after := st.money(t); after.charges != before.charges+1 || after.orders != before.orders+1 {
				t.Errorf("Acme's owner: %+v after %+v, want one charge and one order", after, before)
			}
		})
	})

	t.Run("a zero total with another's card is refused before the vault", func(t *testing.T) {
		st.giftCertificate(t, "GIFT-STORED-ZERO", 100000)
		cfg := strings.Replace(individual, `"currency":"USD"`, `"currency":"USD","giftCertificateCode":["GIFT-STORED-ZERO"]`, 1)
		before := st.money(t)
		vaults := st.count(t, st.paymentsDB, `SELECT count(*) FROM vaults`)
		code, m, _ := submitRaw(t, st.base, "zero-refused", quoted(t, st.base, cfg, "tok:"+pilotCard, member), member)
		st.refused(t, "a member paying a zero total with the pilot's card", before, code, m)
		if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM vaults`); n != vaults {
			t.Errorf("%d vaults written by a refused zero total", n-vaults)
		}
		if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM gift_certificates WHERE code_hash = sha256('GIFT-STORED-ZERO') AND balance_in_cents = 100000`); n != 1 {
			t.Errorf("the gift certificate was debited by a refused order")
		}
	})

	t.Run("the reader's card pays only for the customer it was vaulted for", func(t *testing.T) {
		sales := func(email string) string {
			return `{"email":"` + email + `","readerSerialNumber":"RDR-0001","currency":"USD","addOns":["performance","included_geo_us","add_geo_eu"],` +
				`"billingInfo":{"zipcode":"97201","country":"US"}}`
		}
		first, second := "reader-first@buyer.test", "reader-second@buyer.test"
		card := st.readerToken(t, admin, first)
		before := st.money(t)
		code, m, _ := submitRaw(t, st.base, "reader-other", quoted(t, st.base, sales(second), "tok:"+card, admin), admin)
		st.refused(t, "the reader's card of one customer for another's order", before, code, m)
		code, m, _ = submitRaw(t, st.base, "reader-own", quoted(t, st.base, sales(first), "tok:"+card, admin), admin)
		if code != 200 || m["invoiceId"] == nil {
			t.Fatalf("the reader's card for its customer: %d %v", code, m)
		}
		// It is now the customer's card, and the customer's renewal will charge it.
		var customer, onFile string
		if err := st.checkoutDB.QueryRow(context.Background(), `SELECT account_id::text FROM orders WHERE invoice_id = $1`, m["invoiceId"]).Scan(&customer); err != nil {
			t.Fatal(err)
		}
		if err := st.paymentsDB.QueryRow(context.Background(), `SELECT customer_id FROM payment_methods WHERE token = $1`, card).Scan(&onFile); err != nil || onFile != customer {
			t.Errorf("the reader's card belongs to %q (%v), want the customer's account %s", onFile, err, customer)
		}
	})

	t.Run("staff see the pilot's card without a token to pay with", func(t *testing.T) {
		for _, s := range []string{employee, admin} {
			code, m := call(t, "GET", st.payBase+"/buy/api/subscription/payment-method/"+pilotAccount, "", "Cookie", s)
			pm, _ := m["paymentMethod"].(map[string]any)
			if code != 200 || pm["last4"] != "1111" || pm["token"] != nil {
				t.Errorf("staff read the pilot's method: %d %v", code, m)
			}
		}
	})
}

// The renewal engine charges a subscription's stored method only when it is the
// subscriber's: a token of another account on the subscription is refused by payments,
// nothing is charged, and the renewal is declined (the subscriber is asked for a card).
func TestRenewalRefusesAnotherAccountsMethod(t *testing.T) {
	t.Parallel()
	st := startStack(t, map[string]string{"CHECKOUT_RENEWAL_INTERVAL": "0"})
	ctx := context.Background()
	var acmeCard string
	if err := st.paymentsDB.QueryRow(ctx, `SELECT method_token FROM billing_profiles WHERE account_id = $1`, acmeAccount).Scan(&acmeCard); err != nil || acmeCard == "" {
		t.Fatalf("Acme's card on file: %q %v", acmeCard, err)
	}
	tag, err := st.checkoutDB.Exec(ctx, `UPDATE subscriptions SET payment_method_token = $2, term_end = now() - interval '1 minute'
		WHERE account_id = $1 AND valid`, pilotAccount, acmeCard)
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("the pilot's subscription: %v %v", tag, err)
	}
	before := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges WHERE method_token = $1`, acmeCard)
	res, err := st.app.Renewer().Run(ctx)
	if err != nil || res.Renewed != 0 || res.Declined != 1 {
		t.Fatalf("renewal pass = %+v, %v; want one declined", res, err)
	}
	if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges WHERE method_token = $1`, acmeCard); n != before {
		t.Errorf("Acme's card was charged %d times for the pilot's renewal", n-before)
	}
	if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges WHERE customer_id = $1`, pilotAccount); n != 0 {
		t.Errorf("%d charges for the pilot's renewal", n)
	}
	if n := st.count(t, st.checkoutDB, `SELECT count(*) FROM renewals r JOIN subscriptions s ON s.id = r.subscription_id
		WHERE s.account_id = $1 AND r.last_failure_code = 'payment_method_refused'`, pilotAccount); n != 1 {
		t.Errorf("the pilot's renewal does not record the refusal")
	}
}
