package domain_test

import (
	"testing"

	"github.com/hangar/hangar/services/identity/internal/domain"
)

func TestEntitlementFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		plan    string
		addOns  []string
		active  bool
		want    []string
		notWant []string
	}{
		{"performance", []string{"performance", "included_geo_us", "add_geo_eu"}, true,
			[]string{"performance_plus", "performance_planning", "data_us", "data_eu"}, []string{"pro_plus", "mfb", "data_au"}},
		{"pro_plus", []string{"pro_plus", "included_geo_au", "weightbalance"}, true, []string{"pro_plus", "data_au", "weightbalance_flights"}, []string{"performance_plus"}},
		{"mfb_pro", []string{"mfb_pro"}, true, []string{"mfb_pro", "mfb"}, []string{"performance_planning"}},
		{"business_pro", []string{"business_pro", "runway_tp_pilatus", "flight_tracking"}, true, []string{"business_pro", "runway_analysis_tools", "flight_tracking"}, nil},
		{"performance", []string{"performance"}, false, nil, []string{"performance_plus"}},
	}
	for _, c := range cases {
		got := domain.EntitlementFlags(c.plan, c.addOns, c.active)
		for _, f := range c.want {
			if !got[f] {
				t.Errorf("%s %v: %s not set (%v)", c.plan, c.addOns, f, got)
			}
		}
		for _, f := range c.notWant {
			if got[f] {
				t.Errorf("%s %v: %s set", c.plan, c.addOns, f)
			}
		}
	}
}
