package domain_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/catalog/data"
	"github.com/hangar/hangar/services/catalog/internal/domain"
)

func shipped(t *testing.T) *domain.Catalog {
	t.Helper()
	cat, err := domain.Parse(data.Catalog)
	if err != nil {
		t.Fatalf("Parse(catalog.yaml) = %v", err)
	}
	return cat
}

func usd(t *testing.T, cat *domain.Catalog, code string) int64 {
	t.Helper()
	e, ok := cat.Entry(code)
	if !ok {
		t.Fatalf("entry %s missing", code)
	}
	p, ok := e.Price["USD"]
	if !ok || p.Included {
		t.Fatalf("entry %s: no USD amount (%+v)", code, p)
	}
	return p.AmountInCents
}

// The USD prices of spec 000 §9, exactly.
func TestShippedUSDPricesMatchSpec(t *testing.T) {
	t.Parallel()
	cat := shipped(t)
	for code, want := range map[string]int64{
		"basic_plus": 12500, "pro_plus": 19999, "performance": 37000,
		"basic": 7499, "pro": 14999,
		"business_pro": 25000, "business_performance": 37000, "basic_us": 15000,
		"honda_jet_bundle": 317560,
		"mfb_pro":          20000, "mfb_performance": 30000, "mfb_one": 30000,
		"mfb_pro_intl": 30000, "mfb_perf_intl": 30000, "mfb_one_intl": 30000,
		"add_geo_us": 10000, "add_geo_eu": 10000, "add_geo_nz": 10000,
		"vectormap": 2500, "syn_vis": 2500, "checklist": 2500, "logbook": 5000, "weightbalance": 1500, "flarm_decode": 5000,
		"jepp_eu_vfr": 11000, "jepp_de_vfr": 5500, "jepp_fr_vfr": 5500,
	} {
		t.Run(code, func(t *testing.T) {
			if got := usd(t, cat, code); got != want {
				t.Errorf("USD price of %s = %d, want %d", code, got, want)
			}
		})
	}
	threeMonth := 0
	for _, e := range cat.AllEntries() {
		if strings.HasSuffix(e.AddOnCode, "_basic_plus_three_month") {
			threeMonth++
			if e.Price["USD"].AmountInCents != 4999 || e.DurationMonths != 3 {
				t.Errorf("three-month plan %s: USD %d, %d months; want 4999, 3", e.AddOnCode, e.Price["USD"].AmountInCents, e.DurationMonths)
			}
		}
		if e.Runway != nil && e.Runway.Kind != "bundle" {
			switch e.Price["USD"].AmountInCents {
			case 71200, 16000, 142400:
			default:
				t.Errorf("runway package %s: USD %d, want 712, 160 or 1424 dollars", e.AddOnCode, e.Price["USD"].AmountInCents)
			}
		}
		if e.Title == "Active Navlog" && e.Price["USD"].AmountInCents != 24000 {
			t.Errorf("Active Navlog: USD %d, want 24000", e.Price["USD"].AmountInCents)
		}
	}
	if threeMonth != 1 {
		t.Errorf("found %d three-month plans, want 1", threeMonth)
	}
}

// Other currencies follow the documented rule (docs/catalog-data.md): whole units of
// USD × rate, rounded half up, minus one cent when the USD price ends in .99.
func TestShippedPricesFollowCurrencyRule(t *testing.T) {
	t.Parallel()
	cat := shipped(t)
	rate := map[string]int64{}
	for _, c := range cat.Currencies() {
		rate[c.Code] = int64(c.RateBasisPoints)
	}
	derive := func(u, bp int64) int64 {
		whole := (u*bp + 500_000) / 1_000_000 // cents × bp / 10000 / 100, half up
		if u%100 == 99 {
			return whole*100 - 1
		}
		return whole * 100
	}
	check := func(what string, prices map[string]domain.Price) {
		base, ok := prices["USD"]
		if !ok {
			t.Errorf("%s: no USD price", what)
			return
		}
		for cur, bp := range rate {
			p, ok := prices[cur]
			if !ok {
				t.Errorf("%s: no %s price", what, cur)
				continue
			}
			if base.Included || p.Included {
				if base.Included != p.Included {
					t.Errorf("%s: USD included=%v but %s included=%v", what, base.Included, cur, p.Included)
				}
				continue
			}
			if cur == "USD" {
				continue
			}
			if want := derive(base.AmountInCents, bp); p.AmountInCents != want {
				t.Errorf("%s: %s %d, want %d (from USD %d)", what, cur, p.AmountInCents, want, base.AmountInCents)
			}
		}
	}
	for _, e := range cat.AllEntries() {
		check(e.AddOnCode, e.Price)
		for _, tier := range e.ScheduledPrices {
			check(e.AddOnCode+" tier", tier.Price)
		}
	}
	if got := derive(19999, 13500); got != 26999 {
		t.Errorf("derive(199.99 USD → CAD) = %d, want 26999", got)
	}
}

