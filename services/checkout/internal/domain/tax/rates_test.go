package tax_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
)

func pct(p float64) int64 { return int64(p*10_000 + 0.5) }

// The Go tables the rates file replaced (TaxRatesDate 2025-01-01), as they were.
var (
	usStateRates = map[string]int64{
		"AL": pct(4), "AK": 0, "AZ": pct(5.6), "AR": pct(6.5), "CA": pct(7.25), "CO": pct(2.9), "CT": pct(6.35),
		"DE": 0, "DC": pct(6), "FL": pct(6), "GA": pct(4), "HI": pct(4), "ID": pct(6), "IL": pct(6.25), "IN": pct(7),
		"IA": pct(6), "KS": pct(6.5), "KY": pct(6), "LA": pct(5), "ME": pct(5.5), "MD": pct(6), "MA": pct(6.25),
		"MI": pct(6), "MN": pct(6.875), "MS": pct(7), "MO": pct(4.225), "MT": 0, "NE": pct(5.5), "NV": pct(6.85),
		"NH": 0, "NJ": pct(6.625), "NM": pct(4.875), "NY": pct(4), "NC": pct(4.75), "ND": pct(5), "OH": pct(5.75),
		"OK": pct(4.5), "OR": 0, "PA": pct(6), "RI": pct(7), "SC": pct(6), "SD": pct(4.2), "TN": pct(7),
		"TX": pct(6.25), "UT": pct(6.1), "VT": pct(6), "VA": pct(5.3), "WA": pct(6.5), "WV": pct(6), "WI": pct(5),
		"WY": pct(4),
	}
	caGST = tax.Component{Name: "GST", PPM: pct(5)}
	caHST = map[string]int64{"ON": pct(13), "NB": pct(15), "NL": pct(15), "NS": pct(15), "PE": pct(15)}
	caPST = map[string]tax.Component{"BC": {Name: "PST", PPM: pct(7)}, "MB": {Name: "RST", PPM: pct(7)}, "SK": {Name: "PST", PPM: pct(6)}, "QC": {Name: "QST", PPM: pct(9.975)}}
	euVAT = map[string]int64{
		"AT": pct(20), "BE": pct(21), "BG": pct(20), "HR": pct(25), "CY": pct(19), "CZ": pct(21), "DK": pct(25),
		"EE": pct(22), "FI": pct(25.5), "FR": pct(20), "DE": pct(19), "GR": pct(24), "HU": pct(27), "IE": pct(23),
		"IT": pct(22), "LV": pct(21), "LT": pct(21), "LU": pct(17), "MT": pct(18), "NL": pct(21), "PL": pct(23),
		"PT": pct(23), "RO": pct(19), "SK": pct(23), "SI": pct(22), "ES": pct(21), "SE": pct(25),
	}
)

// expected is the rule the replaced tables gave.
func expected(country, postal, businessID string) tax.Rule {
	if country == "" {
		country = "US" // the currency's default country
	}
	switch country {
	case "US":
		st := tax.StateFromZIP(postal)
		if st == "" {
			return tax.Rule{Label: "Tax"}
		}
		return tax.Rule{Jurisdiction: "US-" + st, Label: "Tax", Components: []tax.Component{{Name: "Sales tax", PPM: usStateRates[st]}}}
	case "CA":
		pr := tax.ProvinceFromPostal(postal)
		if pr == "" {
			return tax.Rule{Label: "Tax"}
		}
		if h, ok := caHST[pr]; ok {
			return tax.Rule{Jurisdiction: "CA-" + pr, Label: "Tax", Components: []tax.Component{{Name: "HST", PPM: h}}}
		}
		r := tax.Rule{Jurisdiction: "CA-" + pr, Label: "Tax", Components: []tax.Component{caGST}}
		if p, ok := caPST[pr]; ok {
			r.Components = append(r.Components, p)
		}
		return r
	case "GB":
		return tax.Rule{Jurisdiction: "GB", Label: "VAT", Components: []tax.Component{{Name: "VAT", PPM: pct(20)}}}
	case "AU":
		return tax.Rule{Jurisdiction: "AU", Label: "VAT", Components: []tax.Component{{Name: "GST", PPM: pct(10)}}}
	}
	if r, ok := euVAT[country]; ok {
		// (The tables knew no seller: every valid business id was reverse-charged, as For
		// does for a seller outside the EU.)
		reverse := businessID != "" && tax.ValidBusinessIDFormat(businessID, country)
		basis := tax.BasisConsumer
		if reverse {
			basis = tax.BasisReverseCharge
		}
		return tax.Rule{Jurisdiction: country, Label: "VAT", Components: []tax.Component{{Name: "VAT", PPM: r}},
			ReverseCharge: reverse, Basis: basis}
	}
	return tax.Rule{Label: "VAT"}
}

