package gift_test

import (
	"bytes"
	"crypto/rand"
	"slices"
	"strings"
	"testing"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
	"github.com/hangar/hangar/services/checkout/internal/domain/gift"
)

func catalog(t *testing.T) *domain.Catalog {
	t.Helper()
	cat, err := domaintest.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestCheckAmountsAndMessages(t *testing.T) {
	t.Parallel()
	cat := catalog(t)
	for _, tc := range []struct {
		name         string
		order        gift.Order
		requireEmail bool
		amounts      []int64
		errs         []string
	}{
		{name: "the three presets", order: gift.Order{Values: []string{"370", "250", "125"}, Email: "a@b.co"}, amounts: []int64{37000, 25000, 12500}},
		{name: "custom at the lower bound", order: gift.Order{Values: []string{"25"}}, amounts: []int64{2500}},
		{name: "custom at the upper bound", order: gift.Order{Values: []string{"1000"}}, amounts: []int64{100000}},
		{name: "custom 40 with a preset", order: gift.Order{Values: []string{"370", "40"}}, amounts: []int64{37000, 4000}},
		{name: "a whole number written with cents", order: gift.Order{Values: []string{"40.00"}}, amounts: []int64{4000}},
		{name: "below the custom minimum", order: gift.Order{Values: []string{"24"}}, errs: []string{gift.MsgCustomRange}},
		{name: "above the custom maximum", order: gift.Order{Values: []string{"1001"}}, errs: []string{gift.MsgCustomRange}},
		{name: "zero", order: gift.Order{Values: []string{"0"}}, errs: []string{gift.MsgCustomRange}},
		{name: "negative", order: gift.Order{Values: []string{"-50"}}, errs: []string{gift.MsgCustomRange}},
		{name: "not a whole number", order: gift.Order{Values: []string{"40.5"}}, errs: []string{gift.MsgWholeNumber}},
		{name: "not a number", order: gift.Order{Values: []string{"forty"}}, errs: []string{gift.MsgWholeNumber}},
		{name: "nothing selected", order: gift.Order{}, errs: []string{gift.MsgSelectCertificate}},
		{name: "too many", order: gift.Order{Values: slices.Repeat([]string{"25"}, 21)}, amounts: slices.Repeat([]int64{2500}, 21), errs: []string{gift.MsgTooMany}},
		{name: "e-mail needed at submit", order: gift.Order{Values: []string{"125"}}, requireEmail: true, amounts: []int64{12500}, errs: []string{gift.MsgEmail}},
		{name: "e-mail not needed when the page did not send it", order: gift.Order{Values: []string{"125"}}, amounts: []int64{12500}},
		{name: "an e-mail sent is checked", order: gift.Order{Values: []string{"125"}, Email: "not-an-email"}, amounts: []int64{12500}, errs: []string{gift.MsgEmail}},
		{name: "the test e-mail counts as none", order: gift.Order{Values: []string{"125"}, Email: "test@test.com"}, requireEmail: true, amounts: []int64{12500}, errs: []string{gift.MsgEmail}},
		{name: "spaces in the e-mail become plus signs", order: gift.Order{Values: []string{"125"}, Email: "pilot a@b.co"}, requireEmail: true, amounts: []int64{12500}},
		{name: "each message once", order: gift.Order{Values: []string{"1", "2", "x", "y"}}, errs: []string{gift.MsgCustomRange, gift.MsgWholeNumber}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := gift.Check(cat, tc.order, tc.requireEmail)
			if !slices.Equal(c.Amounts, tc.amounts) {
				t.Errorf("Amounts = %v, want %v", c.Amounts, tc.amounts)
			}
			if !slices.Equal(c.Errors, tc.errs) {
				t.Errorf("Errors = %q, want %q", c.Errors, tc.errs)
			}
		})
	}
}

func TestCheckCurrencyAndEmail(t *testing.T) {
	t.Parallel()
	cat := catalog(t)
	if c := gift.Check(cat, gift.Order{Values: []string{"125"}, Currency: "eur"}, false); c.Currency.Code != "EUR" {
		t.Errorf("currency = %s, want EUR", c.Currency.Code)
	}
	if c := gift.Check(cat, gift.Order{Values: []string{"125"}, Currency: "XYZ"}, false); c.Currency.Code != "USD" {
		t.Errorf("unknown currency = %s, want the default USD", c.Currency.Code)
	}
	if c := gift.Check(cat, gift.Order{Values: []string{"125"}, Email: " pilot a@b.co "}, true); c.Email != "pilot+a@b.co" {
		t.Errorf("email = %q", c.Email)
	}
}

func TestPresetsAndDefaults(t *testing.T) {
	t.Parallel()
	if !slices.Equal(gift.Presets, []int64{370, 250, 125}) || gift.DefaultCustom != 25 || gift.CustomMin != 25 || gift.CustomMax != 1000 {
		t.Errorf("constants differ from spec 001 §9: presets %v custom %d..%d default %d", gift.Presets, gift.CustomMin, gift.CustomMax, gift.DefaultCustom)
	}
	for _, p := range gift.Presets {
		if !gift.IsPreset(p) || !gift.Allowed(p) {
			t.Errorf("preset %d not allowed", p)
		}
	}
	if gift.IsPreset(40) {
		t.Error("40 is not a preset")
	}
	if got := gift.ParseValues("370, 40,,125"); !slices.Equal(got, []string{"370", "40", "125"}) {
		t.Errorf("ParseValues = %v", got)
	}
}

