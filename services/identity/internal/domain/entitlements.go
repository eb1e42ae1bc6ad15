package domain

import "strings"

// Entitlement is an account's subscription as checkout last reported it.
type Entitlement struct {
	SubscriptionID, PlanCode, Status string
	AddOns                           []string
	Version                          int64
}

// AccountEntitlement is an entitlement as one subscription-changed event reports it.
type AccountEntitlement struct {
	Account string
	Entitlement
}

// EntitlementFlags answers the /buy/api/me flags (their JSON names) a subscription grants:
// the plan flag of its plan (Premium is performance_plus), the data regions of its regions,
// and the feature, tracking and military flags of its add-ons. Flags not named are false.
func EntitlementFlags(plan string, addOns []string, active bool) map[string]bool {
	out := map[string]bool{}
	if !active {
		return out
	}
	planFlag := map[string]string{"basic_plus": "basic_plus", "pro_plus": "pro_plus", "performance": "performance_plus",
		"business_pro": "business_pro", "business_performance": "business_performance", "mfb_pro": "mfb_pro",
		"mfb_performance": "mfb_performance", "mfb_pro_intl": "mfb_pro_intl", "mfb_one": "mfb_one", "mfb_one_intl": "mfb_one",
		"mfb_perf_intl": "mfb_perf_intl"}
	if f, ok := planFlag[plan]; ok {
		out[f] = true
	}
	if strings.HasPrefix(plan, "mfb") {
		out["mfb"] = true
	}
	if plan == "performance" || plan == "business_performance" || plan == "mfb_performance" || plan == "mfb_perf_intl" {
		out["performance_planning"] = true
	}
	for _, code := range append([]string{plan}, addOns...) {
		switch {
		case strings.HasSuffix(code, "geo_us"):
			out["data_us"] = true
		case strings.HasSuffix(code, "geo_eu"):
			out["data_eu"] = true
		case strings.HasSuffix(code, "geo_au"):
			out["data_au"] = true
		case code == "weightbalance":
			out["weightbalance_flights"] = true
		case strings.HasPrefix(code, "runway_"):
			out["runway_analysis_tools"] = true
		case strings.HasPrefix(code, "dispatch"):
			out["dispatch_tools"] = true
		case code == "flight_tracking_global":
			out["flight_tracking"], out["flight_tracking_global"] = true, true
		case strings.HasPrefix(code, "flight_tracking"):
			out["flight_tracking"] = true
		}
	}
	return out
}
