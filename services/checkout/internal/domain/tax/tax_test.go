package tax_test

import (
	"testing"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
)

func catalog(t testing.TB) *domain.Catalog { return domaintest.MustCatalog(t) }

func TestTax(t *testing.T) {
	t.Parallel()
	usd, _ := catalog(t).Currency("USD")
	eur, _ := catalog(t).Currency("EUR")
	cad, _ := catalog(t).Currency("CAD")
	for _, tc := range []struct {
		name, country, postal, bizID string
		cur                          domain.Currency
		base, tax                    int64
		label, jur                   string
		reverse                      bool
	}{
		{name: "US California by ZIP", country: "US", postal: "94105", cur: usd, base: 10000, tax: 725, label: "Tax", jur: "US-CA"},
		{name: "US Texas by ZIP", country: "US", postal: "75001-1234", cur: usd, base: 10000, tax: 625, label: "Tax", jur: "US-TX"},
		{name: "US Oregon has no sales tax", country: "US", postal: "97201", cur: usd, base: 10000, tax: 0, label: "Tax", jur: "US-OR"},
		{name: "US default country from USD without ZIP", cur: usd, base: 10000, tax: 0, label: "Tax"},
		{name: "Canada Ontario HST", country: "CA", postal: "M5V 2T6", cur: cad, base: 10000, tax: 1300, label: "Tax", jur: "CA-ON"},
		{name: "Canada British Columbia GST plus PST", country: "CA", postal: "V6B 1A1", cur: cad, base: 10000, tax: 1200, label: "Tax", jur: "CA-BC"},
		{name: "Canada Quebec GST plus QST rounded per component", country: "CA", postal: "H2X 1Y4", cur: cad, base: 19999, tax: 1000 + 1995, label: "Tax", jur: "CA-QC"},
		{name: "Canada Alberta GST only", country: "CA", postal: "T2P 1J9", cur: cad, base: 10000, tax: 500, label: "Tax", jur: "CA-AB"},
		{name: "Germany VAT", country: "DE", cur: eur, base: 34400, tax: 6536, label: "VAT", jur: "DE"},
		{name: "Germany business id reverse charge", country: "DE", bizID: "DE 123 456 789", cur: eur, base: 34400, tax: 0, label: "VAT", jur: "DE", reverse: true},
		{name: "Greece business id uses EL", country: "GR", bizID: "EL123456789", cur: eur, base: 10000, tax: 0, label: "VAT", jur: "GR", reverse: true},
		{name: "malformed business id pays VAT", country: "FR", bizID: "DE12", cur: eur, base: 10000, tax: 2000, label: "VAT", jur: "FR"},
		{name: "UK VAT 20 percent", country: "GB", cur: usd, base: 29600, tax: 5920, label: "VAT", jur: "GB"},
		{name: "Australia GST 10 percent", country: "AU", cur: usd, base: 55555, tax: 5556, label: "VAT", jur: "AU"},
		{name: "round half up on the base", country: "GB", cur: usd, base: 3, tax: 1, label: "VAT", jur: "GB"},
		{name: "outside every table", country: "JP", cur: usd, base: 10000, tax: 0, label: "VAT"},
		{name: "Irish business buying from the Irish seller pays Irish VAT", country: "IE", bizID: "IE1234567X", cur: eur, base: 18599, tax: 4278, label: "VAT", jur: "IE"},
		{name: "Irish consumer pays Irish VAT", country: "IE", cur: eur, base: 18599, tax: 4278, label: "VAT", jur: "IE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tax.For("IE", tc.country, tc.postal, tc.bizID, tc.cur)
			if got := r.Amount(tc.base); got != tc.tax || r.Label != tc.label || r.Jurisdiction != tc.jur || r.ReverseCharge != tc.reverse {
				t.Errorf("tax %d label %s jur %s reverse %v, want %d %s %s %v", got, r.Label, r.Jurisdiction, r.ReverseCharge, tc.tax, tc.label, tc.jur, tc.reverse)
			}
		})
	}
}

// Every member state's domestic business sale is taxed at the seller's rate, and the same
// buyer is reverse-charged by a seller in any other member state (Directive 2006/112/EC
// art. 44 and 196: the reverse charge applies only across a border).
func TestDomesticBusinessSaleIsTaxedInEveryMemberState(t *testing.T) {
	t.Parallel()
	eur, _ := catalog(t).Currency("EUR")
	const base = 18599
	for country, rate := range euVAT {
		t.Run(country, func(t *testing.T) {
			prefix := country
			if country == "GR" {
				prefix = "EL"
			}
			id := validVATIDs[country]
			want := (base*rate + 500_000) / 1_000_000
			if got := tax.SellerCountry(prefix + "0000000XX"); got != country {
				t.Errorf("seller country of %s's VAT number: %q", country, got)
			}
			domestic := tax.For(country, country, "", id, eur)
			if domestic.ReverseCharge || domestic.Basis != tax.BasisDomesticBusiness || domestic.Amount(base) != want || domestic.Jurisdiction != country {
				t.Errorf("domestic: %+v, tax %d, want %d at the seller's rate", domestic, domestic.Amount(base), want)
			}
			other := "IE"
			if country == "IE" {
				other = "DE"
			}
			cross := tax.For(other, country, "", id, eur)
			if !cross.ReverseCharge || cross.Basis != tax.BasisReverseCharge || cross.Amount(base) != 0 {
				t.Errorf("sold from %s: %+v, want the reverse charge", other, cross)
			}
			consumer := tax.For(country, country, "", "", eur)
			if consumer.ReverseCharge || consumer.Basis != tax.BasisConsumer || consumer.Amount(base) != want {
				t.Errorf("consumer: %+v", consumer)
			}
		})
	}
	if ie := tax.For("IE", "IE", "", "IE1234567X", eur); ie.Amount(base) != 4278 || base+ie.Amount(base) != 22877 {
		t.Errorf("IE domestic: tax %d", ie.Amount(base))
	}
}
