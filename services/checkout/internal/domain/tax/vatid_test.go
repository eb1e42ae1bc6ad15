package tax_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
)

// validVATIDs: one id of each country's format (made up; the format, not the register).
var validVATIDs = map[string]string{
	"AT": "ATU12345678", "BE": "BE0123456789", "BG": "BG123456789", "CY": "CY12345678L", "CZ": "CZ12345678",
	"DE": "DE123456789", "DK": "DK12345678", "EE": "EE123456789", "GR": "EL123456789", "ES": "ESX1234567X",
	"FI": "FI12345678", "FR": "FRXX123456789", "HR": "HR12345678901", "HU": "HU12345678", "IE": "IE1234567X",
	"IT": "IT12345678901", "LT": "LT123456789", "LU": "LU12345678", "LV": "LV12345678901", "MT": "MT12345678",
	"NL": "NL123456789B01", "PL": "PL1234567890", "PT": "PT123456789", "RO": "RO1234567", "SE": "SE123456789001",
	"SI": "SI12345678", "SK": "SK1234567890", "GB": "GB123456789", "CH": "CHE-123.456.789 MWST", "NO": "NO123456789MVA",
}

// Issue 45 item 5: DE81156986 (8 digits) was reverse-charged, any 2-12 characters passed
// for any member state. Every EU state, GB, CH and NO has its format; one valid and the
// wrong shapes of each are checked here.
func TestVATIDFormatsPerCountry(t *testing.T) {
	t.Parallel()
	for _, c := range append(tax.VATIDFormatCountries(), "XX") {
		if c != "XX" && validVATIDs[c] == "" {
			t.Errorf("%s has a format but no example here", c)
		}
	}
	for country, id := range validVATIDs {
		t.Run(country, func(t *testing.T) {
			if !slices.Contains(tax.VATIDFormatCountries(), country) {
				t.Fatalf("%s has no VAT id format", country)
			}
			got := tax.CheckVATIDFormat(id, country)
			if !got.OK || got.Problem != "" {
				t.Errorf("%s: %+v, want valid", id, got)
			}
			// Without its prefix, lower case and spaced: the same id.
			bare := strings.ToLower(id[2:])
			if country == "CH" {
				bare = id[2:]
			}
			if g := tax.CheckVATIDFormat(" "+bare+" ", country); !g.OK || g.Number != got.Number {
				t.Errorf("%q without its prefix: %+v, want %q", bare, g, got.Number)
			}
			// One character short, one too many, and a letter where a digit belongs.
			for _, bad := range []string{id[:len(id)-1], id + "9", id + "99", id[:len(id)-3] + "Q" + id[len(id)-2:]} {
				if g := tax.CheckVATIDFormat(bad, country); g.OK {
					if country == "BG" || country == "CZ" || country == "RO" || country == "LT" {
						continue // variable lengths: a shorter or longer id may be another valid one
					}
					t.Errorf("%q accepted for %s", bad, country)
				} else if g.Problem == "" {
					t.Errorf("%q refused without a reason", bad)
				}
			}
		})
	}
	for _, tc := range []struct{ id, country, problem string }{
		{"DE81156986", "DE", "expected DE followed by 9 digits"},
		{"XX123", "DE", "expected DE followed by 9 digits"},
		{"FR12345678901", "DE", "starts with FR, which is not DE"},
		{"GR123456789", "GR", "expected EL followed by 9 digits"},
		{"DE123456789", "US", "not used for a billing address in US"},
		{"", "DE", "expected DE followed by 9 digits"},
	} {
		if g := tax.CheckVATIDFormat(tc.id, tc.country); g.OK || !strings.Contains(g.Problem, tc.problem) {
			t.Errorf("%q for %s: %+v, want refused with %q", tc.id, tc.country, g, tc.problem)
		}
	}
}

// The tax follows the format: a malformed id is a consumer's sale (VAT charged), a valid
// one from another member state is reverse-charged.
func TestMalformedVATIDIsTaxed(t *testing.T) {
	t.Parallel()
	eur, _ := catalog(t).Currency("EUR")
	if r := tax.For("IE", "DE", "10115", "DE81156986", eur); r.ReverseCharge || r.Basis != tax.BasisConsumer {
		t.Errorf("DE81156986: %+v, want German VAT charged", r)
	}
	if r := tax.For("IE", "DE", "10115", "FR12345678901", eur); r.ReverseCharge {
		t.Errorf("a French id for Germany: %+v, want German VAT charged", r)
	}
	if r := tax.For("IE", "DE", "10115", "DE123456789", eur); !r.ReverseCharge {
		t.Errorf("DE123456789: %+v, want the reverse charge", r)
	}
}
