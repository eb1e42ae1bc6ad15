package app_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/services/checkout/app"
)

// TestVATByPlaceOfSupply: the development seller is in Dublin (CHECKOUT_SELLER_VAT
// IE0000000XX). An Irish business buying from it owes Irish VAT (23 %); a German business
// is reverse-charged (Directive 2006/112/EC art. 44, 196). Preview, the capture, the
// receipt and the PDF agree and say which rule applied (issue 42 item 2).
func TestVATByPlaceOfSupply(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	for _, tc := range []struct {
		name, country, zip, vatID string
		ratePct                   int64
		reverse                   bool
		note                      string
	}{
		{"an Irish business buying from the Irish seller pays 23 % VAT", "IE", "D02 X285", "IE1234567X", 23, false, "Article 44"},
		{"a German business is reverse-charged", "DE", "10115", "DE123456789", 0, true, "Article 196"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := fmt.Sprintf(`{"email":"vat-%s-%d@buyer.test","currency":"EUR","addOns":["performance","included_geo_eu"],`+
				`"billingInfo":{"zipcode":%q,"country":%q},"businessIdentificationNo":%q,"isGdprCompliant":true}`,
				strings.ToLower(tc.country), time.Now().UnixNano(), tc.zip, tc.country, tc.vatID)
			code, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", cfg)
			inv, _ := pv["invoice"].(map[string]any)
			if code != 200 || inv == nil {
				t.Fatalf("preview: %d %v", code, pv)
			}
			sub, tax, total := num(inv["subtotalInCents"]), num(inv["taxInCents"]), num(inv["totalInCents"])
			wantTax := (sub*tc.ratePct + 50) / 100
			if sub <= 0 || tax != wantTax || total != sub+tax || inv["reverseCharge"] != tc.reverse || inv["taxJurisdiction"] != tc.country {
				t.Fatalf("preview: subtotal %d tax %d (want %d) total %d reverse %v jurisdiction %v", sub, tax, wantTax, total, inv["reverseCharge"], inv["taxJurisdiction"])
			}
			status, m, cookies := submitRaw(t, st.base, "vat-"+tc.country, quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), ""), "")
			if status != 200 {
				t.Fatalf("submit: %d %v", status, m)
			}
			id := m["invoiceId"].(string)
			if n := st.count(t, st.paymentsDB, `SELECT count(*) FROM charges WHERE amount = $1 AND currency = 'EUR' AND status = 'captured'`, total); n != 1 {
				t.Errorf("%d captures of %d EUR cents", n, total)
			}
			var jar string
			for _, c := range cookies {
				if strings.HasPrefix(c.Name, "hangar_receipt_") {
					jar = c.Name + "=" + c.Value
				}
			}
			code, _, body := rawGet(t, st.base+"/buy/api/receipt/"+id, jar)
			var rc map[string]any
			_ = json.Unmarshal(body, &rc)
			wantRate := fmt.Sprintf("%d %%", tc.ratePct)
			if inv["taxRate"] != wantRate {
				t.Errorf("preview taxRate %v, want %q", inv["taxRate"], wantRate)
			}
			if code != 200 || num(rc["taxInCents"]) != tax || rc["reverseCharge"] != tc.reverse || !strings.Contains(fmt.Sprint(rc["taxNote"]), tc.note) ||
				rc["taxRate"] != wantRate {
				t.Errorf("receipt: %d %s", code, body)
			}
			link, _ := url.Parse(receiptLinkOf(t, st, id))
			code, _, pdf := rawGet(t, st.base+"/buy/api/receipt/"+id+"/pdf?token="+url.QueryEscape(link.Query().Get("token")), "")
			wantVAT := fmt.Sprintf("VAT (%s): %d.%02d EUR", wantRate, tax/100, tax%100)
			// A PDF string escapes its parentheses.
			if code != 200 || !bytes.Contains(pdf, []byte(strings.NewReplacer("(", `\(`, ")", `\)`).Replace(wantVAT))) || !bytes.Contains(pdf, []byte(tc.note)) ||
				bytes.Contains(pdf, []byte("Reverse charge")) != tc.reverse {
				t.Errorf("PDF: %d, want %q and %q (reverse charge %v)", code, wantVAT, tc.note, tc.reverse)
			}
		})
	}
}

