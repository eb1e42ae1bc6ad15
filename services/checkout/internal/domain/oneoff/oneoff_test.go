package oneoff_test

import (
	"slices"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
	"github.com/hangar/hangar/services/checkout/internal/domain/oneoff"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
	"github.com/hangar/hangar/services/checkout/internal/domain/rules"
)

var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func catalog(t *testing.T) *domain.Catalog {
	t.Helper()
	cat, err := domaintest.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestClampQuantity(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]int64{
		"1": 1, "3": 3, "9999": 9999, "10000": 9999, "123456": 9999, "0": 1, "-4": 1, "": 1, "abc": 1, " 12 ": 12, "2.7": 2,
	} {
		if got := oneoff.ClampQuantity(raw); got != want {
			t.Errorf("ClampQuantity(%q) = %d, want %d", raw, got, want)
		}
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	cat := catalog(t)
	receiver := oneoff.Item{Code: "oneoff_adsb_receiver", Quantity: "1"}
	for _, tc := range []struct {
		name       string
		order      oneoff.Order
		lines      map[string]int64
		errs       []string
		country    string
		businessID string
	}{
		{name: "two products", order: oneoff.Order{Items: []oneoff.Item{receiver, {Code: "oneoff_chartpack_us_vfr", Quantity: "3"}}},
			lines: map[string]int64{"oneoff_adsb_receiver": 1, "oneoff_chartpack_us_vfr": 3}},
		{name: "quantity above the maximum is clamped", order: oneoff.Order{Items: []oneoff.Item{{Code: "oneoff_dbcard_garmin_sd", Quantity: "12000"}}},
			lines: map[string]int64{"oneoff_dbcard_garmin_sd": 9999}},
		{name: "quantity zero becomes one", order: oneoff.Order{Items: []oneoff.Item{{Code: "oneoff_dbcard_garmin_sd", Quantity: "0"}}},
			lines: map[string]int64{"oneoff_dbcard_garmin_sd": 1}},
		{name: "the same product twice is one line", order: oneoff.Order{Items: []oneoff.Item{receiver, {Code: "oneoff_adsb_receiver", Quantity: "2"}}},
			lines: map[string]int64{"oneoff_adsb_receiver": 3}},
		{name: "a subscription add-on is refused", order: oneoff.Order{Items: []oneoff.Item{receiver, {Code: "logbook", Quantity: "1"}}},
			lines: map[string]int64{"oneoff_adsb_receiver": 1}, errs: []string{oneoff.MsgNotOneOff("Logbook")}},
		{name: "an unknown code is refused", order: oneoff.Order{Items: []oneoff.Item{{Code: "nope", Quantity: "1"}}},
			lines: map[string]int64{}, errs: []string{oneoff.MsgUnknownProduct("nope")}},
		{name: "an empty cart", order: oneoff.Order{}, lines: map[string]int64{}, errs: []string{oneoff.MsgEmptyCart}},
		{name: "gift certificates are refused", order: oneoff.Order{Items: []oneoff.Item{receiver}, GiftCodes: []string{"GIFT-USD-100"}},
			lines: map[string]int64{"oneoff_adsb_receiver": 1}, errs: []string{oneoff.MsgGiftNotAllowed}},
		{name: "'eu' is Germany and keeps a business id", order: oneoff.Order{Items: []oneoff.Item{receiver}, Country: "eu", BusinessID: "DE123456789"},
			lines: map[string]int64{"oneoff_adsb_receiver": 1}, country: "DE", businessID: "DE123456789"},
		{name: "no business id for the US", order: oneoff.Order{Items: []oneoff.Item{receiver}, Country: "US", BusinessID: "123"},
			lines: map[string]int64{"oneoff_adsb_receiver": 1}, country: "US"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := oneoff.Normalize(cat, tc.order)
			got := map[string]int64{}
			for _, l := range c.Lines {
				got[l.Entry.Code] = l.Quantity
			}
			if len(got) != len(tc.lines) {
				t.Errorf("lines %v, want %v", got, tc.lines)
			}
			for k, v := range tc.lines {
				if got[k] != v {
					t.Errorf("quantity of %s = %d, want %d", k, got[k], v)
				}
			}
			if logbook, _ := cat.Entry("logbook"); tc.name == "a subscription add-on is refused" && logbook.Title != "Logbook" {
				t.Fatalf("logbook title is %q; fix the test", logbook.Title)
			}
			if !slices.Equal(c.Errors, tc.errs) {
				t.Errorf("errors %q, want %q", c.Errors, tc.errs)
			}
			if c.Country != tc.country || c.BusinessID != tc.businessID {
				t.Errorf("country %q business id %q, want %q %q", c.Country, c.BusinessID, tc.country, tc.businessID)
			}
		})
	}
}

