package pricing_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
)

var now = domaintest.Now

func catalog(t testing.TB) *domain.Catalog { return domaintest.MustCatalog(t) }

func price(t testing.TB, in domain.Input, existing *domain.Subscription, p pricing.Pricing) *pricing.Preview {
	t.Helper()
	return domaintest.Preview(t, in, existing, p)
}

func pilot() *domain.Subscription { return domaintest.Pilot() }

func lineAmounts(pv *pricing.Preview) map[string]int64 {
	m := map[string]int64{}
	for _, l := range pv.Invoice.Lines {
		m[l.Key] = l.AmountInCents
	}
	return m
}

func has(list []string, s string) bool { return slices.Contains(list, s) }

func hasPrefix(list []string, p string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func TestPricing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		in    domain.Input
		ex    *domain.Subscription
		lines map[string]int64
		sub   int64
		tax   int64
	}{
		{name: "premium with an added Europe region in USD", in: domain.Input{Currency: "USD", AddOns: []string{"performance", "included_geo_us", "add_geo_eu"}},
			lines: map[string]int64{"PLAN:performance": 37000, "PLAN_ADD_ON:included_geo_us": 0, "PLAN_ADD_ON:add_geo_eu": 10000}, sub: 47000},
		// Every plan includes one region (spec 000 §1): an added one alone is the included one.
		{name: "premium whose only region is an added one includes it", in: domain.Input{Currency: "USD", AddOns: []string{"performance", "add_geo_eu"}},
			lines: map[string]int64{"PLAN:performance": 37000, "PLAN_ADD_ON:included_geo_eu": 0}, sub: 37000},
		{name: "premium with two regions in EUR", in: domain.Input{Currency: "EUR", AddOns: []string{"performance", "included_geo_eu", "add_geo_us", "add_geo_ca"}},
			lines: map[string]int64{"PLAN:performance": 34400, "PLAN_ADD_ON:included_geo_eu": 0, "PLAN_ADD_ON:add_geo_us": 9300, "PLAN_ADD_ON:add_geo_ca": 9300}, sub: 53000},
		{name: "empty configuration starts from Essential with the currency's region", in: domain.Input{Currency: "CAD"},
			lines: map[string]int64{"PLAN:pro_plus": 26999, "PLAN_ADD_ON:included_geo_ca": 0}, sub: 26999},
		{name: "business pro at 10 licences uses the scheduled price", in: domain.Input{Currency: "USD", Quantity: "10", AddOns: []string{"business_pro", "included_geo_us"}},
			lines: map[string]int64{"PLAN:business_pro": 237000, "PLAN_ADD_ON:included_geo_us": 0}, sub: 237000},
		{name: "business per-licence add-ons multiply, business features do not", in: domain.Input{Currency: "USD", Quantity: "3", AddOns: []string{"business_performance", "included_geo_us", "add_geo_eu", "efb_bridge"}},
			lines: map[string]int64{"PLAN:business_performance": 111000, "PLAN_ADD_ON:add_geo_eu": 30000, "PLAN_ADD_ON:efb_bridge": 30000, "PLAN_ADD_ON:included_geo_us": 0}, sub: 171000},
		{name: "chart coverage on Both platforms is priced twice", in: domain.Input{Currency: "USD", AddOns: []string{"pro_plus", "included_geo_us", "jepp_us", "jepp_us_web"}},
			lines: map[string]int64{"PLAN:pro_plus": 19999, "PLAN_ADD_ON:included_geo_us": 0, "PLAN_ADD_ON:jepp_us": 49900, "PLAN_ADD_ON:jepp_us_web": 49900}, sub: 119799},
		{name: "honda jet bundle is one line of the bundle price", in: domain.Input{Currency: "USD", Bundle: true, AddOns: []string{"honda_jet_bundle", "included_geo_us", "honda_jet_bundle_elite"}},
			lines: map[string]int64{"PLAN:honda_jet_bundle": 317560, "PLAN_ADD_ON:included_geo_us": 0, "PLAN_ADD_ON:honda_jet_bundle_elite": 0}, sub: 317560},
		{name: "three-month plan", in: domain.Input{Currency: "GBP", AddOns: []string{"hangar_basic_plus_three_month", "included_geo_eu"}},
			lines: map[string]int64{"PLAN:hangar_basic_plus_three_month": 3999, "PLAN_ADD_ON:included_geo_eu": 0}, sub: 3999, tax: 800},
		{name: "california sales tax from the ZIP code", in: domain.Input{Currency: "USD", Country: "US", Zip: "94105", AddOns: []string{"performance", "included_geo_us"}},
			lines: map[string]int64{"PLAN:performance": 37000, "PLAN_ADD_ON:included_geo_us": 0}, sub: 37000, tax: 2683},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pv := price(t, tc.in, tc.ex, pricing.Pricing{})
			got := lineAmounts(pv)
			for k, v := range tc.lines {
				if got[k] != v {
					t.Errorf("line %s = %d, want %d (lines %v)", k, got[k], v, got)
				}
			}
			if len(got) != len(tc.lines) {
				t.Errorf("lines %v, want %v", got, tc.lines)
			}
			if pv.Invoice.SubtotalInCents != tc.sub || pv.Invoice.TaxInCents != tc.tax {
				t.Errorf("subtotal %d tax %d, want %d %d", pv.Invoice.SubtotalInCents, pv.Invoice.TaxInCents, tc.sub, tc.tax)
			}
			if len(pv.Invoice.Errors)+len(pv.Invoice.PlanErrors)+len(pv.Invoice.SelectionErrors) != 0 {
				t.Errorf("errors %v %v %v", pv.Invoice.Errors, pv.Invoice.PlanErrors, pv.Invoice.SelectionErrors)
			}
			for _, l := range pv.Invoice.Lines {
				if l.Reason == "" || l.Description == "" {
					t.Errorf("line %s without reason or description", l.Key)
				}
			}
		})
	}
}

