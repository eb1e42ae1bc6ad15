package rules_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
	"github.com/hangar/hangar/services/checkout/internal/domain/rules"
)

func catalog(t testing.TB) *domain.Catalog { return domaintest.MustCatalog(t) }

func pilot() *domain.Subscription { return domaintest.Pilot() }

func has(list []string, s string) bool { return slices.Contains(list, s) }

func TestRules(t *testing.T) {
	t.Parallel()
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
		{name: "business with quantity 1", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "1"}, qty: 2, errs: []string{rules.MsgBusinessMinimum}},
		{name: "business without quantity uses the slider default", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us"}}, qty: 2},
		{name: "business non-numeric quantity becomes the minimum", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "lots"}, qty: 2},
		{name: "business above 100 is clamped with contact sales", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "150"}, qty: 100, errs: []string{"For more than 100 licenses, please contact sales@hangar.example."}},
		{name: "preset above 100 allows preset plus 100", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "250"},
			ex: &domain.Subscription{ID: "s", PlanCode: "business_pro", AddOns: []string{"business_pro", "included_geo_us"}, Quantity: 120, Currency: "USD", Valid: true}, qty: 220, errs: []string{"For more than 220 licenses, please contact sales@hangar.example."}},
		{name: "individual quantity is forced to 1", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us"}, Quantity: "5"}, qty: 1},
		{name: "bundle keeps 2 licences", in: domain.Input{Bundle: true, Quantity: "9", AddOns: []string{"honda_jet_bundle_ha420"}}, want: []string{"honda_jet_bundle", "honda_jet_bundle_ha420"}, qty: 2},
		{name: "bundle needs a HondaJet model", in: domain.Input{Bundle: true}, errs: []string{rules.MsgSelectHondaJet}},
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
		{name: "legacy pro_ca keeps Canada", in: domain.Input{AddOns: []string{"pro_ca"}, Currency: "USD"}, want: []string{"pro_plus", "included_geo_ca"}, wantNot: []string{"included_geo_us"}},
		{name: "legacy three-month without a region gets one", in: domain.Input{AddOns: []string{"hangar_mobile_three_month"}}, want: []string{"hangar_basic_plus_three_month", "included_geo_us"}},
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
		// Issue 45: /pricing's "Buy" links name the plan only; the cart gets the currency's region.
		{name: "no region selected: the currency's default region", in: domain.Input{AddOns: []string{"pro_plus"}}, want: []string{"pro_plus", "included_geo_us"}},
		{name: "no region selected in EUR: the euro's default region", in: domain.Input{Currency: "EUR", AddOns: []string{"performance"}}, want: []string{"performance", "included_geo_eu"}},
		{name: "no region on the three-month plan: the default, as its radio choice", in: domain.Input{AddOns: []string{"hangar_basic_plus_three_month"}}, want: []string{"included_geo_us"}, regionMode: "radio"},
		{name: "no plan selected", in: domain.Input{AddOns: []string{"included_geo_us", "add_geo_eu"}}, errs: []string{rules.MsgSelectPlan}},
		{name: "unknown codes are reported", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us", "nope"}}, errs: []string{`Unknown add-on code "nope".`}},
		{name: "runway analysis in AUD for a listed aircraft", in: domain.Input{Currency: "AUD", AddOns: []string{"performance", "included_geo_us", "runway_tp_beechcraft"}}, want: []string{"runway_tp_beechcraft"}},
		{name: "runway analysis in AUD for an unlisted aircraft", in: domain.Input{Currency: "AUD", AddOns: []string{"performance", "included_geo_us", "runway_jet_gulfstream"}}, errs: []string{"Runway Analysis — Gulfstream: Unavailable in AU$AUD"}},
		{name: "existing business subscriber asking for one licence", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us"}, Quantity: "1"},
			ex:   &domain.Subscription{ID: "s", PlanCode: "business_pro", AddOns: []string{"business_pro", "included_geo_us"}, Quantity: 5, Currency: "USD", Valid: true},
			errs: []string{"You are already subscribed under a business plan. Please contact sales@hangar.example if you would like to switch to an individual plan."}},
		{name: "existing military subscriber adding licences", in: domain.Input{Quantity: "3"},
			ex:   &domain.Subscription{ID: "s", PlanCode: "mfb_pro", AddOns: []string{"mfb_pro"}, Quantity: 1, Currency: "USD", Military: true, Valid: true},
			errs: []string{"Please contact sales@hangar.example to add licenses to your Military Flight Bag subscription."}},
		{name: "child account of a group", ex: &domain.Subscription{ID: "s", PlanCode: "pro_plus", AddOns: []string{"pro_plus", "included_geo_us"}, Quantity: 1, Currency: "USD", Valid: true, ParentAccountID: "p"}, errs: []string{rules.MsgChildAccount}},
		{name: "third-party controlled subscription", ex: &domain.Subscription{ID: "s", PlanCode: "mfb_pro", AddOns: []string{"mfb_pro"}, Quantity: 1, Currency: "USD", Valid: true, Military: true, PaymentSource: "THIRD_PARTY"}, errs: []string{rules.MsgThirdParty}},
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
			c := domaintest.Rules.Normalize(catalog(t), tc.in, tc.ex)
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
	t.Parallel()
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
			c := domaintest.Rules.Normalize(catalog(t), in, nil)
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

func TestValidation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   domain.Input
		want []string
	}{
		{name: "business needs licence agreement, EULA and organization", in: domain.Input{Email: "a@b.co", AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "3"},
			want: []string{rules.MsgPleaseConfirm, rules.MsgEula, rules.MsgOrganization}},
		{name: "logged-in business buyer in an organization needs no organization name", in: domain.Input{Email: "a@b.co", AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "3", LicenseChecked: true, EulaChecked: true,
			Caller: domain.Caller{LoggedIn: true, AccountID: "00000000-0000-4000-8000-0000000000aa", Email: "a@b.co", Organization: "00000000-0000-4000-8000-0000000000bb"}}},
		// Issue 27: the organization is created at checkout with the name the buyer gives.
		{name: "logged-in business buyer in no organization names the new one", in: domain.Input{Email: "a@b.co", AddOns: []string{"business_pro", "included_geo_us"}, Quantity: "3", LicenseChecked: true, EulaChecked: true,
			Caller: domain.Caller{LoggedIn: true, AccountID: "00000000-0000-4000-8000-0000000000aa", Email: "a@b.co"}}, want: []string{rules.MsgOrganization}},
		{name: "military with several licences needs the licence agreement", in: domain.Input{Email: "a@b.co", Military: true, Quantity: "3"}, want: []string{rules.MsgPleaseConfirm}},
		{name: "e-mail required", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us"}}, want: []string{rules.MsgEmail}},
		{name: "malformed e-mail", in: domain.Input{Email: "nope", AddOns: []string{"pro_plus", "included_geo_us"}}, want: []string{rules.MsgEmail}},
		{name: "complete individual purchase", in: domain.Input{Email: "a@b.co", AddOns: []string{"pro_plus", "included_geo_us"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := domaintest.Rules.Normalize(catalog(t), tc.in, nil)
			got := rules.ValidateConfiguration(c, tc.in)
			if !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("errors %q, want %q", got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name string
		p    rules.Payment
		want []string
	}{
		{name: "empty payment form", p: rules.Payment{RecaptchaRequired: true}, want: []string{rules.MsgCardBlank, rules.MsgNameBlank, rules.MsgPostalBlank, rules.MsgSelectCountry, rules.MsgHuman}},
		{name: "existing method needs postal code and country", p: rules.Payment{ExistingMethod: true}, want: []string{rules.MsgPostalBlank, rules.MsgSelectCountry}},
		{name: "complete card payment", p: rules.Payment{Nonce: "n", CardholderName: "Amelia Earhart", Zip: "94105", Country: "US"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rules.ValidatePayment(tc.p); !slices.Equal(got, tc.want) {
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
			if got := rules.MissingBillingInfo(tc.zip, tc.country, tc.who); got != tc.missing {
				t.Errorf("missing %v", got)
			}
		})
	}
}

// Issue 31: /pricing said Aeronautical Maps is included in Essential while checkout said it
// was "not available with Essential". A feature a cheaper plan of the group buys is included
// in the dearer plan, and checkout now says so; one no plan of the group buys is not
// available (featureStatus in web/libs/api-client reads forPlans the same way).
func TestFeatureForPlansIncludedOrNotAvailable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		plan, feature string
		kept          bool
		reason        string
	}{
		{"basic_plus", "vectormap", true, ""},
		{"pro_plus", "vectormap", false, "Aeronautical Maps is included with Essential"},
		{"performance", "syn_vis", false, "Synthetic Vision is included with Premium"},
		{"business_pro", "vectormap", false, "Aeronautical Maps is not available with Business Pro"},
		{"pro_plus", "syn_vis", true, ""},
	} {
		t.Run(tc.plan+"+"+tc.feature, func(t *testing.T) {
			c := domaintest.Rules.Normalize(catalog(t), domain.Input{AddOns: []string{tc.plan, "included_geo_us", tc.feature}, Quantity: "2"}, nil)
			if c.Has(tc.feature) != tc.kept {
				t.Fatalf("cart %v: has %s = %v, want %v", c.AddOns, tc.feature, c.Has(tc.feature), tc.kept)
			}
			if tc.kept {
				return
			}
			var reasons []string
			for _, a := range c.Adjustments {
				if a.Code == tc.feature {
					reasons = append(reasons, a.Reason)
				}
			}
			if !has(reasons, tc.reason) {
				t.Errorf("adjustments of %s %q, want %q", tc.feature, reasons, tc.reason)
			}
		})
	}
}