func TestPrice(t *testing.T) {
	t.Parallel()
	cat := catalog(t)
	promos := map[string]*promotion.Promotion{
		"spring10": {Code: "SPRING10", Kind: "percent", PercentBP: 1000, AppliesNew: true},
		"save25":   {Code: "SAVE25", Kind: "fixed", AmountInCents: 2500, Currency: "USD", AppliesNew: true, MinAmountInCents: 30000},
		"welcome5": {Code: "WELCOME5", Kind: "percent", PercentBP: 500, AppliesNew: true},
		"plans":    {Code: "PLANS", Kind: "percent", PercentBP: 500, AppliesNew: true, EligiblePlans: []string{"performance"}},
		"expired":  {Code: "EXPIRED", Kind: "percent", PercentBP: 500, AppliesNew: true, ValidUntil: now.Add(-time.Hour)},
		"first":    {Code: "FIRST", Kind: "percent", PercentBP: 2000, AppliesNew: true, FirstTimeOnly: true},
	}
	items := []oneoff.Item{{Code: "oneoff_adsb_receiver", Quantity: "1"}, {Code: "oneoff_chartpack_us_vfr", Quantity: "2"}} // 599.99 + 2×89
	for _, tc := range []struct {
		name                string
		order               oneoff.Order
		buyer               oneoff.Buyer
		sub, tax, total     int64
		label, jurisdiction string
		errs                []string
		discountLine        bool
	}{
		{name: "US with tax from the ZIP", order: oneoff.Order{Items: items, Currency: "USD", Country: "US", Zip: "94105", ApplyTax: true},
			sub: 77799, tax: 5640, total: 83439, label: "Tax", jurisdiction: "US-CA"},
		{name: "cart without tax", order: oneoff.Order{Items: items, Currency: "USD", Country: "US", Zip: "94105"},
			sub: 77799, tax: 0, total: 77799, label: "Tax"},
		{name: "Germany pays VAT", order: oneoff.Order{Items: items, Currency: "EUR", Country: "eu", ApplyTax: true},
			sub: 72399, tax: 13756, total: 86155, label: "VAT", jurisdiction: "DE"},
		{name: "German business id: reverse charge", order: oneoff.Order{Items: items, Currency: "EUR", Country: "DE", BusinessID: "DE123456789", ApplyTax: true},
			sub: 72399, tax: 0, total: 72399, label: "VAT", jurisdiction: "DE"},
		{name: "Canada (Ontario) HST", order: oneoff.Order{Items: []oneoff.Item{{Code: "oneoff_course_instrument", Quantity: "1"}}, Currency: "CAD", Country: "CA", Zip: "M5V", ApplyTax: true},
			sub: 33600, tax: 4368, total: 37968, label: "Tax", jurisdiction: "CA-ON"},
		{name: "percent promo", order: oneoff.Order{Items: items, Currency: "USD", PromoCodes: []string{"spring10"}},
			sub: 70019, total: 70019, label: "Tax", discountLine: true},
		{name: "fixed promo above its minimum", order: oneoff.Order{Items: items, Currency: "USD", PromoCodes: []string{"SAVE25"}},
			sub: 75299, total: 75299, label: "Tax", discountLine: true},
		{name: "fixed promo in another currency", order: oneoff.Order{Items: items, Currency: "EUR", PromoCodes: []string{"SAVE25"}},
			sub: 72399, total: 72399, label: "VAT", errs: []string{promotion.MsgNotValid}},
		{name: "the same code twice, any case", order: oneoff.Order{Items: items, Currency: "USD", PromoCodes: []string{"spring10", "SPRING10"}},
			sub: 70019, total: 70019, label: "Tax", errs: []string{promotion.MsgCodeUsed}, discountLine: true},
		{name: "a code the buyer used before", order: oneoff.Order{Items: items, Currency: "USD", PromoCodes: []string{"welcome5"}}, buyer: oneoff.Buyer{UsedCodes: []string{"WELCOME5"}},
			sub: 77799, total: 77799, label: "Tax", errs: []string{promotion.MsgCodeUsed}},
		{name: "a plan-only code", order: oneoff.Order{Items: items, Currency: "USD", PromoCodes: []string{"plans"}},
			sub: 77799, total: 77799, label: "Tax", errs: []string{promotion.MsgNotValid}},
		{name: "an expired code", order: oneoff.Order{Items: items, Currency: "USD", PromoCodes: []string{"expired"}},
			sub: 77799, total: 77799, label: "Tax", errs: []string{promotion.MsgNotValid}},
		{name: "an unknown code", order: oneoff.Order{Items: items, Currency: "USD", PromoCodes: []string{"NOPE"}},
			sub: 77799, total: 77799, label: "Tax", errs: []string{promotion.MsgNotValid}},
		{name: "first-time code for a returning buyer", order: oneoff.Order{Items: items, Currency: "USD", PromoCodes: []string{"first"}},
			sub: 77799, total: 77799, label: "Tax", errs: []string{promotion.MsgNotValid}},
		{name: "first-time code for a first-time buyer", order: oneoff.Order{Items: items, Currency: "USD", PromoCodes: []string{"first"}}, buyer: oneoff.Buyer{FirstTime: true},
			sub: 62239, total: 62239, label: "Tax", discountLine: true},
		{name: "gift certificate refused, the rest priced", order: oneoff.Order{Items: items, Currency: "USD", GiftCodes: []string{"GIFT-USD-100"}},
			sub: 77799, total: 77799, label: "Tax", errs: []string{oneoff.MsgGiftNotAllowed}},
		{name: "GBP is VAT", order: oneoff.Order{Items: items, Currency: "GBP", ApplyTax: true},
			sub: 62199, tax: 12440, total: 74639, label: "VAT", jurisdiction: "GB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := oneoff.Price(oneoff.Normalize(cat, tc.order), promos, tc.buyer, now)
			if inv.SubtotalInCents != tc.sub || inv.TaxInCents != tc.tax || inv.TotalInCents != tc.total {
				t.Errorf("subtotal %d tax %d total %d, want %d %d %d", inv.SubtotalInCents, inv.TaxInCents, inv.TotalInCents, tc.sub, tc.tax, tc.total)
			}
			if inv.Tax.Label != tc.label || inv.Tax.Jurisdiction != tc.jurisdiction {
				t.Errorf("tax %q %q, want %q %q", inv.Tax.Label, inv.Tax.Jurisdiction, tc.label, tc.jurisdiction)
			}
			if !slices.Equal(inv.Errors, tc.errs) {
				t.Errorf("errors %q, want %q", inv.Errors, tc.errs)
			}
			var products, discounts int
			for _, l := range inv.Lines {
				switch l.Type {
				case oneoff.ItemNonRecurring:
					products++
					if l.AmountInCents != l.UnitAmountInCents*l.Quantity || l.PlanType != "oneOff" || l.AddOnCode == "" {
						t.Errorf("line %+v", l)
					}
				case pricing.ItemPlanDiscount:
					discounts++
					if l.Quantity != 0 || l.AmountInCents >= 0 {
						t.Errorf("discount line %+v", l)
					}
				}
			}
			if products == 0 || (discounts > 0) != tc.discountLine {
				t.Errorf("%d product lines, %d discount lines", products, discounts)
			}
		})
	}
}

