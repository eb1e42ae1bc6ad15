// Package receipt holds what a receipt and an invoice print (spec 001 §9): which lines
// appear, how amounts read, when an invoice may be printed and the EU reverse-charge note.
// The port only copies these decisions onto the wire and into the PDF.
package receipt

import (
	"github.com/hangar/hangar/internal/platform/money"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
)

// ReverseChargeNote is printed on EU business invoices whose VAT the buyer accounts for.
const ReverseChargeNote = "Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC)."

// TaxNote words the EU VAT rule an order was taxed by (tax.Rule.Basis, read back from the
// order's jurisdiction, business id and reverse charge): the reverse charge across a
// border, the seller's VAT for a business in its own member state, or the consumer's
// member state's VAT. Outside the EU it is "".
func TaxNote(jurisdiction, businessID string, reverseCharge bool) string {
	switch {
	case reverseCharge:
		return ReverseChargeNote
	case !tax.IsEUCountry(jurisdiction):
		return ""
	case businessID != "" && tax.ValidBusinessIDFormat(businessID, jurisdiction):
		return "VAT charged at the " + jurisdiction + " rate: the business customer is established in the seller's member state " +
			"(Article 44, Council Directive 2006/112/EC; the reverse charge of Article 196 applies only across a border)."
	}
	return "VAT charged at the " + jurisdiction + " rate of the customer's member state (Article 58, Council Directive 2006/112/EC)."
}

// TaxRate words the rate an order's tax was charged at ("23 %"), "0 %" under the reverse
// charge, and "" for an order that recorded no rate (none applied, or written before rates
// were recorded): the receipt then prints the tax alone.
func TaxRate(ppm int64, reverseCharge bool) string {
	switch {
	case reverseCharge:
		return tax.Percent(0)
	case ppm > 0:
		return tax.Percent(ppm)
	}
	return ""
}

// Shown reports whether a line of the catalogue entry code, charging amountInCents, is
// printed. The catalogue's hidden defaults that cost nothing (the plan's included region,
// the free default plans the spec leaves off receipts) are not: the buyer never chose them
// and they explain no money. A hidden entry that charges is printed, so every amount on the
// receipt has its line; so is a code the catalogue no longer knows.
func Shown(cat *domain.Catalog, code string, amountInCents int64) bool {
	if cat == nil || code == "" || amountInCents != 0 {
		return true
	}
	e, ok := cat.Entry(code)
	return !ok || !e.Hidden
}

// Money writes minor units as a receipt prints them ("-12.50"); a third-party order (paid
// elsewhere) prints "N/A" for every amount.
func Money(cents int64, thirdParty bool) string {
	if thirdParty {
		return "N/A"
	}
	return money.Decimal(cents)
}

// Printed writes minor units as the printed receipt and invoice (the PDF) show them: digits
// grouped, two decimals, the currency's code after ("12,296.00 USD"; money.Format, the one
// formatter of the Go services); a third-party order prints "N/A".
func Printed(cents int64, currency string, thirdParty bool) string {
	if thirdParty {
		return "N/A"
	}
	return money.Format(cents, currency, "")
}

// CanPrintInvoice: printing an invoice is offered for an EU subscription, a buyer with a
// business id, or an EU billing country.
func CanPrintInvoice(isEU bool, businessID, billingCountry string) bool {
	return isEU || businessID != "" || tax.IsEUCountry(billingCountry)
}
