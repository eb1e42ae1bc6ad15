package tax

import (
	"regexp"
	"strings"
)

// vatIDFormat is the shape of one country's VAT number after its two-letter prefix, as the
// European Commission's VIES and the national registers publish them, and the words a buyer
// reads when an id does not have it.
type vatIDFormat struct {
	prefix string
	re     *regexp.Regexp
	words  string
}

// vatIDFormats holds every EU member state, and the United Kingdom, Switzerland and Norway
// (their business ids are taken on invoices, spec 000 §5), by ISO country code. Greece's
// prefix is EL. Ireland's check letters are taken as any letter: the formats are checked
// here, the register (VIES) says whether the number exists.
var vatIDFormats = map[string]vatIDFormat{
	"AT": {"AT", regexp.MustCompile(`^U[0-9]{8}$`), "ATU followed by 8 digits"},
	"BE": {"BE", regexp.MustCompile(`^[01][0-9]{9}$`), "BE followed by 10 digits, the first 0 or 1"},
	"BG": {"BG", regexp.MustCompile(`^[0-9]{9,10}$`), "BG followed by 9 or 10 digits"},
	"CY": {"CY", regexp.MustCompile(`^[0-9]{8}[A-Z]$`), "CY followed by 8 digits and a letter"},
	"CZ": {"CZ", regexp.MustCompile(`^[0-9]{8,10}$`), "CZ followed by 8 to 10 digits"},
	"DE": {"DE", regexp.MustCompile(`^[0-9]{9}$`), "DE followed by 9 digits"},
	"DK": {"DK", regexp.MustCompile(`^[0-9]{8}$`), "DK followed by 8 digits"},
	"EE": {"EE", regexp.MustCompile(`^[0-9]{9}$`), "EE followed by 9 digits"},
	"GR": {"EL", regexp.MustCompile(`^[0-9]{9}$`), "EL followed by 9 digits"},
	"ES": {"ES", regexp.MustCompile(`^[0-9A-Z][0-9]{7}[0-9A-Z]$`), "ES followed by 9 characters: a letter or digit, 7 digits, a letter or digit"},
	"FI": {"FI", regexp.MustCompile(`^[0-9]{8}$`), "FI followed by 8 digits"},
	"FR": {"FR", regexp.MustCompile(`^[0-9A-HJ-NP-Z]{2}[0-9]{9}$`), "FR followed by 2 letters or digits and 9 digits"},
	"HR": {"HR", regexp.MustCompile(`^[0-9]{11}$`), "HR followed by 11 digits"},
	"HU": {"HU", regexp.MustCompile(`^[0-9]{8}$`), "HU followed by 8 digits"},
	"IE": {"IE", regexp.MustCompile(`^([0-9]{7}[A-Z]{1,2}|[0-9][A-Z+*][0-9]{5}[A-Z])$`), "IE followed by 7 digits and 1 or 2 letters"},
	"IT": {"IT", regexp.MustCompile(`^[0-9]{11}$`), "IT followed by 11 digits"},
	"LT": {"LT", regexp.MustCompile(`^([0-9]{9}|[0-9]{12})$`), "LT followed by 9 or 12 digits"},
	"LU": {"LU", regexp.MustCompile(`^[0-9]{8}$`), "LU followed by 8 digits"},
	"LV": {"LV", regexp.MustCompile(`^[0-9]{11}$`), "LV followed by 11 digits"},
	"MT": {"MT", regexp.MustCompile(`^[0-9]{8}$`), "MT followed by 8 digits"},
	"NL": {"NL", regexp.MustCompile(`^[0-9]{9}B[0-9]{2}$`), "NL followed by 9 digits, B and 2 digits"},
	"PL": {"PL", regexp.MustCompile(`^[0-9]{10}$`), "PL followed by 10 digits"},
	"PT": {"PT", regexp.MustCompile(`^[0-9]{9}$`), "PT followed by 9 digits"},
	"RO": {"RO", regexp.MustCompile(`^[1-9][0-9]{1,9}$`), "RO followed by 2 to 10 digits"},
	"SE": {"SE", regexp.MustCompile(`^[0-9]{10}01$`), "SE followed by 12 digits ending in 01"},
	"SI": {"SI", regexp.MustCompile(`^[0-9]{8}$`), "SI followed by 8 digits"},
	"SK": {"SK", regexp.MustCompile(`^[0-9]{10}$`), "SK followed by 10 digits"},
	"GB": {"GB", regexp.MustCompile(`^([0-9]{9}|[0-9]{12}|GD[0-4][0-9]{2}|HA[5-9][0-9]{2})$`), "GB followed by 9 or 12 digits"},
	"CH": {"CH", regexp.MustCompile(`^E[0-9]{9}(MWST|TVA|IVA)?$`), "CHE followed by 9 digits (and MWST, TVA or IVA)"},
	"NO": {"NO", regexp.MustCompile(`^[0-9]{9}(MVA)?$`), "NO followed by 9 digits (and MVA)"},
}

// VATIDFormatCountries answers the countries whose VAT id formats are known.
func VATIDFormatCountries() []string {
	out := make([]string, 0, len(vatIDFormats))
	for c := range vatIDFormats {
		out = append(out, c)
	}
	return out
}

// VATIDFormat is what the format check of a VAT id found.
type VATIDFormat struct {
	// Number is the id without separators, upper case, its prefix removed (what a register
	// such as VIES is asked about); Prefix is the country's prefix (EL for Greece).
	Number, Prefix string
	// OK: the id has its country's format. Otherwise Problem says why, for the buyer.
	OK      bool
	Problem string
}

// CheckVATIDFormat checks a VAT id against its billing country's format: an optional
// prefix, which must be the country's, then the country's own shape. A country without a
// known format (outside the EU, GB, CH and NO) takes no VAT id.
func CheckVATIDFormat(id, country string) VATIDFormat {
	country = strings.ToUpper(strings.TrimSpace(country))
	norm := strings.ToUpper(strings.NewReplacer(" ", "", ".", "", "-", "", "/", "").Replace(strings.TrimSpace(id)))
	f, ok := vatIDFormats[country]
	if !ok {
		return VATIDFormat{Number: norm, Problem: "A VAT ID is not used for a billing address in " + nameOr(country) + "."}
	}
	out := VATIDFormat{Prefix: f.prefix, Number: norm}
	if len(norm) >= 2 && norm[0] >= 'A' && norm[0] <= 'Z' && norm[1] >= 'A' && norm[1] <= 'Z' {
		if p := norm[:2]; p != f.prefix && !(country == "CH" && strings.HasPrefix(norm, "CHE")) {
			if _, known := prefixCountry(p); known {
				out.Problem = "This VAT ID starts with " + p + ", which is not " + f.prefix + " for the billing country " + country + "."
				return out
			}
		} else {
			out.Number = norm[2:]
		}
	}
	if !f.re.MatchString(out.Number) {
		out.Problem = "This is not a valid VAT ID for " + country + ": expected " + f.words + "."
		return out
	}
	out.OK = true
	return out
}

// prefixCountry answers the country of a VAT id prefix.
func prefixCountry(p string) (string, bool) {
	for c, f := range vatIDFormats {
		if f.prefix == p {
			return c, true
		}
	}
	return "", false
}

func nameOr(country string) string {
	if country == "" {
		return "no country"
	}
	return country
}
