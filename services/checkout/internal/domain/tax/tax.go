// Package tax answers the tax that applies to an invoice: US statewide sales tax by ZIP,
// Canadian GST/HST/PST by postal code, EU VAT with the business reverse charge, UK VAT and
// Australian GST.
package tax

import (
	"regexp"
	"strings"

	"github.com/hangar/hangar/services/checkout/internal/domain"
)

// RatesDate is the date the rates table below was taken from its sources: US statewide
// base sales-tax rates (local rates not included), Canadian GST/HST/PST, EU standard VAT
// rates, UK VAT and Australian GST in force on that date. A rate change is a code change
// with a new date, reviewed like any price change.
const RatesDate = "2025-01-01"

// Component is one tax of a jurisdiction; Rate is in parts per million of the base.
type Component struct {
	Name string
	PPM  int64
}

// Rule is what applies to an invoice.
type Rule struct {
	Jurisdiction  string // "US-CA", "CA-ON", "DE", "GB", "AU", "" when none applies
	Label         string // 'Tax' for US and CA, otherwise 'VAT'
	Components    []Component
	ReverseCharge bool
}

// PPM answers the combined rate.
func (t Rule) PPM() int64 {
	var n int64
	for _, c := range t.Components {
		n += c.PPM
	}
	return n
}

// Amount is the tax on base: each component rounded half up once per invoice on the
// taxable base (never per line), so the total tax never drifts with the number of lines.
func (t Rule) Amount(base int64) int64 {
	if base <= 0 || t.ReverseCharge {
		return 0
	}
	var sum int64
	for _, c := range t.Components {
		sum += domain.RoundHalfUp(base*c.PPM, 1_000_000)
	}
	return sum
}

func pct(p float64) int64 { return int64(p*10_000 + 0.5) }

// usStateRates are statewide base sales-tax rates (RatesDate).
var usStateRates = map[string]int64{
	"AL": pct(4), "AK": 0, "AZ": pct(5.6), "AR": pct(6.5), "CA": pct(7.25), "CO": pct(2.9), "CT": pct(6.35),
	"DE": 0, "DC": pct(6), "FL": pct(6), "GA": pct(4), "HI": pct(4), "ID": pct(6), "IL": pct(6.25), "IN": pct(7),
	"IA": pct(6), "KS": pct(6.5), "KY": pct(6), "LA": pct(5), "ME": pct(5.5), "MD": pct(6), "MA": pct(6.25),
	"MI": pct(6), "MN": pct(6.875), "MS": pct(7), "MO": pct(4.225), "MT": 0, "NE": pct(5.5), "NV": pct(6.85),
	"NH": 0, "NJ": pct(6.625), "NM": pct(4.875), "NY": pct(4), "NC": pct(4.75), "ND": pct(5), "OH": pct(5.75),
	"OK": pct(4.5), "OR": 0, "PA": pct(6), "RI": pct(7), "SC": pct(6), "SD": pct(4.2), "TN": pct(7),
	"TX": pct(6.25), "UT": pct(6.1), "VT": pct(6), "VA": pct(5.3), "WA": pct(6.5), "WV": pct(6), "WI": pct(5),
	"WY": pct(4),
}

// zip3 maps the first three ZIP digits to a state: [from, to, state].
var zip3 = []struct {
	from, to int
	state    string
}{
	{5, 5, "NY"}, {10, 27, "MA"}, {28, 29, "RI"}, {30, 38, "NH"}, {39, 49, "ME"}, {50, 54, "VT"}, {55, 55, "MA"},
	{56, 59, "VT"}, {60, 69, "CT"}, {70, 89, "NJ"}, {100, 149, "NY"}, {150, 196, "PA"}, {197, 199, "DE"},
	{200, 200, "DC"}, {201, 201, "VA"}, {202, 205, "DC"}, {206, 219, "MD"}, {220, 246, "VA"}, {247, 268, "WV"},
	{270, 289, "NC"}, {290, 299, "SC"}, {300, 319, "GA"}, {320, 339, "FL"}, {341, 349, "FL"}, {350, 369, "AL"},
	{370, 385, "TN"}, {386, 397, "MS"}, {398, 399, "GA"}, {400, 427, "KY"}, {430, 459, "OH"}, {460, 479, "IN"},
	{480, 499, "MI"}, {500, 528, "IA"}, {530, 549, "WI"}, {550, 567, "MN"}, {569, 569, "DC"}, {570, 577, "SD"},
	{580, 588, "ND"}, {590, 599, "MT"}, {600, 629, "IL"}, {630, 658, "MO"}, {660, 679, "KS"}, {680, 693, "NE"},
	{700, 715, "LA"}, {716, 729, "AR"}, {730, 749, "OK"}, {750, 799, "TX"}, {800, 816, "CO"}, {820, 831, "WY"},
	{832, 838, "ID"}, {840, 847, "UT"}, {850, 865, "AZ"}, {870, 884, "NM"}, {885, 885, "TX"}, {889, 898, "NV"},
	{900, 961, "CA"}, {967, 968, "HI"}, {970, 979, "OR"}, {980, 994, "WA"}, {995, 999, "AK"},
}

