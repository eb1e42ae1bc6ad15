package domain_test

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
)

var (
	catOnce sync.Once
	cat     *domain.Catalog
	catErr  error
	rules   = domain.Rules{SalesContact: "sales@hangar.example"}
	now     = time.Date(2026, 3, 10, 15, 4, 5, 0, time.UTC)
)

func catalog(t testing.TB) *domain.Catalog {
	t.Helper()
	catOnce.Do(func() { cat, catErr = domaintest.Catalog() })
	if catErr != nil {
		t.Fatal(catErr)
	}
	return cat
}

func price(t testing.TB, in domain.Input, existing *domain.Subscription, p domain.Pricing) *domain.Preview {
	t.Helper()
	c := catalog(t)
	if p.Now.IsZero() {
		p.Now = now
	}
	return domain.PriceCart(c, rules.Normalize(c, in, existing), p)
}

func lineAmounts(pv *domain.Preview) map[string]int64 {
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

// pilot is an individual Premium subscriber with 143 unused days of a 365-day term.
func pilot() *domain.Subscription {
	return &domain.Subscription{ID: "sub-1", AccountID: "00000000-0000-4000-8000-000000000001", Email: "pilot@example.com",
		PlanCode: "performance", AddOns: []string{"performance", "included_geo_us", "add_geo_eu"}, Quantity: 1, Currency: "USD",
		PriceInCents: 47000, TermStart: now.AddDate(0, 0, -222), TermEnd: now.AddDate(0, 0, 143), PaymentSource: "CREDIT_CARD", Valid: true}
}

func TestPricing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    domain.Input
		ex    *domain.Subscription
		lines map[string]int64
		sub   int64
		tax   int64
	}{
		{name: "premium with an added Europe region in USD", in: domain.Input{Currency: "USD", AddOns: []string{"performance", "add_geo_eu"}},
			lines: map[string]int64{"PLAN:performance": 37000, "PLAN_ADD_ON:add_geo_eu": 10000}, sub: 47000},
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
			pv := price(t, tc.in, tc.ex, domain.Pricing{})
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

func TestRules(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         domain.Input
		ex         *domain.Subscription
		want       []string // codes the cart must contain
		wantNot    []string // codes the cart must not contain
		qty        int
		errs       []string // messages in errors, planErrors or selectionErrors
		regionMode string
		check      func(t *testing.T, c *domain.Cart)
	}{
		{name: "start plan per currency EUR", in: domain.Input{Currency: "EUR"}, want: []string{"pro_plus", "included_geo_eu"}, qty: 1},
		{name: "start plan per currency AUD uses the US region", in: domain.Input{Currency: "AUD"}, want: []string{"pro_plus", "included_geo_us"}},
		{name: "unknown currency falls back to USD", in: domain.Input{Currency: "XYZ"}, check: func(t *testing.T, c *domain.Cart) {
			if c.Currency.Code != "USD" {
				t.Errorf("currency %s", c.Currency.Code)
			}
		}},
		{name: "military starts from mfb_pro in the default currency", in: domain.Input{Military: true, Currency: "EUR"}, want: []string{"mfb_pro"}, check: func(t *testing.T, c *domain.Cart) {
			if c.Currency.Code != "USD" || !c.Military {
				t.Errorf("currency %s military %v", c.Currency.Code, c.Military)
			}
		}},
		{name: "military international starts from mfb_pro_intl", in: domain.Input{MilitaryIntl: true}, want: []string{"mfb_pro_intl"}},
		{name: "military drops commercial chart coverages", in: domain.Input{Military: true, AddOns: []string{"mfb_one", "jepp_us", "jepp_europe_web", "included_geo_us"}}, want: []string{"mfb_one"}, wantNot: []string{"jepp_us", "jepp_europe_web"}},
		{name: "military quantity minimum 1", in: domain.Input{Military: true, Quantity: "0"}, qty: 1},
		{name: "military keeps several licences", in: domain.Input{Military: true, Quantity: "7"}, qty: 7},
		{name: "business with quantity 1", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "1"}, qty: 2, errs: []string{domain.MsgBusinessMinimum}},
		{name: "business without quantity uses the slider default", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us"}}, qty: 2},
		{name: "business non-numeric quantity becomes the minimum", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "lots"}, qty: 2},
		{name: "business above 100 is clamped with contact sales", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "150"}, qty: 100, errs: []string{"For more than 100 licenses, please contact sales@hangar.example."}},
		{name: "preset above 100 allows preset plus 100", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "250"},
			ex: &domain.Subscription{ID: "s", PlanCode: "business_pro", AddOns: []string{"business_pro", "included_geo_us"}, Quantity: 120, Currency: "USD", Valid: true}, qty: 220, errs: []string{"For more than 220 licenses, please contact sales@hangar.example."}},
		{name: "individual quantity is forced to 1", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us"}, Quantity: "5"}, qty: 1},
		{name: "bundle keeps 2 licences", in: domain.Input{Bundle: true, Quantity: "9", AddOns: []string{"honda_jet_bundle_ha420"}}, want: []string{"honda_jet_bundle", "honda_jet_bundle_ha420"}, qty: 2},
		{name: "bundle needs a HondaJet model", in: domain.Input{Bundle: true}, errs: []string{domain.MsgSelectHondaJet}},
		{name: "bundle with two models", in: domain.Input{Bundle: true, AddOns: []string{"honda_jet_bundle", "honda_jet_bundle_ha420", "honda_jet_bundle_elite"}}, want: []string{"honda_jet_bundle_elite"}, wantNot: []string{"honda_jet_bundle_ha420"}},
		{name: "bundle starts from the subscription's geography and options", in: domain.Input{Bundle: true},
			ex:   &domain.Subscription{ID: "s", PlanCode: "honda_jet_bundle", AddOns: []string{"honda_jet_bundle", "included_geo_eu", "honda_jet_bundle_elite_s"}, Quantity: 2, Currency: "USD", Valid: true},
			want: []string{"honda_jet_bundle", "included_geo_eu", "honda_jet_bundle_elite_s"}, qty: 2},
		{name: "renewal adopts the subscription's add-ons and quantity", ex: &domain.Subscription{ID: "s", PlanCode: "business_pro", AddOns: []string{"business_pro", "included_geo_us", "add_geo_ca"}, Quantity: 5, Currency: "USD", Valid: true},
			want: []string{"business_pro", "included_geo_us", "add_geo_ca"}, qty: 5, check: func(t *testing.T, c *domain.Cart) {
				if !c.Renewal || !c.Business {
					t.Errorf("renewal %v business %v", c.Renewal, c.Business)
				}
			}},
		{name: "renewal keeps add-ons passed in", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us"}}, ex: pilot(), want: []string{"pro_plus"}, wantNot: []string{"performance", "add_geo_eu"}},
		{name: "invalid subscription is a new purchase", in: domain.Input{}, ex: &domain.Subscription{ID: "s", PlanCode: "performance", AddOns: []string{"performance"}, Valid: false}, want: []string{"pro_plus"}, check: func(t *testing.T, c *domain.Cart) {
			if c.Renewal {
				t.Error("renewal")
			}
		}},
		{name: "upgrade replaces a plan of the same type", in: domain.Input{Upgrade: "performance", Extras: []string{"logbook"}}, ex: &domain.Subscription{ID: "s", PlanCode: "pro_plus", AddOns: []string{"pro_plus", "included_geo_us"}, Quantity: 1, Currency: "USD", Valid: true},
			want: []string{"performance", "included_geo_us"}, wantNot: []string{"pro_plus", "logbook"}}, // logbook is not sold with Premium (forPlans)
		{name: "upgrade of another plan type is ignored", in: domain.Input{Upgrade: "business_pro"}, ex: &domain.Subscription{ID: "s", PlanCode: "pro_plus", AddOns: []string{"pro_plus", "included_geo_us"}, Quantity: 1, Currency: "USD", Valid: true},
			want: []string{"pro_plus"}, wantNot: []string{"business_pro"}},
		{name: "extras are added", in: domain.Input{AddOns: []string{"basic_plus", "included_geo_us"}, Extras: []string{"logbook", "vectormap"}}, want: []string{"logbook", "vectormap"}},
		{name: "business downgrade", in: domain.Input{BusinessDowngrade: true, AddOns: []string{"business_pro", "included_geo_eu"}, Quantity: "5", Currency: "EUR"},
			want: []string{"basic_plus", "included_geo_eu"}, wantNot: []string{"business_pro"}, qty: 1, check: func(t *testing.T, c *domain.Cart) {
				if c.Business {
					t.Error("still business")
				}
			}},
		{name: "legacy basic becomes basic_plus on renewal with the notice flag", ex: &domain.Subscription{ID: "s", PlanCode: "basic", AddOns: []string{"basic", "included_geo_us"}, Quantity: 1, Currency: "USD", Valid: true},
			want: []string{"basic_plus", "included_geo_us"}, wantNot: []string{"basic"}, check: func(t *testing.T, c *domain.Cart) {
				if !c.LegacyReplaced || c.ReplacedPlan != "basic" {
					t.Errorf("replaced %v %q", c.LegacyReplaced, c.ReplacedPlan)
				}
			}},
		{name: "legacy pro_us becomes pro_plus", in: domain.Input{AddOns: []string{"pro_us"}}, want: []string{"pro_plus"}},
		{name: "legacy pro_ca with licences becomes business_pro", ex: &domain.Subscription{ID: "s", PlanCode: "pro_ca", AddOns: []string{"pro_ca"}, Quantity: 4, Currency: "CAD", Valid: true},
			want: []string{"business_pro"}, qty: 4, check: func(t *testing.T, c *domain.Cart) {
				if !c.Business {
					t.Error("not business")
				}
			}},
		{name: "legacy three-month becomes the basic-plus three-month plan", in: domain.Input{AddOns: []string{"hangar_mobile_three_month", "included_geo_us"}}, want: []string{"hangar_basic_plus_three_month"}},
		{name: "BYOP basic bought new is not replaced", in: domain.Input{AddOns: []string{"basic", "included_geo_us"}}, want: []string{"basic"}},
		{name: "worldwide removes every regional coverage", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us", "jepp_us", "jepp_europe", "jepp_worldwide"}}, want: []string{"jepp_worldwide"}, wantNot: []string{"jepp_us", "jepp_europe"}},
		{name: "narrower coverage after a broader one is dropped", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us", "jepp_north_america", "jepp_us"}}, want: []string{"jepp_north_america"}, wantNot: []string{"jepp_us"}},
		{name: "broader coverage removes narrower ones", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us", "jepp_us", "jepp_canada_alaska", "jepp_north_america"}}, want: []string{"jepp_north_america"}, wantNot: []string{"jepp_us", "jepp_canada_alaska"}},
		{name: "web coverages exclude web coverages only", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us", "jepp_us", "jepp_worldwide_web"}}, want: []string{"jepp_us", "jepp_worldwide_web"}},
		{name: "VFR combination removes its components", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_eu", "skyguide_ch", "nats_uk_vfr", "rogers_full_eu_vfr"}}, want: []string{"rogers_full_eu_vfr"}, wantNot: []string{"skyguide_ch", "nats_uk_vfr"}},
		{name: "all-Europe chart removes country charts", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_eu", "jepp_de_vfr", "jepp_fr_vfr", "jepp_eu_vfr"}}, want: []string{"jepp_eu_vfr"}, wantNot: []string{"jepp_de_vfr", "jepp_fr_vfr"}},
		{name: "country chart after all-Europe is dropped", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_eu", "jepp_eu_vfr", "jepp_de_vfr"}}, want: []string{"jepp_eu_vfr"}, wantNot: []string{"jepp_de_vfr"}},
		{name: "not_allowed_with add-ons: last dispatch size wins", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us", "dispatch_light", "dispatch_heavy"}, Quantity: "2"}, want: []string{"dispatch_heavy"}, wantNot: []string{"dispatch_light", "dispatch_not_purchased"}},
		{name: "dispatch not purchased completes the pair", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "2"}, want: []string{"dispatch_not_purchased", "runway_not_purchased"}},
		{name: "runway purchased removes runway not purchased", in: domain.Input{AddOns: []string{"business_performance", "included_geo_us", "runway_not_purchased", "runway_analysis_ba"}, Quantity: "2"}, want: []string{"runway_analysis_ba"}, wantNot: []string{"runway_not_purchased"}},
		{name: "manufacturer group: one Cessna jet package", in: domain.Input{AddOns: []string{"performance", "included_geo_us", "runway_jet_cessna_light", "runway_jet_cessna_midsize"}}, want: []string{"runway_jet_cessna_midsize"}, wantNot: []string{"runway_jet_cessna_light"}},
		{name: "not_allowed_with groups: supplements not with business", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us", "jepp_mil_supp_us"}, Quantity: "3"}, wantNot: []string{"jepp_mil_supp_us"}},
		{name: "not_allowed_with multiQuantity: supplements need one licence", in: domain.Input{Military: true, AddOns: []string{"mfb_pro", "jepp_mil_supp_us"}, Quantity: "3"}, wantNot: []string{"jepp_mil_supp_us"}},
		{name: "forPlans: a feature the plan already has is removed", in: domain.Input{AddOns: []string{"performance", "included_geo_us", "syn_vis"}}, wantNot: []string{"syn_vis"}},
		{name: "complimentary Premium with Canada/Alaska and Africa keeps only those", in: domain.Input{PaymentMethod: "COMPLIMENTARY", AddOns: []string{"performance", "included_geo_us", "jepp_canada_alaska", "jepp_africa", "jepp_europe", "jepp_us_web"}},
			want: []string{"jepp_canada_alaska", "jepp_africa"}, wantNot: []string{"jepp_europe", "jepp_us_web"}},
		{name: "paid Premium with Canada/Alaska and Africa keeps the others", in: domain.Input{AddOns: []string{"performance", "included_geo_us", "jepp_canada_alaska", "jepp_africa", "jepp_europe"}}, want: []string{"jepp_europe"}},
		{name: "chart-provider account number removes chart plans and disables them", in: domain.Input{JeppCustomerNo: "123456", AddOns: []string{"pro_plus", "included_geo_us", "jepp_us", "jepp_europe_web", "jepp_eu_vfr"}},
			wantNot: []string{"jepp_us", "jepp_europe_web"}, want: []string{"jepp_eu_vfr"}, check: func(t *testing.T, c *domain.Cart) {
				if !c.ChartsDisabled {
					t.Error("charts not disabled")
				}
			}},
		{name: "regions are radio buttons for the three-month plan", in: domain.Input{AddOns: []string{"hangar_basic_plus_three_month", "included_geo_us", "add_geo_eu"}}, want: []string{"included_geo_eu"}, wantNot: []string{"included_geo_us", "add_geo_eu"}, regionMode: "radio"},
		{name: "regions are checkboxes otherwise", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us", "add_geo_eu", "add_geo_ca"}}, want: []string{"add_geo_eu", "add_geo_ca"}, regionMode: "checkbox"},
		{name: "a second included region is charged", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us", "included_geo_eu"}}, want: []string{"included_geo_us", "add_geo_eu"}, wantNot: []string{"included_geo_eu"}},
		{name: "an added region equal to the included one is dropped", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us", "add_geo_us"}}, wantNot: []string{"add_geo_us"}},
		{name: "plans not available for region selection drop regions", in: domain.Input{AddOns: []string{"basic_us", "included_geo_us", "add_geo_eu"}, Quantity: "3"}, wantNot: []string{"included_geo_us", "add_geo_eu"}, regionMode: "none"},
		{name: "military pro is not available for region selection", in: domain.Input{Military: true, AddOns: []string{"mfb_pro", "add_geo_eu"}}, wantNot: []string{"add_geo_eu"}, regionMode: "none"},
		{name: "no region selected", in: domain.Input{AddOns: []string{"pro_plus"}}, errs: []string{domain.MsgNoRegion}},
		{name: "no plan selected", in: domain.Input{AddOns: []string{"included_geo_us", "add_geo_eu"}}, errs: []string{domain.MsgSelectPlan}},
		{name: "unknown codes are reported", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us", "nope"}}, errs: []string{`Unknown add-on code "nope".`}},
		{name: "runway analysis in AUD for a listed aircraft", in: domain.Input{Currency: "AUD", AddOns: []string{"performance", "included_geo_us", "runway_tp_beechcraft"}}, want: []string{"runway_tp_beechcraft"}},
		{name: "runway analysis in AUD for an unlisted aircraft", in: domain.Input{Currency: "AUD", AddOns: []string{"performance", "included_geo_us", "runway_jet_gulfstream"}}, errs: []string{"Runway Analysis — Gulfstream: Unavailable in AU$AUD"}},
		{name: "existing business subscriber asking for one licence", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us"}, Quantity: "1"},
			ex:   &domain.Subscription{ID: "s", PlanCode: "business_pro", AddOns: []string{"business_pro", "included_geo_us"}, Quantity: 5, Currency: "USD", Valid: true},
			errs: []string{"You are already subscribed under a business plan. Please contact sales@hangar.example if you would like to switch to an individual plan."}},
		{name: "existing military subscriber adding licences", in: domain.Input{Quantity: "3"},
			ex:   &domain.Subscription{ID: "s", PlanCode: "mfb_pro", AddOns: []string{"mfb_pro"}, Quantity: 1, Currency: "USD", Military: true, Valid: true},
			errs: []string{"Please contact sales@hangar.example to add licenses to your Military Flight Bag subscription."}},
		{name: "child account of a group", ex: &domain.Subscription{ID: "s", PlanCode: "pro_plus", AddOns: []string{"pro_plus", "included_geo_us"}, Quantity: 1, Currency: "USD", Valid: true, ParentAccountID: "p"}, errs: []string{domain.MsgChildAccount}},
		{name: "third-party controlled subscription", ex: &domain.Subscription{ID: "s", PlanCode: "mfb_pro", AddOns: []string{"mfb_pro"}, Quantity: 1, Currency: "USD", Valid: true, Military: true, PaymentSource: "THIRD_PARTY"}, errs: []string{domain.MsgThirdParty}},
		{name: "e-mail spaces become plus and the account id is extracted", in: domain.Input{Email: " pilot example@x.com ", AccountID: "#/account/00000000-0000-4000-8000-00000000000A?x=1"}, check: func(t *testing.T, c *domain.Cart) {
			if c.Email != "pilot+example@x.com" || c.AccountID != "00000000-0000-4000-8000-00000000000a" {
				t.Errorf("email %q account %q", c.Email, c.AccountID)
			}
		}},
		{name: "the test e-mail is ignored", in: domain.Input{Email: "TEST@test.com"}, check: func(t *testing.T, c *domain.Cart) {
			if c.Email != "" {
				t.Errorf("email %q", c.Email)
			}
		}},
		{name: "business id cleared outside the list and eu maps to DE", in: domain.Input{Country: "eu", BusinessID: "DE123456789"}, check: func(t *testing.T, c *domain.Cart) {
			if c.Country != "DE" || c.BusinessID != "DE123456789" {
				t.Errorf("country %q id %q", c.Country, c.BusinessID)
			}
		}},
		{name: "business id cleared for the US", in: domain.Input{Country: "US", BusinessID: "12-3456789"}, check: func(t *testing.T, c *domain.Cart) {
			if c.BusinessID != "" {
				t.Errorf("id %q", c.BusinessID)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := rules.Normalize(catalog(t), tc.in, tc.ex)
			for _, w := range tc.want {
				if !c.Has(w) {
					t.Errorf("cart %v lacks %s", c.AddOns, w)
				}
			}
			for _, w := range tc.wantNot {
				if c.Has(w) {
					t.Errorf("cart %v has %s", c.AddOns, w)
				}
			}
			if tc.qty != 0 && c.Quantity != tc.qty {
				t.Errorf("quantity %d, want %d", c.Quantity, tc.qty)
			}
			all := append(append(append([]string{}, c.Errors...), c.PlanErrors...), c.SelectionErrors...)
			for _, e := range tc.errs {
				if !has(all, e) {
					t.Errorf("errors %q lack %q", all, e)
				}
			}
			if tc.errs == nil && len(all) > 0 && tc.check == nil {
				t.Errorf("unexpected errors %q", all)
			}
			if tc.regionMode != "" && c.RegionMode != tc.regionMode {
				t.Errorf("region mode %s, want %s", c.RegionMode, tc.regionMode)
			}
			if tc.check != nil {
				tc.check(t, c)
			}
			for _, a := range c.Adjustments {
				if a.Reason == "" {
					t.Errorf("adjustment of %s without a reason", a.Code)
				}
			}
		})
	}
}

func TestChartPlatformChoice(t *testing.T) {
	base := []string{"pro_plus", "included_geo_us"}
	for _, tc := range []struct {
		name     string
		addOns   []string
		choice   domain.ChartChoice
		military bool
		want     []string
		wantNot  []string
	}{
		{name: "App adds the app variant", choice: domain.ChartChoice{Code: "jepp_us", Type: "App", Checked: true}, want: []string{"jepp_us"}, wantNot: []string{"jepp_us_web"}},
		{name: "Web adds the web variant", choice: domain.ChartChoice{Code: "jepp_us", Type: "Web", Checked: true}, want: []string{"jepp_us_web"}, wantNot: []string{"jepp_us"}},
		{name: "Both adds both variants", choice: domain.ChartChoice{Code: "jepp_us_web", Type: "Both", Checked: true}, want: []string{"jepp_us", "jepp_us_web"}},
		{name: "unchecking removes both variants", addOns: []string{"jepp_us", "jepp_us_web"}, choice: domain.ChartChoice{Code: "jepp_us"}, wantNot: []string{"jepp_us", "jepp_us_web"}},
		{name: "Both against Both unchecks the other", addOns: []string{"jepp_us", "jepp_us_web"}, choice: domain.ChartChoice{Code: "jepp_north_america", Type: "Both", Checked: true},
			want: []string{"jepp_north_america", "jepp_north_america_web"}, wantNot: []string{"jepp_us", "jepp_us_web"}},
		{name: "App against Both switches the other to Web", addOns: []string{"jepp_us", "jepp_us_web"}, choice: domain.ChartChoice{Code: "jepp_north_america", Type: "App", Checked: true},
			want: []string{"jepp_north_america", "jepp_us_web"}, wantNot: []string{"jepp_us"}},
		{name: "Web against Both switches the other to App", addOns: []string{"jepp_us", "jepp_us_web"}, choice: domain.ChartChoice{Code: "jepp_north_america", Type: "Web", Checked: true},
			want: []string{"jepp_north_america_web", "jepp_us"}, wantNot: []string{"jepp_us_web"}},
		{name: "military plans have no platform choice", military: true, choice: domain.ChartChoice{Code: "jepp_mil_supp_europe_intl", Type: "Both", Checked: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := tc.choice
			in := domain.Input{AddOns: append(slices.Clone(base), tc.addOns...), ChartChoice: &ch}
			if tc.military {
				in = domain.Input{MilitaryIntl: true, ChartChoice: &ch}
			}
			c := rules.Normalize(catalog(t), in, nil)
			for _, w := range tc.want {
				if !c.Has(w) {
					t.Errorf("cart %v lacks %s", c.AddOns, w)
				}
			}
			for _, w := range tc.wantNot {
				if c.Has(w) {
					t.Errorf("cart %v has %s", c.AddOns, w)
				}
			}
			for _, code := range c.AddOns {
				if strings.HasSuffix(code, "_web") && tc.military {
					t.Errorf("military cart has %s", code)
				}
			}
		})
	}
}

func TestPlanChangeAndCredit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    domain.Input
		ex    *domain.Subscription
		check func(t *testing.T, pv *domain.Preview)
	}{
		{name: "downgrade returns the credit line and the confirmation flag", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us", "add_geo_eu"}}, ex: pilot(), check: func(t *testing.T, pv *domain.Preview) {
			pc := pv.PlanChange
			if !pc.Downgraded || !pc.NeedsConfirmation || pc.Upgraded {
				t.Errorf("plan change %+v", pc)
			}
			// 47000 * 143 / 365 = 18413 (rounded down).
			var credit *domain.Line
			for i := range pv.Invoice.Lines {
				if pv.Invoice.Lines[i].Type == domain.ItemSubscriptionCr {
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
		{name: "upgrade needs no confirmation", in: domain.Input{Upgrade: "performance"}, ex: &domain.Subscription{ID: "s", PlanCode: "pro_plus", AddOns: []string{"pro_plus", "included_geo_us"}, Quantity: 1, Currency: "USD", PriceInCents: 19999, TermStart: now.AddDate(0, -6, 0), TermEnd: now.AddDate(0, 6, 0), Valid: true},
			check: func(t *testing.T, pv *domain.Preview) {
				if !pv.PlanChange.Upgraded || pv.PlanChange.NeedsConfirmation || pv.Invoice.CreditInCents == 0 {
					t.Errorf("plan change %+v credit %d", pv.PlanChange, pv.Invoice.CreditInCents)
				}
			}},
		{name: "region change needs confirmation", in: domain.Input{AddOns: []string{"performance", "included_geo_us"}}, ex: pilot(), check: func(t *testing.T, pv *domain.Preview) {
			if !pv.PlanChange.RegionChange || !pv.PlanChange.NeedsConfirmation || pv.PlanChange.Downgraded {
				t.Errorf("plan change %+v", pv.PlanChange)
			}
		}},
		{name: "chart coverage change", in: domain.Input{AddOns: []string{"performance", "included_geo_us", "add_geo_eu", "jepp_us"}}, ex: pilot(), check: func(t *testing.T, pv *domain.Preview) {
			if !pv.PlanChange.JeppChange || !pv.PlanChange.NeedsConfirmation {
				t.Errorf("plan change %+v", pv.PlanChange)
			}
		}},
		{name: "feature change only when not an upgrade", in: domain.Input{AddOns: []string{"performance", "included_geo_us", "add_geo_eu", "flarm_decode"}}, ex: pilot(), check: func(t *testing.T, pv *domain.Preview) {
			if !pv.PlanChange.FeatureChange {
				t.Errorf("plan change %+v", pv.PlanChange)
			}
		}},
		{name: "runway aircraft change", in: domain.Input{AddOns: []string{"performance", "included_geo_us", "add_geo_eu", "runway_tp_daher"}}, ex: pilot(), check: func(t *testing.T, pv *domain.Preview) {
			if !pv.PlanChange.RunwayChange || !pv.PlanChange.NeedsConfirmation {
				t.Errorf("plan change %+v", pv.PlanChange)
			}
		}},
		{name: "sunsetting add-ons", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "3"},
			ex: &domain.Subscription{ID: "s", PlanCode: "business_pro", AddOns: []string{"business_pro", "included_geo_us", "flitelink"}, Quantity: 3, Currency: "USD", Valid: true},
			check: func(t *testing.T, pv *domain.Preview) {
				if !pv.PlanChange.Sunsetting || !has(pv.PlanChange.SunsettingAddOns, "flitelink") || pv.PlanChange.SunsetMessage == "" {
					t.Errorf("plan change %+v", pv.PlanChange)
				}
			}},
		{name: "bundle changes never need confirmation", in: domain.Input{Bundle: true, AddOns: []string{"honda_jet_bundle", "included_geo_eu", "honda_jet_bundle_elite"}},
			ex: &domain.Subscription{ID: "s", PlanCode: "honda_jet_bundle", AddOns: []string{"honda_jet_bundle", "included_geo_us", "honda_jet_bundle_ha420"}, Quantity: 2, Currency: "USD", Valid: true},
			check: func(t *testing.T, pv *domain.Preview) {
				if pv.PlanChange.NeedsConfirmation || !pv.PlanChange.RegionChange {
					t.Errorf("plan change %+v", pv.PlanChange)
				}
			}},
		{name: "unchanged renewal extends the term without credit", ex: pilot(), check: func(t *testing.T, pv *domain.Preview) {
			if pv.Invoice.CreditInCents != 0 || pv.PlanChange.NeedsConfirmation {
				t.Errorf("credit %d change %+v", pv.Invoice.CreditInCents, pv.PlanChange)
			}
			if !pv.TermStart.Equal(time.Date(2026, 7, 31, 0, 0, 0, 0, time.UTC)) || pv.RenewalAmount != 47000 {
				t.Errorf("term start %v renewal %d", pv.TermStart, pv.RenewalAmount)
			}
		}},
		{name: "credit above the new price goes to the account", in: domain.Input{AddOns: []string{"hangar_basic_plus_three_month", "included_geo_us"}},
			ex: &domain.Subscription{ID: "s", Name: "Premium", PlanCode: "performance", AddOns: []string{"performance", "included_geo_us"}, Quantity: 1, Currency: "USD", PriceInCents: 37000, TermStart: now.AddDate(0, 0, -10), TermEnd: now.AddDate(0, 0, 355), Valid: true},
			check: func(t *testing.T, pv *domain.Preview) {
				inv := pv.Invoice
				if inv.SubtotalInCents != 0 || inv.TotalInCents != 0 || inv.CreditInCents != 4999 || inv.CreditToAccountInCents != 37000*355/365-4999 {
					t.Errorf("invoice %+v", inv)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, price(t, tc.in, tc.ex, domain.Pricing{}))
		})
	}
}

func TestTax(t *testing.T) {
	usd, _ := catalog(t).Currency("USD")
	eur, _ := catalog(t).Currency("EUR")
	cad, _ := catalog(t).Currency("CAD")
	for _, tc := range []struct {
		name, country, postal, bizID string
		cur                          domain.Currency
		base, tax                    int64
		label, jur                   string
		reverse                      bool
	}{
		{name: "US California by ZIP", country: "US", postal: "94105", cur: usd, base: 10000, tax: 725, label: "Tax", jur: "US-CA"},
		{name: "US Texas by ZIP", country: "US", postal: "75001-1234", cur: usd, base: 10000, tax: 625, label: "Tax", jur: "US-TX"},
		{name: "US Oregon has no sales tax", country: "US", postal: "97201", cur: usd, base: 10000, tax: 0, label: "Tax", jur: "US-OR"},
		{name: "US default country from USD without ZIP", cur: usd, base: 10000, tax: 0, label: "Tax"},
		{name: "Canada Ontario HST", country: "CA", postal: "M5V 2T6", cur: cad, base: 10000, tax: 1300, label: "Tax", jur: "CA-ON"},
		{name: "Canada British Columbia GST plus PST", country: "CA", postal: "V6B 1A1", cur: cad, base: 10000, tax: 1200, label: "Tax", jur: "CA-BC"},
		{name: "Canada Quebec GST plus QST rounded per component", country: "CA", postal: "H2X 1Y4", cur: cad, base: 19999, tax: 1000 + 1995, label: "Tax", jur: "CA-QC"},
		{name: "Canada Alberta GST only", country: "CA", postal: "T2P 1J9", cur: cad, base: 10000, tax: 500, label: "Tax", jur: "CA-AB"},
		{name: "Germany VAT", country: "DE", cur: eur, base: 34400, tax: 6536, label: "VAT", jur: "DE"},
		{name: "Germany business id reverse charge", country: "DE", bizID: "DE 123 456 789", cur: eur, base: 34400, tax: 0, label: "VAT", jur: "DE", reverse: true},
		{name: "Greece business id uses EL", country: "GR", bizID: "EL123456789", cur: eur, base: 10000, tax: 0, label: "VAT", jur: "GR", reverse: true},
		{name: "malformed business id pays VAT", country: "FR", bizID: "DE12", cur: eur, base: 10000, tax: 2000, label: "VAT", jur: "FR"},
		{name: "UK VAT 20 percent", country: "GB", cur: usd, base: 29600, tax: 5920, label: "VAT", jur: "GB"},
		{name: "Australia GST 10 percent", country: "AU", cur: usd, base: 55555, tax: 5556, label: "VAT", jur: "AU"},
		{name: "round half up on the base", country: "GB", cur: usd, base: 3, tax: 1, label: "VAT", jur: "GB"},
		{name: "outside every table", country: "JP", cur: usd, base: 10000, tax: 0, label: "VAT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := domain.TaxFor(tc.country, tc.postal, tc.bizID, tc.cur)
			if got := r.Amount(tc.base); got != tc.tax || r.Label != tc.label || r.Jurisdiction != tc.jur || r.ReverseCharge != tc.reverse {
				t.Errorf("tax %d label %s jur %s reverse %v, want %d %s %s %v", got, r.Label, r.Jurisdiction, r.ReverseCharge, tc.tax, tc.label, tc.jur, tc.reverse)
			}
		})
	}
}

func TestPromotionsAndGifts(t *testing.T) {
	promos := map[string]*domain.Promotion{
		"spring10":   {Code: "SPRING10", Kind: "percent", PercentBP: 1000, AppliesNew: true, AppliesUpgrade: true},
		"save25":     {Code: "SAVE25", Kind: "fixed", AmountInCents: 2500, Currency: "USD", AppliesNew: true, AppliesRenewal: true, MinAmountInCents: 30000, BusinessAllowed: true},
		"expired":    {Code: "EXPIRED", Kind: "percent", PercentBP: 1000, AppliesNew: true, ValidUntil: now.Add(-time.Hour)},
		"full":       {Code: "FULL", Kind: "percent", PercentBP: 1000, AppliesNew: true, MaxRedemptions: 5, Redemptions: 5},
		"eaa2020":    {Code: "EAA2020", Kind: "percent", PercentBP: 2000, AppliesNew: true, FirstTimeOnly: true, Notice: "EAA2020", NoticeMessage: "EAA members: 20% off your first year.", NoticeAudience: "first_time"},
		"bundle2020": {Code: "BUNDLE2020", Kind: "percent", PercentBP: 1500, AppliesNew: true, AppliesRenewal: true, Notice: "BUNDLE2020", NoticeMessage: "This promotion is not valid for customers who already have chart coverage.", NoticeAudience: "has_chart_coverage", AlwaysView: true, RemoveOnNotice: true},
		"premonly":   {Code: "PREMONLY", Kind: "percent", PercentBP: 1000, AppliesNew: true, EligiblePlans: []string{"performance"}},
	}
	gifts := map[string]*domain.GiftCertificate{
		"gift-usd-100": {Code: "GIFT-USD-100", Currency: "USD", BalanceInCents: 10000},
		"gift-eur-50":  {Code: "GIFT-EUR-50", Currency: "EUR", BalanceInCents: 5000},
		"gift-big":     {Code: "GIFT-BIG", Currency: "USD", BalanceInCents: 100000},
	}
	premium := []string{"performance", "included_geo_us"}
	business := &domain.Subscription{ID: "b", PlanCode: "business_pro", AddOns: []string{"business_pro", "included_geo_us"}, Quantity: 5, Currency: "USD", Valid: true}
	for _, tc := range []struct {
		name     string
		in       domain.Input
		ex       *domain.Subscription
		acct     domain.Account
		discount int64
		gift     int64
		code     string // expected error code
		msg      string
		notice   string
		total    int64
	}{
		{name: "percent promotion", in: domain.Input{AddOns: premium, PromoCodes: []string{"spring10"}}, acct: domain.Account{FirstTime: true}, discount: 3700, total: 33300},
		{name: "fixed promotion above its minimum", in: domain.Input{AddOns: premium, PromoCodes: []string{"SAVE25"}}, discount: 2500, total: 34500},
		{name: "fixed promotion below its minimum", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us"}, PromoCodes: []string{"SAVE25"}}, code: domain.CodeNotValid, msg: "Not a valid code.", total: 19999},
		{name: "fixed promotion in another currency", in: domain.Input{Currency: "EUR", AddOns: []string{"performance", "included_geo_eu"}, PromoCodes: []string{"SAVE25"}}, code: domain.CodeNotValid, total: 34400},
		{name: "unknown promotion", in: domain.Input{AddOns: premium, PromoCodes: []string{"NOPE"}}, code: domain.CodeNotValid, msg: "Not a valid code.", total: 37000},
		{name: "expired promotion", in: domain.Input{AddOns: premium, PromoCodes: []string{"EXPIRED"}}, code: domain.CodeNotValid, total: 37000},
		{name: "redemption limit reached", in: domain.Input{AddOns: premium, PromoCodes: []string{"FULL"}}, code: domain.CodeNotValid, total: 37000},
		{name: "code already used by the account", in: domain.Input{AddOns: premium, PromoCodes: []string{"spring10"}}, acct: domain.Account{UsedCodes: []string{"Spring10"}}, code: domain.CodeAlreadyUsed, msg: "Code already used.", total: 37000},
		{name: "code entered twice in another case", in: domain.Input{AddOns: premium, PromoCodes: []string{"SAVE25", "save25"}}, discount: 2500, code: domain.CodeAlreadyUsed, msg: "Code already used.", total: 34500},
		{name: "placeholder code is ignored", in: domain.Input{AddOns: premium, PromoCodes: []string{"{code}", " "}}, total: 37000},
		{name: "renewal-only restriction for individuals", in: domain.Input{PromoCodes: []string{"spring10"}}, ex: pilot(), code: domain.CodeRenewalIndividual, msg: "This promotion is not valid for a renewal, but will apply if you upgrade your plan.", total: 47000},
		{name: "not for business plans", in: domain.Input{PromoCodes: []string{"spring10"}}, ex: business, code: domain.CodeRenewalBusiness, msg: "This promotion is not available for Business plans.", total: 125000},
		{name: "eligible plans only", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us"}, PromoCodes: []string{"premonly"}}, code: domain.CodeNotValid, total: 19999},
		{name: "EAA2020 notice for a first-time customer", in: domain.Input{AddOns: premium, PromoCodes: []string{"EAA2020"}}, acct: domain.Account{FirstTime: true}, discount: 7400, notice: "EAA2020", total: 29600},
		{name: "EAA2020 notice already viewed is not asked again", in: domain.Input{AddOns: premium, PromoCodes: []string{"EAA2020"}, ViewedPromos: []string{"eaa2020"}}, acct: domain.Account{FirstTime: true}, discount: 7400, total: 29600},
		{name: "BUNDLE2020 notice is always asked", in: domain.Input{AddOns: premium, PromoCodes: []string{"BUNDLE2020"}, ViewedPromos: []string{"BUNDLE2020"}}, acct: domain.Account{HasChartCoverage: true}, code: domain.CodePromoPop, notice: "BUNDLE2020", total: 37000},
		{name: "EAA2020 for a returning customer", in: domain.Input{AddOns: premium, PromoCodes: []string{"EAA2020"}}, code: domain.CodeNotValid, total: 37000},
		{name: "BUNDLE2020 with chart coverage is removed with its notice", in: domain.Input{AddOns: premium, PromoCodes: []string{"BUNDLE2020"}}, acct: domain.Account{HasChartCoverage: true}, code: domain.CodePromoPop, notice: "BUNDLE2020", total: 37000},
		{name: "BUNDLE2020 without chart coverage applies", in: domain.Input{AddOns: premium, PromoCodes: []string{"BUNDLE2020"}}, discount: 5550, total: 31450},
		{name: "gift certificate pays part", in: domain.Input{AddOns: premium, GiftCodes: []string{"GIFT-USD-100"}}, gift: 10000, total: 27000},
		{name: "gift certificate larger than the invoice", in: domain.Input{AddOns: premium, GiftCodes: []string{"gift-big"}}, gift: 37000, total: 0},
		{name: "gift certificate in another currency", in: domain.Input{AddOns: premium, GiftCodes: []string{"GIFT-EUR-50"}}, code: domain.CodeGiftCurrency, msg: "The currency for that gift card does not match the currency you have selected.", total: 37000},
		{name: "gift certificate not found", in: domain.Input{AddOns: premium, GiftCodes: []string{"GIFT-NOPE"}}, code: domain.CodeGiftNotFound, msg: "Could not find gift certificate.", total: 37000},
		{name: "account balance pays after tax", in: domain.Input{AddOns: premium}, acct: domain.Account{BalanceInCents: 5000, BalanceCurrency: "USD"}, total: 32000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pv := price(t, tc.in, tc.ex, domain.Pricing{Promotions: promos, Gifts: gifts, Account: tc.acct})
			inv := pv.Invoice
			if inv.DiscountInCents != tc.discount || inv.GiftCreditInCents != tc.gift || inv.TotalInCents != tc.total {
				t.Errorf("discount %d gift %d total %d, want %d %d %d", inv.DiscountInCents, inv.GiftCreditInCents, inv.TotalInCents, tc.discount, tc.gift, tc.total)
			}
			if tc.code != "" {
				found := false
				for _, ce := range pv.CodeErrors {
					found = found || ce.ErrorCode == tc.code && (tc.msg == "" || ce.Message == tc.msg)
				}
				if !found {
					t.Errorf("code errors %+v lack %s %q", pv.CodeErrors, tc.code, tc.msg)
				}
			} else if len(pv.CodeErrors) > 0 {
				t.Errorf("code errors %+v", pv.CodeErrors)
			}
			if tc.notice == "" && len(pv.PromoInfo) > 0 {
				t.Errorf("promo info %+v", pv.PromoInfo)
			}
			if tc.notice != "" && (len(pv.PromoInfo) != 1 || pv.PromoInfo[0].Notice != tc.notice) {
				t.Errorf("promo info %+v", pv.PromoInfo)
			}
		})
	}
}

func TestValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   domain.Input
		want []string
	}{
		{name: "business needs licence agreement, EULA and organization", in: domain.Input{Email: "a@b.co", AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "3"},
			want: []string{domain.MsgPleaseConfirm, domain.MsgEula, domain.MsgOrganization}},
		{name: "logged-in business buyer needs no organization name", in: domain.Input{Email: "a@b.co", AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "3", LicenseChecked: true, EulaChecked: true, Caller: domain.Caller{LoggedIn: true, AccountID: "00000000-0000-4000-8000-0000000000aa", Email: "a@b.co"}}},
		{name: "military with several licences needs the licence agreement", in: domain.Input{Email: "a@b.co", Military: true, Quantity: "3"}, want: []string{domain.MsgPleaseConfirm}},
		{name: "e-mail required", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us"}}, want: []string{domain.MsgEmail}},
		{name: "malformed e-mail", in: domain.Input{Email: "nope", AddOns: []string{"pro_plus", "included_geo_us"}}, want: []string{domain.MsgEmail}},
		{name: "complete individual purchase", in: domain.Input{Email: "a@b.co", AddOns: []string{"pro_plus", "included_geo_us"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := rules.Normalize(catalog(t), tc.in, nil)
			got := domain.ValidateConfiguration(c, tc.in)
			if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("errors %q, want %q", got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name string
		p    domain.Payment
		want []string
	}{
		{name: "empty payment form", p: domain.Payment{RecaptchaRequired: true}, want: []string{domain.MsgCardBlank, domain.MsgNameBlank, domain.MsgPostalBlank, domain.MsgSelectCountry, domain.MsgHuman}},
		{name: "existing method needs postal code and country", p: domain.Payment{ExistingMethod: true}, want: []string{domain.MsgPostalBlank, domain.MsgSelectCountry}},
		{name: "complete card payment", p: domain.Payment{Nonce: "n", CardholderName: "Amelia Earhart", Zip: "94105", Country: "US"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := domain.ValidatePayment(tc.p); !slices.Equal(got, tc.want) {
				t.Errorf("errors %q, want %q", got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name              string
		zip, country, who string
		missing           bool
	}{
		{name: "cardholder name of one word", zip: "1", country: "US", who: "Amelia", missing: true},
		{name: "blank zipcode", country: "US", who: "Amelia Earhart", missing: true},
		{name: "complete billing info", zip: "1", country: "US", who: "Amelia Earhart"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := domain.MissingBillingInfo(tc.zip, tc.country, tc.who); got != tc.missing {
				t.Errorf("missing %v", got)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	in := domain.Input{AddOns: []string{"performance", "add_geo_eu"}}
	a := price(t, in, nil, domain.Pricing{QuoteKey: []byte("k")})
	b := price(t, in, nil, domain.Pricing{QuoteKey: []byte("k")})
	c := price(t, domain.Input{AddOns: []string{"performance", "add_geo_ca"}}, nil, domain.Pricing{QuoteKey: []byte("k")})
	if a.QuoteHash != b.QuoteHash || a.QuoteID != b.QuoteID || a.QuoteHash == c.QuoteHash {
		t.Errorf("quotes %s %s %s", a.QuoteHash, b.QuoteHash, c.QuoteHash)
	}
	if !a.QuoteExpires.Equal(now.Add(domain.QuoteTTL).Truncate(time.Second)) || !strings.HasPrefix(a.QuoteID, "q_") {
		t.Errorf("quote %s expires %v", a.QuoteID, a.QuoteExpires)
	}
	if hasPrefix(nil, "x") {
		t.Error("hasPrefix")
	}
}