func TestPresetCart(t *testing.T) {
	t.Parallel()
	cat := catalog(t)
	c, err := oneoff.NewPresetCart(cat, oneoff.Request{Currency: "eur", DiscountCode: " spring10 ", ApplyTax: true,
		SelectedProducts: []oneoff.Product{{Code: "oneoff_dbcard_garmin_sd", Quantity: 20000}, {Code: "oneoff_course_instrument"}}}, "staff@hangar")
	if err != nil {
		t.Fatal(err)
	}
	want := []oneoff.Product{{Code: "oneoff_dbcard_garmin_sd", Quantity: 9999}, {Code: "oneoff_course_instrument", Quantity: 1}}
	if !slices.Equal(c.Request.SelectedProducts, want) || c.Request.Currency != "EUR" || c.Request.DiscountCode != "SPRING10" || !c.Request.ApplyTax || c.CartType != "ONE_OFF" {
		t.Errorf("cart %+v", c)
	}
	for name, r := range map[string]oneoff.Request{
		"no products":         {},
		"a subscription plan": {SelectedProducts: []oneoff.Product{{Code: "performance", Quantity: 1}}},
		"an unknown currency": {Currency: "XYZ", SelectedProducts: []oneoff.Product{{Code: "oneoff_course_instrument", Quantity: 1}}},
	} {
		if _, err := oneoff.NewPresetCart(cat, r, "staff"); errs.CodeOf(err) != errs.Invalid {
			t.Errorf("%s: err = %v, want invalid", name, err)
		}
	}
	if !oneoff.Staff(true, false) || !oneoff.Staff(false, true) || oneoff.Staff(false, false) {
		t.Error("Staff: employees and credit-card admins only")
	}
}