// StateFromZIP answers the US state of a ZIP code, or "".
func StateFromZIP(zip string) string {
	zip = strings.TrimSpace(zip)
	if len(zip) < 3 {
		return ""
	}
	n := 0
	for _, r := range zip[:3] {
		if r < '0' || r > '9' {
			return ""
		}
		n = n*10 + int(r-'0')
	}
	for _, z := range zip3 {
		if n >= z.from && n <= z.to {
			return z.state
		}
	}
	return ""
}

// ProvinceFromPostal answers the Canadian province or territory of a postal code by its
// first letter, or "".
func ProvinceFromPostal(postal string) string {
	postal = strings.ToUpper(strings.TrimSpace(postal))
	if postal == "" {
		return ""
	}
	switch postal[0] {
	case 'A':
		return "NL"
	case 'B':
		return "NS"
	case 'C':
		return "PE"
	case 'E':
		return "NB"
	case 'G', 'H', 'J':
		return "QC"
	case 'K', 'L', 'M', 'N', 'P':
		return "ON"
	case 'R':
		return "MB"
	case 'S':
		return "SK"
	case 'T':
		return "AB"
	case 'V':
		return "BC"
	case 'X':
		return "NT"
	case 'Y':
		return "YT"
	}
	return ""
}

var (
	caGST = Component{"GST", pct(5)}
	caHST = map[string]int64{"ON": pct(13), "NB": pct(15), "NL": pct(15), "NS": pct(15), "PE": pct(15)}
	caPST = map[string]Component{"BC": {"PST", pct(7)}, "MB": {"RST", pct(7)}, "SK": {"PST", pct(6)}, "QC": {"QST", pct(9.975)}}
)

// euVAT are the EU standard VAT rates (RatesDate).
var euVAT = map[string]int64{
	"AT": pct(20), "BE": pct(21), "BG": pct(20), "HR": pct(25), "CY": pct(19), "CZ": pct(21), "DK": pct(25),
	"EE": pct(22), "FI": pct(25.5), "FR": pct(20), "DE": pct(19), "GR": pct(24), "HU": pct(27), "IE": pct(23),
	"IT": pct(22), "LV": pct(21), "LT": pct(21), "LU": pct(17), "MT": pct(18), "NL": pct(21), "PL": pct(23),
	"PT": pct(23), "RO": pct(19), "SK": pct(23), "SI": pct(22), "ES": pct(21), "SE": pct(25),
}

var vatIDRe = regexp.MustCompile(`^([A-Z]{2})?([0-9A-Z+*]{2,12})$`)

// ValidBusinessIDFormat reports whether a business (VAT) id has the EU format for its
// country: an optional two-letter prefix equal to the country (EL for Greece) and 2–12
// letters or digits with at least one digit. It checks the format only, not the registry.
func ValidBusinessIDFormat(id, country string) bool {
	id = strings.ToUpper(strings.NewReplacer(" ", "", ".", "", "-", "").Replace(id))
	m := vatIDRe.FindStringSubmatch(id)
	if m == nil || !strings.ContainsAny(m[2], "0123456789") {
		return false
	}
	if m[1] != "" {
		want := country
		if country == "GR" {
			want = "EL"
		}
		return m[1] == want
	}
	return true
}

// For answers the tax rule for a billing country, postal code and business id. The
// country falls back to the currency's default country.
func For(country, postal, businessID string, cur domain.Currency) Rule {
	if country == "" {
		country = cur.DefaultCountry
	}
	switch {
	case country == "US":
		st := StateFromZIP(postal)
		if st == "" {
			return Rule{Label: "Tax"}
		}
		return Rule{Jurisdiction: "US-" + st, Label: "Tax", Components: []Component{{"Sales tax", usStateRates[st]}}}
	case country == "CA":
		pr := ProvinceFromPostal(postal)
		if pr == "" {
			return Rule{Label: "Tax"}
		}
		t := Rule{Jurisdiction: "CA-" + pr, Label: "Tax"}
		if h, ok := caHST[pr]; ok {
			t.Components = []Component{{"HST", h}}
			return t
		}
		t.Components = []Component{caGST}
		if p, ok := caPST[pr]; ok {
			t.Components = append(t.Components, p)
		}
		return t
	case country == "GB":
		return Rule{Jurisdiction: "GB", Label: "VAT", Components: []Component{{"VAT", pct(20)}}}
	case country == "AU":
		return Rule{Jurisdiction: "AU", Label: "VAT", Components: []Component{{"GST", pct(10)}}}
	}
	if r, ok := euVAT[country]; ok {
		t := Rule{Jurisdiction: country, Label: "VAT", Components: []Component{{"VAT", r}}}
		if businessID != "" && ValidBusinessIDFormat(businessID, country) {
			t.ReverseCharge = true // the business customer accounts for the VAT
		}
		return t
	}
	return Rule{Label: "VAT"}
}

// IsEUCountry reports whether an ISO country code is an EU member state.
func IsEUCountry(country string) bool {
	_, ok := euVAT[strings.ToUpper(strings.TrimSpace(country))]
	return ok
}