func TestPriceIsUntaxedOneLinePerCertificate(t *testing.T) {
	t.Parallel()
	cat := catalog(t)
	for _, tc := range []struct {
		name, currency, country, zip, label, jurisdiction string
	}{
		{"california ZIP", "USD", "US", "94105", "Tax", "US-CA"},
		{"ontario postal code", "CAD", "CA", "M5V 2T6", "Tax", "CA-ON"},
		{"germany", "EUR", "DE", "10115", "VAT", "DE"},
		{"'eu' is Germany", "EUR", "eu", "10115", "VAT", "DE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := gift.Check(cat, gift.Order{Values: []string{"370", "40"}, Currency: tc.currency, Country: tc.country, Zip: tc.zip}, false)
			inv := gift.Price(c)
			if len(inv.Lines) != 2 || inv.Lines[0].Type != "GIFT_CERTIFICATE" || inv.Lines[0].UnitAmountInCents != 37000 || inv.Lines[1].UnitAmountInCents != 4000 {
				t.Fatalf("lines = %+v", inv.Lines)
			}
			if inv.SubtotalInCents != 41000 || inv.TaxInCents != 0 || inv.TotalInCents != 41000 {
				t.Errorf("subtotal %d tax %d total %d, want 41000 0 41000", inv.SubtotalInCents, inv.TaxInCents, inv.TotalInCents)
			}
			if inv.Tax.Label != tc.label || inv.Tax.Jurisdiction != tc.jurisdiction {
				t.Errorf("tax %q %q, want %q %q", inv.Tax.Label, inv.Tax.Jurisdiction, tc.label, tc.jurisdiction)
			}
			if !strings.HasPrefix(inv.Lines[0].Description, "Gift certificate ") {
				t.Errorf("description %q", inv.Lines[0].Description)
			}
		})
	}
}

func TestCheckPaymentMessages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                        string
		nonce, holder, zip, country string
		want                        []string
	}{
		{"complete", "n", "Ann Pilot", "94105", "US", nil},
		{"no card", "", "Ann Pilot", "94105", "US", []string{gift.MsgCardBlank}},
		{"no name", "n", " ", "94105", "US", []string{gift.MsgNameBlank}},
		{"no postal code", "n", "Ann Pilot", "", "US", []string{gift.MsgPostalBlank}},
		{"no country", "n", "Ann Pilot", "94105", "", []string{gift.MsgCountryBlank}},
		{"nothing", "", "", "", "", []string{gift.MsgCardBlank, gift.MsgNameBlank, gift.MsgPostalBlank, gift.MsgCountryBlank}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := gift.CheckPayment(tc.nonce, tc.holder, tc.zip, tc.country); !slices.Equal(got, tc.want) {
				t.Errorf("CheckPayment = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCodes(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 2000 {
		c := gift.MustNewCode()
		if len(c) != 19 || strings.Count(c, "-") != 3 || strings.ContainsAny(c, "ILOU") {
			t.Fatalf("code %q: want four groups of four from the Crockford alphabet", c)
		}
		if seen[c] {
			t.Fatalf("code %q drawn twice", c)
		}
		seen[c] = true
		n, ok := gift.Normalize(strings.ToLower(strings.ReplaceAll(c, "-", " ")))
		if !ok || n != c {
			t.Fatalf("Normalize(typed %q) = %q, %v", c, n, ok)
		}
	}
	// Deterministic draw from a fixed reader.
	c, err := gift.NewCode(bytes.NewReader(make([]byte, 15)))
	if err != nil || c != "0000-0000-0000-0000" {
		t.Errorf("NewCode(zeros) = %q, %v", c, err)
	}
	if _, err := gift.NewCode(bytes.NewReader(nil)); err == nil {
		t.Error("NewCode with an empty reader should fail")
	}
	// Read-aloud slips are read as meant.
	code, _ := gift.NewCode(rand.Reader)
	slipped := strings.NewReplacer("0", "O", "1", "I").Replace(code)
	if n, ok := gift.Normalize(slipped); !ok || n != code {
		t.Errorf("Normalize(%q) = %q, %v, want %q", slipped, n, ok, code)
	}
	// Non-certificate codes keep their form (upper case), not ok.
	if n, ok := gift.Normalize(" gift-usd-100 "); ok || n != "GIFT-USD-100" {
		t.Errorf("Normalize(seed code) = %q, %v", n, ok)
	}
}

// Every single wrong character is caught, and all but a few swaps of neighbours.
func TestCheckCharacterCatchesTypos(t *testing.T) {
	t.Parallel()
	const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	missedSwaps, swaps := 0, 0
	for range 200 {
		code := strings.ReplaceAll(gift.MustNewCode(), "-", "")
		for i := range len(code) {
			for _, r := range alphabet {
				if byte(r) == code[i] {
					continue
				}
				typo := code[:i] + string(r) + code[i+1:]
				if _, ok := gift.Normalize(typo); ok {
					t.Fatalf("single typo %q of %q passes the check", typo, code)
				}
			}
			if i+1 < len(code) && code[i] != code[i+1] {
				swaps++
				sw := code[:i] + string(code[i+1]) + string(code[i]) + code[i+2:]
				if _, ok := gift.Normalize(sw); ok {
					missedSwaps++
				}
			}
		}
	}
	if missedSwaps*100 > swaps {
		t.Errorf("%d of %d neighbour swaps pass the check, want under 1%%", missedSwaps, swaps)
	}
}