// num reads a JSON number (or its absence, 0).
func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

// TestVATIDCheckedAndSaid: a VAT ID counts only with its country's format and a register
// entry, and the preview says under the field whether it counted (issue 45 item 5):
// DE81156986 (8 digits) was reverse-charged, a French id with country Germany and XX123
// were silently taxed.
func TestVATIDCheckedAndSaid(t *testing.T) {
	t.Parallel()
	st := startStack(t, nil)
	for _, tc := range []struct {
		country, zip, id, status string
		counted, reverse         bool
		says                     string
	}{
		{"DE", "10115", "DE81156986", "invalid", false, false, "expected DE followed by 9 digits"},
		{"DE", "10115", "XX123", "invalid", false, false, "not a valid VAT ID for DE"},
		{"DE", "10115", "FR12345678901", "invalid", false, false, "starts with FR"},
		{"DE", "10115", "DE123000000", "not_registered", false, false, "VIES) does not know DE123000000"},
		{"DE", "10115", "DE 123 456 789", "reverse_charge", true, true, "reverse charge applies"},
		{"IE", "D02 X285", "IE1234567X", "domestic", true, false, "pays IE VAT at 23 %"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			cfg := fmt.Sprintf(`{"email":"vatid-%d@buyer.test","currency":"EUR","addOns":["performance","included_geo_eu"],`+
				`"billingInfo":{"zipcode":%q,"country":%q},"businessIdentificationNo":%q,"isGdprCompliant":true}`,
				time.Now().UnixNano(), tc.zip, tc.country, tc.id)
			code, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", cfg)
			inv, _ := pv["invoice"].(map[string]any)
			if code != 200 || inv == nil {
				t.Fatalf("preview: %d %v", code, pv)
			}
			check, _ := pv["vatIdCheck"].(map[string]any)
			if check["status"] != tc.status || check["counted"] != tc.counted || !strings.Contains(fmt.Sprint(check["message"]), tc.says) {
				t.Errorf("vatIdCheck = %v, want %s (counted %v) saying %q", check, tc.status, tc.counted, tc.says)
			}
			if inv["reverseCharge"] != tc.reverse || (num(inv["taxInCents"]) == 0) != tc.reverse {
				t.Errorf("reverse charge %v, tax %v; want reverse %v", inv["reverseCharge"], inv["taxInCents"], tc.reverse)
			}
		})
	}
	// No VAT ID typed: nothing said.
	code, pv := call(t, "POST", st.base+"/buy/api/invoice/preview", `{"email":"novat@buyer.test","currency":"EUR","addOns":["performance","included_geo_eu"],"billingInfo":{"zipcode":"10115","country":"DE"},"isGdprCompliant":true}`)
	if _, ok := pv["vatIdCheck"]; code != 200 || ok {
		t.Errorf("no VAT ID: %d %v", code, pv["vatIdCheck"])
	}
}

// The development VAT register (every well-formed number registered) is refused outside
// development mode; vies and the format only are taken, anything else is refused.
//
//layercheck:serial it sets the process environment (t.Setenv), which Go allows only in a test that runs alone
func TestVATRegisterSetting(t *testing.T) {
	t.Setenv("HANGAR_DEV_MODE", "false")
	for name, ok := range map[string]bool{"": true, "vies": true, "dev": false, "VIES": false, "yes": false} {
		if err := app.CheckVATRegister(name); (err == nil) != ok {
			t.Errorf("CHECKOUT_VAT_REGISTER=%q outside development: %v", name, err)
		}
	}
	t.Setenv("HANGAR_DEV_MODE", "true")
	if err := app.CheckVATRegister("dev"); err != nil {
		t.Errorf("dev in development mode: %v", err)
	}
}