func TestShippedCatalogueCoversSpec(t *testing.T) {
	t.Parallel()
	cat := shipped(t)
	groups := map[string]bool{}
	for _, g := range cat.AvailablePlans() {
		groups[g.Group.Code] = true
		for _, e := range g.Entries {
			if e.Deprecated {
				t.Errorf("available plans list deprecated %s", e.AddOnCode)
			}
		}
	}
	for _, g := range []string{"NATIONAL_VFR_PACKAGES", "MILITARY", "REGIONS", "JEPPESEN_PLANS", "WEB_JEPPESEN_PLANS",
		"JEPPESEN_MILITARY_SUPPLEMENT_PLANS_APP", "JEPPESEN_MILITARY_SUPPLEMENT_PLANS_WEB", "ALL_JEPPESEN_EU_CHART", "BUSINESS_FEATURES"} {
		if !groups[g] {
			t.Errorf("available plans lack group %s", g)
		}
	}
	codes := []string{"vectormap", "syn_vis", "checklist", "logbook", "weightbalance", "flarm_decode",
		"jepp_northern_europe", "jepp_trans_atlantic", "mfb", "mfb_old", "pro_us", "pro_ca", "business_geo_us", "business_geo_ca",
		"skyguide_ch", "rogers_full_eu_vfr", "ign_fr_vfr", "airmillion", "dfs_eu_vfr", "dfs_de_bundle", "nats_uk_vfr"}
	for _, r := range []string{"us", "ca", "eu", "af", "as", "au", "la", "ms", "nz"} {
		codes = append(codes, "included_geo_"+r, "add_geo_"+r)
	}
	if _, err := cat.Entries(codes); err != nil {
		t.Errorf("Entries(spec codes) = %v", err)
	}
	// Legacy replacement targets (spec 000 §4).
	for code, want := range map[string]string{"basic": "basic_plus", "pro_us": "pro_plus", "pro_ca": "pro_plus"} {
		if e, _ := cat.Entry(code); e == nil || e.ReplacedBy != want {
			t.Errorf("%s replacedBy = %v, want %s", code, e, want)
		}
	}
	for _, code := range []string{"mfb_pro", "mfb_performance", "mfb", "mfb_old", "basic_us", "pro_us", "pro_ca", "business_geo_us", "business_geo_ca"} {
		if e, _ := cat.Entry(code); e == nil || !e.NoRegionSelection {
			t.Errorf("%s should not be available for region selection", code)
		}
	}
	aud := 0
	for _, a := range cat.Document().Aircraft {
		if a.AUDPriced {
			aud++
		}
	}
	if aud != 27 {
		t.Errorf("%d aircraft priced in AUD, want 27", aud)
	}
	if n := len(cat.Document().EuropeanCountries); n != 46 {
		t.Errorf("%d European country codes, want 46", n)
	}
	defaults := map[string]string{"USD": "included_geo_us", "AUD": "included_geo_us", "CAD": "included_geo_ca", "EUR": "included_geo_eu", "GBP": "included_geo_eu"}
	for _, c := range cat.Currencies() {
		if defaults[c.Code] != c.DefaultRegion {
			t.Errorf("%s default region %s, want %s", c.Code, c.DefaultRegion, defaults[c.Code])
		}
	}
}

func TestLookupsRejectBadInput(t *testing.T) {
	t.Parallel()
	cat := shipped(t)
	_, err := cat.Currency("XYZ")
	if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), `"XYZ"`) {
		t.Errorf("Currency(XYZ) = %v, want invalid naming XYZ", err)
	}
	if c, err := cat.Currency("eur"); err != nil || c.Code != "EUR" {
		t.Errorf("Currency(eur) = %v, %v; want EUR", c, err)
	}
	_, err = cat.Entries([]string{"pro_plus", "no_such", "nor_this"})
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.Invalid || !strings.Contains(e.Message, "no_such, nor_this") {
		t.Errorf("Entries(unknown) = %v, want invalid naming both codes", err)
	}
	if _, err := cat.Avionics("garmin", "nope"); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("Avionics(unknown) = %v, want not found", err)
	}
}