// A cart created without a currency keeps none (the page follows the buyer's location);
// an explicit one is kept, USD too, so the two can be told apart.
func TestPresetCartCurrencyChosenOrNone(t *testing.T) {
	t.Parallel()
	cat := catalog(t)
	products := []oneoff.Product{{Code: "oneoff_course_instrument", Quantity: 1}}
	for sent, want := range map[string]string{"": "", "  ": "", "usd": "USD", "USD": "USD", "gbp": "GBP"} {
		c, err := oneoff.NewPresetCart(cat, oneoff.Request{Currency: sent, SelectedProducts: products}, "staff")
		if err != nil || c.Request.Currency != want {
			t.Errorf("currency %q: stored %q (%v), want %q", sent, c.Request.Currency, err, want)
		}
	}
}

// The one-off purchase asks for the EU consent by /buy's rule and refuses without it.
func TestConsent(t *testing.T) {
	t.Parallel()
	cat := catalog(t)
	items := []oneoff.Item{{Code: "oneoff_course_instrument", Quantity: "1"}}
	for _, tc := range []struct {
		name       string
		order      oneoff.Order
		required   bool
		wantErrors []string
	}{
		{"US buyer", oneoff.Order{Items: items, Country: "US"}, false, nil},
		{"no country yet", oneoff.Order{Items: items}, false, nil},
		{"German buyer without consent", oneoff.Order{Items: items, Country: "DE"}, true, []string{rules.MsgEuConsent}},
		{"'eu' is Germany", oneoff.Order{Items: items, Country: "eu"}, true, []string{rules.MsgEuConsent}},
		{"German buyer with consent", oneoff.Order{Items: items, Country: "DE", GdprCompliant: true}, true, nil},
		{"EU customer billed in the US", oneoff.Order{Items: items, Country: "US", EuCustomer: true}, true, []string{rules.MsgEuConsent}},
	} {
		c := oneoff.Normalize(cat, tc.order)
		if c.EuConsentRequired != tc.required || c.EuConsentRequired != rules.EuConsentRequired(cat, tc.order.EuCustomer, c.Country) {
			t.Errorf("%s: required %v, want %v", tc.name, c.EuConsentRequired, tc.required)
		}
		if got := oneoff.CheckConsent(c, tc.order.GdprCompliant); !slices.Equal(got, tc.wantErrors) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.wantErrors)
		}
	}
}