func TestPlanChangeAndCredit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		in    domain.Input
		ex    *domain.Subscription
		check func(t *testing.T, pv *pricing.Preview)
	}{
		{name: "downgrade returns the credit line and the confirmation flag", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us", "add_geo_eu"}}, ex: pilot(), check: func(t *testing.T, pv *pricing.Preview) {
			pc := pv.PlanChange
			if !pc.Downgraded || !pc.NeedsConfirmation || pc.Upgraded {
				t.Errorf("plan change %+v", pc)
			}
			// 47000 * 143 / 365 = 18413 (rounded down).
			var credit *pricing.Line
			for i := range pv.Invoice.Lines {
				if pv.Invoice.Lines[i].Type == pricing.ItemSubscriptionCr {
					credit = &pv.Invoice.Lines[i]
				}
			}
			if credit == nil || credit.AmountInCents != -18413 || credit.Description != "Credit for 143 unused days of Premium" {
				t.Fatalf("credit line %+v", credit)
			}
			if pv.Invoice.SubtotalInCents != 19999+10000-18413 {
				t.Errorf("subtotal %d", pv.Invoice.SubtotalInCents)
			}
			if !pv.TermStart.Equal(time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)) || !pv.RenewalDate.Equal(time.Date(2027, 3, 10, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("term %v renewal %v", pv.TermStart, pv.RenewalDate)
			}
		}},
		{name: "a change after an early renewal credits every paid term not ended", in: domain.Input{AddOns: []string{"performance", "included_geo_us"}},
			ex: func() *domain.Subscription {
				// The current term renewed early: a second $470 year stacked after its 143 days.
				s := pilot()
				s.EarlierTerms = []domain.Term{{Start: s.TermStart, End: s.TermEnd, PriceInCents: 47000}}
				s.TermStart, s.TermEnd = s.TermEnd, s.TermEnd.AddDate(1, 0, 0)
				return s
			}(), check: func(t *testing.T, pv *pricing.Preview) {
				// 47000 × 143 / 365 = 18413 (rounded down) + the whole second year, 47000.
				if got := pv.Invoice.CreditInCents + pv.Invoice.CreditToAccountInCents; got != 18413+47000 {
					t.Errorf("credit %d + to account %d = %d, want %d", pv.Invoice.CreditInCents, pv.Invoice.CreditToAccountInCents, got, 18413+47000)
				}
			}},
		{name: "upgrade needs no confirmation", in: domain.Input{Upgrade: "performance"}, ex: &domain.Subscription{ID: "s", PlanCode: "pro_plus", AddOns: []string{"pro_plus", "included_geo_us"}, Quantity: 1, Currency: "USD", PriceInCents: 19999, TermStart: now.AddDate(0, -6, 0), TermEnd: now.AddDate(0, 6, 0), Valid: true},
			check: func(t *testing.T, pv *pricing.Preview) {
				if !pv.PlanChange.Upgraded || pv.PlanChange.NeedsConfirmation || pv.Invoice.CreditInCents == 0 {
					t.Errorf("plan change %+v credit %d", pv.PlanChange, pv.Invoice.CreditInCents)
				}
			}},
		{name: "region change needs confirmation", in: domain.Input{AddOns: []string{"performance", "included_geo_us"}}, ex: pilot(), check: func(t *testing.T, pv *pricing.Preview) {
			if !pv.PlanChange.RegionChange || !pv.PlanChange.NeedsConfirmation || pv.PlanChange.Downgraded {
				t.Errorf("plan change %+v", pv.PlanChange)
			}
		}},
		{name: "chart coverage change", in: domain.Input{AddOns: []string{"performance", "included_geo_us", "add_geo_eu", "jepp_us"}}, ex: pilot(), check: func(t *testing.T, pv *pricing.Preview) {
			if !pv.PlanChange.JeppChange || !pv.PlanChange.NeedsConfirmation {
				t.Errorf("plan change %+v", pv.PlanChange)
			}
		}},
		{name: "feature change only when not an upgrade", in: domain.Input{AddOns: []string{"performance", "included_geo_us", "add_geo_eu", "flarm_decode"}}, ex: pilot(), check: func(t *testing.T, pv *pricing.Preview) {
			if !pv.PlanChange.FeatureChange {
				t.Errorf("plan change %+v", pv.PlanChange)
			}
		}},
		{name: "runway aircraft change", in: domain.Input{AddOns: []string{"performance", "included_geo_us", "add_geo_eu", "runway_tp_daher"}}, ex: pilot(), check: func(t *testing.T, pv *pricing.Preview) {
			if !pv.PlanChange.RunwayChange || !pv.PlanChange.NeedsConfirmation {
				t.Errorf("plan change %+v", pv.PlanChange)
			}
		}},
		{name: "sunsetting add-ons", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "3"},
			ex: &domain.Subscription{ID: "s", PlanCode: "business_pro", AddOns: []string{"business_pro", "included_geo_us", "flitelink"}, Quantity: 3, Currency: "USD", Valid: true},
			check: func(t *testing.T, pv *pricing.Preview) {
				if !pv.PlanChange.Sunsetting || !has(pv.PlanChange.SunsettingAddOns, "flitelink") || pv.PlanChange.SunsetMessage == "" {
					t.Errorf("plan change %+v", pv.PlanChange)
				}
			}},
		{name: "bundle changes never need confirmation", in: domain.Input{Bundle: true, AddOns: []string{"honda_jet_bundle", "included_geo_eu", "honda_jet_bundle_elite"}},
			ex: &domain.Subscription{ID: "s", PlanCode: "honda_jet_bundle", AddOns: []string{"honda_jet_bundle", "included_geo_us", "honda_jet_bundle_ha420"}, Quantity: 2, Currency: "USD", Valid: true},
			check: func(t *testing.T, pv *pricing.Preview) {
				if pv.PlanChange.NeedsConfirmation || !pv.PlanChange.RegionChange {
					t.Errorf("plan change %+v", pv.PlanChange)
				}
			}},
		{name: "unchanged renewal extends the term without credit", ex: pilot(), check: func(t *testing.T, pv *pricing.Preview) {
			if pv.Invoice.CreditInCents != 0 || pv.PlanChange.NeedsConfirmation {
				t.Errorf("credit %d change %+v", pv.Invoice.CreditInCents, pv.PlanChange)
			}
			if !pv.TermStart.Equal(time.Date(2026, 7, 31, 0, 0, 0, 0, time.UTC)) || pv.RenewalAmount != 47000 {
				t.Errorf("term start %v renewal %d", pv.TermStart, pv.RenewalAmount)
			}
		}},
		// Issue 17: renewing a legacy plan inside the renewal window (before its term ends)
		// is the renewal the renewal price shows (the successor plan from the current term's
		// end, no credit), not a plan change restarting the term today with a credit.
		{name: "legacy plan renewed before its term ends is a renewal, not a change",
			ex: &domain.Subscription{ID: "s", Name: "Pro (US)", PlanCode: "pro_us", AddOns: []string{"pro_us"}, Quantity: 1, Currency: "USD", PriceInCents: 14999,
				TermStart: now.AddDate(-1, 0, 2), TermEnd: now.AddDate(0, 0, 2), PaymentSource: "CREDIT_CARD", Valid: true},
			check: func(t *testing.T, pv *pricing.Preview) {
				if !pv.Cart.LegacyReplaced || pv.Cart.Plan.Code == "pro_us" {
					t.Fatalf("legacy plan not replaced: %s", pv.Cart.Plan.Code)
				}
				pc := pv.PlanChange
				if pv.Change != pricing.ChangeRenewal || pv.Invoice.CreditInCents != 0 || pv.Invoice.CreditToAccountInCents != 0 ||
					pc.NeedsConfirmation || pc.RegionChange || pc.Upgraded || pc.Downgraded {
					t.Errorf("change %q credit %d/%d plan change %+v", pv.Change, pv.Invoice.CreditInCents, pv.Invoice.CreditToAccountInCents, pc)
				}
				start := time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC)
				if !pv.TermStart.Equal(start) || !pv.RenewalDate.Equal(start.AddDate(0, pv.Cart.Plan.Months(), 0)) {
					t.Errorf("term %v..%v, want from the current term's end %v", pv.TermStart, pv.RenewalDate, start)
				}
				if pv.Invoice.SubtotalInCents != pv.Invoice.ChargesInCents || pv.RenewalAmount != pv.Invoice.ChargesInCents {
					t.Errorf("subtotal %d charges %d renewal %d", pv.Invoice.SubtotalInCents, pv.Invoice.ChargesInCents, pv.RenewalAmount)
				}
			}},
		{name: "credit above the new price goes to the account", in: domain.Input{AddOns: []string{"hangar_basic_plus_three_month", "included_geo_us"}},
			ex: &domain.Subscription{ID: "s", Name: "Premium", PlanCode: "performance", AddOns: []string{"performance", "included_geo_us"}, Quantity: 1, Currency: "USD", PriceInCents: 37000, TermStart: now.AddDate(0, 0, -10), TermEnd: now.AddDate(0, 0, 355), Valid: true},
			check: func(t *testing.T, pv *pricing.Preview) {
				inv := pv.Invoice
				if inv.SubtotalInCents != 0 || inv.TotalInCents != 0 || inv.CreditInCents != 4999 || inv.CreditToAccountInCents != 37000*355/365-4999 {
					t.Errorf("invoice %+v", inv)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, price(t, tc.in, tc.ex, pricing.Pricing{}))
		})
	}
}