func TestScheduledPriceTiers(t *testing.T) {
	t.Parallel()
	cat := shipped(t)
	bp, _ := cat.Entry("business_pro")
	usdCur, _ := cat.Currency("USD")
	prev := int64(1 << 62)
	for _, q := range []int{2, 9, 10, 24, 25, 49, 50, 100} {
		p, tier, err := cat.ScheduledPrice(bp, q, usdCur)
		if err != nil {
			t.Fatalf("ScheduledPrice(%d) = %v", q, err)
		}
		if tier > q || p.AmountInCents > prev {
			t.Errorf("ScheduledPrice(%d) = %d at tier %d; prices must not rise with quantity", q, p.AmountInCents, tier)
		}
		prev = p.AmountInCents
	}
	if p, _, _ := cat.ScheduledPrice(bp, 2, usdCur); p.AmountInCents != 25000 {
		t.Errorf("business_pro at 2 = %d, want list price 25000", p.AmountInCents)
	}
}

func TestParseRejectsBrokenData(t *testing.T) {
	t.Parallel()
	base := `version: "t1"
currencies: [{code: USD, symbol: "$", rateBasisPoints: 10000, default: true}]
groups: [{code: G, title: G}]
`
	for name, tc := range map[string]struct{ doc, want string }{
		"unknown key":         {base + "entries: [{addOnCode: a, title: A, group: G, category: PLAN, planType: individual, order: 1, price: {USD: 1}, titel: x}]", "unknown field"},
		"duplicate code":      {base + "entries: [{addOnCode: a, title: A, group: G, price: {USD: 1}}, {addOnCode: a, title: B, group: G, price: {USD: 1}}]", "listed twice"},
		"unknown group":       {base + "entries: [{addOnCode: a, title: A, group: H, price: {USD: 1}}]", `unknown group "H"`},
		"dangling exclude":    {base + "entries: [{addOnCode: a, title: A, group: G, price: {USD: 1}, exclude: [zz]}]", `unknown code "zz"`},
		"unknown currency":    {base + "entries: [{addOnCode: a, title: A, group: G, price: {USD: 1, XXX: 2}}]", "unknown currency XXX"},
		"negative price":      {base + "entries: [{addOnCode: a, title: A, group: G, price: {USD: -1}}]", "negative"},
		"bad price word":      {base + "entries: [{addOnCode: a, title: A, group: G, price: {USD: free}}]", `"free"`},
		"no default currency": {`version: "t"` + "\ncurrencies: [{code: USD, symbol: $}]\ngroups: []\n", "default currency"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := domain.Parse([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse() = %v, want error containing %q", err, tc.want)
			}
		})
	}
}

// One-off products (issue 12): their own available-plans group, planType oneOff, priced in
// every currency, never hidden or deprecated, and only in that group.
func TestShippedOneOffProducts(t *testing.T) {
	t.Parallel()
	cat := shipped(t)
	var group []string
	for _, g := range cat.AvailablePlans() {
		for _, e := range g.Entries {
			if (g.Group.Code == "ONE_OFF_PRODUCTS") != (e.PlanType == "oneOff") {
				t.Errorf("%s (planType %s) is in group %s", e.AddOnCode, e.PlanType, g.Group.Code)
			}
			if g.Group.Code == "ONE_OFF_PRODUCTS" {
				group = append(group, e.AddOnCode)
				for _, cur := range cat.Currencies() {
					if p, ok := e.Price[cur.Code]; !ok || p.Included || p.AmountInCents <= 0 {
						t.Errorf("%s: no %s price (%+v)", e.AddOnCode, cur.Code, p)
					}
				}
			}
		}
	}
	for _, want := range []string{"oneoff_dbcard_garmin_sd", "oneoff_dbcard_avidyne_usb", "oneoff_chartpack_us_vfr",
		"oneoff_chartpack_eu_vfr", "oneoff_adsb_receiver", "oneoff_course_instrument"} {
		if !slices.Contains(group, want) {
			t.Errorf("ONE_OFF_PRODUCTS lacks %s (has %v)", want, group)
		}
	}
}
