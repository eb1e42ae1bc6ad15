package rules_test

import (
	"slices"
	"testing"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
	"github.com/hangar/hangar/services/checkout/internal/domain/rules"
)

// business is a Business Pro subscriber with five licences allocated to users, EFB Bridge
// allocated to users and a Pilatus runway analysis allocated to one tail.
func business() *domain.Subscription {
	s := pilot()
	s.ID, s.AccountID, s.Email, s.PlanCode, s.Quantity = "sub-2", "00000000-0000-4000-8000-000000000002", "owner@acme.hangar.test", "business_pro", 5
	s.AddOns = []string{"business_pro", "included_geo_us", "efb_bridge", "runway_tp_pilatus"}
	s.LicensingMethod, s.UsersAllocated = domain.LicensingUserAllocation, true
	s.AllocatedAddOns = []string{"efb_bridge"}
	s.Allocations = []domain.Allocation{{AddOnCodes: []string{"runway_tp_pilatus"}, TargetID: "N412AC", TargetType: "TAIL"}}
	return s
}

const me = "00000000-0000-4000-8000-0000000000aa"

func TestCallerAllocationsSectionsAndRunway(t *testing.T) {
	t.Parallel()
	aud, _ := catalog(t).Currency("AUD")
	for _, tc := range []struct {
		name  string
		in    domain.Input
		ex    *domain.Subscription
		check func(t *testing.T, c *domain.Cart)
	}{
		{name: "a logged-in caller's account and e-mail win over the configuration's",
			in: domain.Input{Email: "someone@else.com", AccountID: "00000000-0000-4000-8000-000000000001", Caller: domain.Caller{LoggedIn: true, AccountID: me, Email: "Me@Example.com"}},
			check: func(t *testing.T, c *domain.Cart) {
				if c.AccountID != me || c.Email != "Me@Example.com" || !c.EmailLocked || !c.LoggedIn {
					t.Errorf("%+v", c)
				}
			}},
		{name: "disableEmail locks the e-mail field", in: domain.Input{Email: "a@b.co", DisableEmail: true},
			check: func(t *testing.T, c *domain.Cart) {
				if !c.EmailLocked || c.LoggedIn || c.Email != "a@b.co" {
					t.Errorf("%+v", c)
				}
			}},
		{name: "a child account of a group gets CHILD_ACCOUNT_PURCHASE", in: domain.Input{Caller: domain.Caller{LoggedIn: true, AccountID: me, Email: "c@d.co", Child: true}},
			check: func(t *testing.T, c *domain.Cart) {
				if !has(c.PlanErrors, rules.MsgChildAccount) || !has(c.ErrorCodes, rules.CodeChildAccount) || len(c.PlanErrors) != 1 {
					t.Errorf("%v %v", c.PlanErrors, c.ErrorCodes)
				}
			}},
		{name: "a business downgrade is one Starter licence: nothing allocated is kept, no existing-business refusal (issue 27)", ex: business(),
			in: domain.Input{BusinessDowngrade: true},
			check: func(t *testing.T, c *domain.Cart) {
				if !slices.Equal(c.AddOns, []string{domain.DowngradePlan, "included_geo_us"}) || c.Quantity != 1 || len(c.LockedAddOns) != 0 || len(c.Errors) != 0 {
					t.Errorf("add-ons %v quantity %d locked %v errors %v", c.AddOns, c.Quantity, c.LockedAddOns, c.Errors)
				}
			}},
		{name: "regions are disabled while licences are allocated to users", ex: business(),
			in: domain.Input{AddOns: []string{"business_pro", "included_geo_eu", "add_geo_au", "efb_bridge", "runway_tp_pilatus"}, Quantity: "5"},
			check: func(t *testing.T, c *domain.Cart) {
				if !c.RegionsDisabled || !c.Has("included_geo_us") || c.Has("included_geo_eu") || c.Has("add_geo_au") {
					t.Errorf("%v disabled=%v", c.AddOns, c.RegionsDisabled)
				}
				if !slices.ContainsFunc(c.Adjustments, func(a domain.Adjustment) bool { return a.Reason == rules.MsgRegionsAllocated }) {
					t.Errorf("%v", c.Adjustments)
				}
			}},
		{name: "a product allocated to users cannot be toggled", ex: business(),
			in: domain.Input{AddOns: []string{"business_pro", "included_geo_us", "runway_tp_pilatus"}, Quantity: "5"},
			check: func(t *testing.T, c *domain.Cart) {
				if !c.Has("efb_bridge") || !has(c.LockedAddOns, "efb_bridge") {
					t.Errorf("%v locked=%v", c.AddOns, c.LockedAddOns)
				}
			}},
		{name: "dropping an allocated tail's add-on lists the allocation", ex: business(),
			in: domain.Input{AddOns: []string{"business_pro", "included_geo_us", "efb_bridge"}, Quantity: "5"},
			check: func(t *testing.T, c *domain.Cart) {
				if len(c.ExpiringAllocations) != 1 || c.ExpiringAllocations[0].TargetID != "N412AC" {
					t.Errorf("%+v", c.ExpiringAllocations)
				}
			}},
		{name: "keepExpiredAllocations keeps the allocated add-on", ex: business(),
			in: domain.Input{AddOns: []string{"business_pro", "included_geo_us", "efb_bridge"}, Quantity: "5", KeepExpiredAllocations: true},
			check: func(t *testing.T, c *domain.Cart) {
				if !c.Has("runway_tp_pilatus") || len(c.ExpiringAllocations) != 0 {
					t.Errorf("%v %+v", c.AddOns, c.ExpiringAllocations)
				}
			}},
		{name: "chart-provider IFR section for a Plus plan", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us", "jepp_us"}},
			check: func(t *testing.T, c *domain.Cart) {
				if !c.ChartIfrVisible || !c.MilitarySuppVisible || !c.Has("jepp_us") {
					t.Errorf("%v ifr=%v supp=%v", c.AddOns, c.ChartIfrVisible, c.MilitarySuppVisible)
				}
			}},
		{name: "selecting IFR charts switches an upsell plan to the Plus plan", in: domain.Input{AddOns: []string{"basic", "included_geo_us", "jepp_us"}},
			check: func(t *testing.T, c *domain.Cart) {
				if c.Plan.Code != "basic_plus" || !c.Has("jepp_us") || c.Has("basic") {
					t.Errorf("%v", c.AddOns)
				}
			}},
		{name: "an upsell plan without charts stays", in: domain.Input{AddOns: []string{"basic", "included_geo_us"}},
			check: func(t *testing.T, c *domain.Cart) {
				if c.Plan.Code != "basic" || c.ChartIfrVisible || c.MilitarySuppVisible {
					t.Errorf("%v ifr=%v", c.AddOns, c.ChartIfrVisible)
				}
			}},
		{name: "military supplements only for an individual Plus plan", in: domain.Input{AddOns: []string{"business_pro", "included_geo_us", "jepp_mil_supp_us"}, Quantity: "3"},
			check: func(t *testing.T, c *domain.Cart) {
				if c.MilitarySuppVisible || c.Has("jepp_mil_supp_us") || !c.ChartIfrVisible {
					t.Errorf("%v supp=%v", c.AddOns, c.MilitarySuppVisible)
				}
			}},
		{name: "military with one licence sees the chart-provider section", in: domain.Input{MilitaryIntl: true, AddOns: []string{"mfb_pro_intl", "jepp_mil_supp_europe_intl"}},
			check: func(t *testing.T, c *domain.Cart) {
				if !c.ChartIfrVisible || !c.Has("jepp_mil_supp_europe_intl") {
					t.Errorf("%v ifr=%v", c.AddOns, c.ChartIfrVisible)
				}
			}},
		{name: "military with two licences does not", in: domain.Input{MilitaryIntl: true, AddOns: []string{"mfb_pro_intl", "jepp_mil_supp_europe_intl"}, Quantity: "2"},
			check: func(t *testing.T, c *domain.Cart) {
				if c.ChartIfrVisible || c.Has("jepp_mil_supp_europe_intl") {
					t.Errorf("%v ifr=%v", c.AddOns, c.ChartIfrVisible)
				}
			}},
		{name: "isBYOP starts from the bring-your-own-panel plan", in: domain.Input{IsBYOP: true},
			check: func(t *testing.T, c *domain.Cart) {
				if c.Plan.Code != domain.BYOPStartPlan || !c.Has("included_geo_us") {
					t.Errorf("%v", c.AddOns)
				}
			}},
		{name: "an active chart-provider account disables the coverages", in: domain.Input{AddOns: []string{"pro_plus", "included_geo_us", "jepp_us"}, JeppAccountActive: true},
			check: func(t *testing.T, c *domain.Cart) {
				if !c.ChartsDisabled || c.Has("jepp_us") {
					t.Errorf("%v", c.AddOns)
				}
			}},
		{name: "runway analysis covers only aircraft of the purchased model", in: domain.Input{AddOns: []string{"performance", "included_geo_us", "runway_tp_pilatus"}, RunwayAircraft: []string{"pilatus_pc12_ngx", "pilatus_pc24"}},
			check: func(t *testing.T, c *domain.Cart) {
				if !has(c.Errors, rules.MsgRunwayNotCovered("PC-24")) || len(c.Errors) != 1 {
					t.Errorf("%v", c.Errors)
				}
			}},
		{name: "runway analysis in AUD only for the AUD-priced aircraft", in: domain.Input{Currency: "AUD", AddOns: []string{"performance", "included_geo_us", "runway_tp_pilatus"}, RunwayAircraft: []string{"pilatus_pc12_ngx", "pilatus_pc6_porter"}},
			check: func(t *testing.T, c *domain.Cart) {
				if want := "PC-6 Porter: Unavailable in AU$AUD"; !has(c.Errors, want) || len(c.Errors) != 1 || rules.MsgUnavailableIn("PC-6 Porter", aud) != want {
					t.Errorf("%v", c.Errors)
				}
			}},
		{name: "HondaJet bundle in AUD only for an AUD-priced model", in: domain.Input{Bundle: true, Currency: "AUD", AddOns: []string{"honda_jet_bundle_elite"}},
			check: func(t *testing.T, c *domain.Cart) {
				if !has(c.Errors, "HondaJet Elite Runway Analysis: Unavailable in AU$AUD") {
					t.Errorf("%v", c.Errors)
				}
			}},
		{name: "HondaJet bundle in AUD with the Elite II", in: domain.Input{Bundle: true, Currency: "AUD", AddOns: []string{"honda_jet_bundle_elite_ii"}, RunwayAircraft: []string{"hondajet_elite_ii"}},
			check: func(t *testing.T, c *domain.Cart) {
				if len(c.Errors)+len(c.SelectionErrors) != 0 {
					t.Errorf("%v %v", c.Errors, c.SelectionErrors)
				}
			}},
		{name: "HondaJet bundle covers only the chosen model", in: domain.Input{Bundle: true, AddOns: []string{"honda_jet_bundle_elite"}, RunwayAircraft: []string{"hondajet_elite_s"}},
			check: func(t *testing.T, c *domain.Cart) {
				if !has(c.Errors, rules.MsgRunwayNotCovered("HondaJet Elite S")) {
					t.Errorf("%v", c.Errors)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, domaintest.Rules.Normalize(catalog(t), tc.in, tc.ex))
		})
	}
}