func TestQuote(t *testing.T) {
	t.Parallel()
	in := domain.Input{AddOns: []string{"performance", "add_geo_eu"}}
	a := price(t, in, nil, pricing.Pricing{QuoteKey: []byte("k")})
	b := price(t, in, nil, pricing.Pricing{QuoteKey: []byte("k")})
	c := price(t, domain.Input{AddOns: []string{"performance", "add_geo_ca"}}, nil, pricing.Pricing{QuoteKey: []byte("k")})
	if a.QuoteHash != b.QuoteHash || a.QuoteID != b.QuoteID || a.QuoteHash == c.QuoteHash {
		t.Errorf("quotes %s %s %s", a.QuoteHash, b.QuoteHash, c.QuoteHash)
	}
	if !a.QuoteExpires.Equal(now.Add(pricing.QuoteTTL).Truncate(time.Second)) || !strings.HasPrefix(a.QuoteID, "q_") {
		t.Errorf("quote %s expires %v", a.QuoteID, a.QuoteExpires)
	}
	if hasPrefix(nil, "x") {
		t.Error("hasPrefix")
	}
}

// The descriptions of the payment lines are what the invoice and the receipt print.
func TestDiscountAndBalanceLineDescriptions(t *testing.T) {
	t.Parallel()
	promos := map[string]*promotion.Promotion{"spring10": {Code: "SPRING10", Kind: "percent", PercentBP: 1000, AppliesNew: true}}
	gifts := map[string]*promotion.GiftCertificate{"gift-5": {Code: "GIFT-5", Currency: "USD", BalanceInCents: 500}}
	pv := price(t, domain.Input{AddOns: []string{"performance", "included_geo_us"}, PromoCodes: []string{"spring10"}, GiftCodes: []string{"gift-5"}}, nil,
		pricing.Pricing{Promotions: promos, Gifts: gifts, Account: domain.Account{FirstTime: true, BalanceInCents: 1000, BalanceCurrency: "USD"}})
	want := map[string]string{
		pricing.ItemPlanDiscount + ":SPRING10": "Promotion SPRING10",
		// A bearer code is printed masked and keyed by its hash (issue 41).
		pricing.ItemGiftDiscount + ":" + promotion.GiftRef("GIFT-5"): "Paid from gift certificate ••••-••••-••••-FT-5",
		pricing.ItemAccountBalance:                                   "Paid from account balance",
		pricing.ItemPlan + ":performance":                            "Premium — 1 year",
	}
	got := map[string]string{}
	for _, l := range pv.Invoice.Lines {
		got[l.Key] = l.Description
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("line %s description %q, want %q (lines %v)", k, got[k], v, got)
		}
	}
}