// The rates file answers exactly what the Go tables it replaced answered: every US ZIP
// prefix, every Canadian postal letter, every EU country with and without a business id,
// the UK, Australia and countries without tax.
func TestRatesFileEqualsTheTablesItReplaced(t *testing.T) {
	t.Parallel()
	if r := tax.Rates(); r.Version != "2025-01-01" || r.EffectiveFrom != "2025-01-01" {
		t.Fatalf("rates in force %s effective %s", r.Version, r.EffectiveFrom)
	}
	usd := domain.Currency{Code: "USD", DefaultCountry: "US"}
	check := func(country, postal, bizID string) {
		t.Helper()
		if got, want := tax.For("", country, postal, bizID, usd), expected(country, postal, bizID); !reflect.DeepEqual(got, want) {
			t.Errorf("For(%q, %q, %q) = %+v, want %+v", country, postal, bizID, got, want)
		}
	}
	n := 0
	for z := range 1000 {
		check("US", fmt.Sprintf("%03d01", z), "")
		n++
	}
	for c := 'A'; c <= 'Z'; c++ {
		check("CA", string(c)+"1A 1A1", "")
		n++
	}
	for country := range euVAT {
		check(country, "", "")
		check(country, "", country+"123456789")
		if !tax.IsEUCountry(strings.ToLower(country)) {
			t.Errorf("%s is not in the EU", country)
		}
		n += 2
	}
	for _, country := range []string{"GB", "AU", "JP", "CH", "NO", "MX", ""} {
		check(country, "", "")
		n++
	}
	if tax.IsEUCountry("GB") || tax.IsEUCountry("CH") {
		t.Error("GB or CH in the EU")
	}
	t.Logf("%d jurisdictions compared", n)
}

func readRates(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(tax.RatesFile)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// A malformed rates file is refused with a reason, so the binary stops at start.
func TestLoadRefusesMalformedRates(t *testing.T) {
	t.Parallel()
	if _, err := tax.Load(mustJSON(t, readRates(t))); err != nil {
		t.Fatalf("the file in force: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func(m map[string]any)
		want   string
	}{
		{"unknown field (a typo)", func(m map[string]any) { m["euVATs"] = m["euVAT"] }, `unknown field "euVATs"`},
		{"no version", func(m map[string]any) { delete(m, "version") }, "version is missing"},
		{"effective date not a date", func(m map[string]any) { m["effectiveFrom"] = "1 January 2025" }, "effectiveFrom"},
		{"a state without a rate", func(m map[string]any) { delete(m["usSalesTax"].(map[string]any), "CA") }, "no rate for CA"},
		{"a state no ZIP code maps to", func(m map[string]any) { m["usSalesTax"].(map[string]any)["PR"] = 11.5 }, "usSalesTax.PR: no ZIP code"},
		{"rate not a number", func(m map[string]any) { m["usSalesTax"].(map[string]any)["TX"] = "six" }, "decode"},
		{"negative rate", func(m map[string]any) { m["gbVAT"] = -20 }, "gbVAT"},
		{"rate above 100 percent", func(m map[string]any) { m["auGST"] = 100.5 }, "above 100%"},
		{"more than four decimals", func(m map[string]any) { m["caGST"] = 5.00001 }, "caGST"},
		{"rate in exponent form", func(m map[string]any) { m["caGST"] = json.Number("5e0") }, "caGST"},
		{"missing rate", func(m map[string]any) { delete(m, "gbVAT") }, "gbVAT"},
		{"province no postal code maps to", func(m map[string]any) { m["caHST"].(map[string]any)["XX"] = 13 }, "caHST.XX"},
		{"PST without a name", func(m map[string]any) { m["caPST"].(map[string]any)["BC"] = map[string]any{"rate": 7} }, "caPST.BC: name"},
		{"province with HST and PST", func(m map[string]any) { m["caPST"].(map[string]any)["ON"] = map[string]any{"name": "PST", "rate": 8} }, "also has HST"},
		{"EU country not an ISO code", func(m map[string]any) { m["euVAT"].(map[string]any)["Germany"] = 19 }, "euVAT.Germany"},
		{"no EU countries", func(m map[string]any) { m["euVAT"] = map[string]any{} }, "euVAT: no countries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := readRates(t)
			tc.change(m)
			_, err := tax.Load(mustJSON(t, m))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load: %v, want an error naming %q", err, tc.want)
			}
		})
	}
	for _, raw := range []string{"", "{", `{"version": "x"} {}`, "[]"} {
		if _, err := tax.Load([]byte(raw)); err == nil {
			t.Errorf("Load(%q) accepted", raw)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
