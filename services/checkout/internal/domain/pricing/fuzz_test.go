package pricing_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
)

var fuzzPricing = pricing.Pricing{
	Promotions: map[string]*promotion.Promotion{
		"spring10": {Code: "SPRING10", Kind: "percent", PercentBP: 1000, AppliesNew: true, AppliesRenewal: true, AppliesUpgrade: true, BusinessAllowed: true},
		"save25":   {Code: "SAVE25", Kind: "fixed", AmountInCents: 2500, Currency: "USD", AppliesNew: true, AppliesRenewal: true},
		"all":      {Code: "ALL", Kind: "percent", PercentBP: 10000, AppliesNew: true, AppliesRenewal: true, BusinessAllowed: true},
	},
	Gifts:    map[string]*promotion.GiftCertificate{"gift": {Code: "GIFT", Currency: "USD", BalanceInCents: 5000}},
	Account:  domain.Account{FirstTime: true, BalanceInCents: 1234, BalanceCurrency: "USD"},
	QuoteKey: []byte("fuzz"),
}

// FuzzPreview checks, for any configuration: no panic, no negative total, the lines before
// tax sum to the subtotal, tax is computed on the subtotal, and the same input prices the
// same. Run as a normal test over the seed corpus; `go test -fuzz FuzzPreview` explores.
func FuzzPreview(f *testing.F) {
	for _, s := range []struct {
		addOns, qty, cur, country, zip, promo, gift string
		military, bundle, renew                     bool
	}{
		{"performance,add_geo_eu", "", "USD", "", "", "", "", false, false, false},
		{"business_pro,included_geo_us,dispatch_light,efb_bridge", "12", "USD", "US", "94105", "spring10", "gift", false, false, false},
		{"business_performance,included_geo_eu,runway_analysis_ba", "1", "EUR", "DE", "", "", "", false, false, true},
		{"pro_plus,included_geo_ca,jepp_us,jepp_us_web,jepp_north_america", "x", "CAD", "CA", "H2X1Y4", "ALL", "", false, false, true},
		{"mfb_pro,jepp_us", "300", "GBP", "GB", "", "save25", "GIFT", true, false, false},
		{"honda_jet_bundle_elite,honda_jet_bundle_ha420", "", "AUD", "AU", "", "", "", false, true, false},
		{"hangar_basic_plus_three_month,add_geo_eu,add_geo_us", "-5", "", "eu", "", "", "", false, false, false},
		{"", "", "", "", "", "", "", false, false, true},
	} {
		f.Add(s.addOns, s.qty, s.cur, s.country, s.zip, s.promo, s.gift, s.military, s.bundle, s.renew)
	}
	c := catalog(f)
	f.Fuzz(func(t *testing.T, addOns, qty, cur, country, zip, promo, gift string, military, bundle, renew bool) {
		in := domain.Input{AddOns: strings.Split(addOns, ","), Quantity: qty, Currency: cur, Country: country, Zip: zip,
			PromoCodes: []string{promo}, GiftCodes: []string{gift}, Military: military, Bundle: bundle}
		var ex *domain.Subscription
		if renew {
			ex = pilot()
		}
		p := fuzzPricing
		p.Now = now
		a := pricing.PriceCart(c, domaintest.Rules.Normalize(c, in, ex), p)
		b := pricing.PriceCart(c, domaintest.Rules.Normalize(c, in, ex), p)
		inv := a.Invoice
		if inv.TotalInCents < 0 || inv.SubtotalInCents < 0 || inv.TaxInCents < 0 {
			t.Fatalf("negative amounts: %+v", inv)
		}
		var pre, post int64
		for _, l := range inv.Lines {
			if l.PostTax {
				post += l.AmountInCents
			} else {
				pre += l.AmountInCents
			}
			if l.Reason == "" {
				t.Fatalf("line %s has no reason", l.Key)
			}
			if l.PlanType == domain.PlanTypeHidden {
				t.Fatalf("hidden line %s", l.Key)
			}
		}
		if pre != inv.SubtotalInCents {
			t.Fatalf("lines before tax sum to %d, subtotal %d", pre, inv.SubtotalInCents)
		}
		if want := inv.Tax.Amount(inv.SubtotalInCents); inv.TaxInCents != want {
			t.Fatalf("tax %d, want %d on %d", inv.TaxInCents, want, inv.SubtotalInCents)
		}
		if inv.TotalInCents != inv.SubtotalInCents+inv.TaxInCents+post {
			t.Fatalf("total %d != %d + %d + %d", inv.TotalInCents, inv.SubtotalInCents, inv.TaxInCents, post)
		}
		if !reflect.DeepEqual(a.Invoice, b.Invoice) || a.QuoteHash != b.QuoteHash || a.QuoteID != b.QuoteID {
			t.Fatal("not deterministic")
		}
	})
}

// BenchmarkPreview prices a typical configuration: Premium, an added region, a chart
// coverage on both platforms, a promo code, US tax from the ZIP code, renewal of an
// existing subscription with credit (target < 50 µs).
func BenchmarkPreview(b *testing.B) {
	c := catalog(b)
	in := domain.Input{Currency: "USD", Country: "US", Zip: "94105", Email: "pilot@example.com",
		AddOns: []string{"performance", "included_geo_us", "add_geo_eu", "jepp_us", "jepp_us_web", "flarm_decode"}, PromoCodes: []string{"spring10"}}
	p := fuzzPricing
	p.Now = time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	ex := pilot()
	b.ReportAllocs()
	for b.Loop() {
		pv := pricing.PriceCart(c, domaintest.Rules.Normalize(c, in, ex), p)
		if pv.Invoice.TotalInCents <= 0 {
			b.Fatal("no total")
		}
	}
}