func TestValidationOfConsentCaptchaAndAllocations(t *testing.T) {
	t.Parallel()
	base := domain.Input{Email: "a@b.co", AddOns: []string{"performance", "included_geo_us"}}
	with := func(f func(in *domain.Input)) domain.Input { in := base; f(&in); return in }
	for _, tc := range []struct {
		name  string
		r     rules.Rules
		in    domain.Input
		ex    *domain.Subscription
		want  string
		clean bool
	}{
		{name: "an EU billing country needs the EU consent", in: with(func(in *domain.Input) { in.Country = "DE" }), want: rules.MsgEuConsent},
		{name: "an EU customer elsewhere needs it too", in: with(func(in *domain.Input) { in.Country = "US"; in.EuCustomer = true }), want: rules.MsgEuConsent},
		{name: "consent given", in: with(func(in *domain.Input) { in.Country = "FR"; in.GdprCompliant = true }), clean: true},
		{name: "captcha required and missing", r: rules.Rules{RecaptchaRequired: true}, in: base, want: "Please verify you are a human."},
		{name: "captcha required and given", r: rules.Rules{RecaptchaRequired: true}, in: with(func(in *domain.Input) { in.RecaptchaValue = "tok" }), clean: true},
		{name: "ending allocations must be acknowledged", ex: business(), want: rules.MsgAllocationsExpire,
			in: domain.Input{AddOns: []string{"business_pro", "included_geo_us", "efb_bridge"}, Quantity: "5", LicenseChecked: true, EulaChecked: true}},
		{name: "acknowledged allocations expire", ex: business(), clean: true,
			in: domain.Input{AddOns: []string{"business_pro", "included_geo_us", "efb_bridge"}, Quantity: "5", LicenseChecked: true, EulaChecked: true,
				ExpiredAllocations: []domain.Allocation{{TargetID: "N412AC", TargetType: "TAIL"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := catalog(t)
			got := tc.r.Validate(tc.r.Normalize(c, tc.in, tc.ex), tc.in)
			if tc.clean && len(got) != 0 || !tc.clean && !has(got, tc.want) {
				t.Errorf("got %v, want %q (clean %v)", got, tc.want, tc.clean)
			}
		})
	}
}
