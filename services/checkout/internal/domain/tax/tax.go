// Package tax answers the tax that applies to an invoice: US statewide sales tax by ZIP,
// Canadian GST/HST/PST by postal code, EU VAT with the business reverse charge, UK VAT and
// Australian GST. The rates are data (RatesFile, embedded and validated when the package
// initialises); where each applies is code.
package tax

import (
	"fmt"
	"strings"

	"github.com/hangar/hangar/services/checkout/internal/domain"
)

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
	// Basis is the EU VAT rule that applied (Basis*), "" outside the EU.
	Basis string
}

// The EU VAT rules a sale is taxed by (receipt.TaxNote words them on the invoice).
const (
	// BasisConsumer: a consumer in a member state pays that state's VAT (art. 58).
	BasisConsumer = "consumer"
	// BasisDomesticBusiness: a business in the seller's member state pays its VAT (art. 44).
	BasisDomesticBusiness = "domestic_business"
	// BasisReverseCharge: a business in another member state accounts for the VAT (art. 196).
	BasisReverseCharge = "reverse_charge"
)

// PPM answers the combined rate.
func (t Rule) PPM() int64 {
	var n int64
	for _, c := range t.Components {
		n += c.PPM
	}
	return n
}

// ChargedPPM is the rate the tax is charged at: 0 under the reverse charge.
func (t Rule) ChargedPPM() int64 {
	if t.ReverseCharge {
		return 0
	}
	return t.PPM()
}

// Percent writes a rate in parts per million as a percentage: "23 %", "5.5 %", "0 %".
func Percent(ppm int64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%d.%04d", ppm/10_000, ppm%10_000), "0"), ".") + " %"
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

type zipRange struct {
	from, to int
	state    string
}

// zip3 maps the first three ZIP digits to a state: [from, to, state].
var zip3 = []zipRange{
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

// ValidBusinessIDFormat reports whether a business (VAT) id has its country's format
// (CheckVATIDFormat: the prefix, when given, the country's; EL for Greece). It checks the
// format only, not the register.
func ValidBusinessIDFormat(id, country string) bool {
	return CheckVATIDFormat(id, country).OK
}

// For answers the tax rule of the rates in force (Rates) for a sale by a seller
// established in the EU member state seller (ISO code) to a billing country, postal code
// and business id. The country falls back to the currency's default country.
func For(seller, country, postal, businessID string, cur domain.Currency) Rule {
	return current.For(seller, country, postal, businessID, cur)
}

// SellerCountry answers the member state of a seller's EU VAT number (its prefix; EL is
// Greece), or "".
func SellerCountry(vat string) string {
	vat = strings.ToUpper(strings.TrimSpace(vat))
	if len(vat) < 2 {
		return ""
	}
	c := vat[:2]
	if c == "EL" {
		c = "GR"
	}
	if !IsEUCountry(c) {
		return ""
	}
	return c
}

// For answers the tax rule of this table for a sale by a seller established in seller
// to a billing country, postal code and business id. The country falls back to the
// currency's default country. Within the EU the supply is taxed where the customer is
// (Directive 2006/112/EC art. 44 for a business, art. 58 for a consumer of electronic
// services); the business customer accounts for the VAT (reverse charge, art. 196) only
// when it is established in another member state than the seller: a domestic business
// sale is taxed at the seller's rate like any other.
func (t *Table) For(seller, country, postal, businessID string, cur domain.Currency) Rule {
	if country == "" {
		country = cur.DefaultCountry
	}
	switch {
	case country == "US":
		st := StateFromZIP(postal)
		if st == "" {
			return Rule{Label: "Tax"}
		}
		return Rule{Jurisdiction: "US-" + st, Label: "Tax", Components: []Component{{"Sales tax", t.usState[st]}}}
	case country == "CA":
		pr := ProvinceFromPostal(postal)
		if pr == "" {
			return Rule{Label: "Tax"}
		}
		r := Rule{Jurisdiction: "CA-" + pr, Label: "Tax"}
		if h, ok := t.caHST[pr]; ok {
			r.Components = []Component{{"HST", h}}
			return r
		}
		r.Components = []Component{{"GST", t.caGST}}
		if p, ok := t.caPST[pr]; ok {
			r.Components = append(r.Components, p)
		}
		return r
	case country == "GB":
		return Rule{Jurisdiction: "GB", Label: "VAT", Components: []Component{{"VAT", t.gbVAT}}}
	case country == "AU":
		return Rule{Jurisdiction: "AU", Label: "VAT", Components: []Component{{"GST", t.auGST}}}
	}
	if r, ok := t.euVAT[country]; ok {
		rule := Rule{Jurisdiction: country, Label: "VAT", Components: []Component{{"VAT", r}}, Basis: BasisConsumer}
		if businessID != "" && ValidBusinessIDFormat(businessID, country) {
			rule.Basis = BasisDomesticBusiness
			if country != strings.ToUpper(strings.TrimSpace(seller)) {
				rule.Basis, rule.ReverseCharge = BasisReverseCharge, true // the business customer accounts for the VAT
			}
		}
		return rule
	}
	return Rule{Label: "VAT"}
}

// IsEUCountry reports whether an ISO country code is an EU member state (has EU VAT in the
// rates in force).
func IsEUCountry(country string) bool {
	_, ok := current.euVAT[strings.ToUpper(strings.TrimSpace(country))]
	return ok
}
