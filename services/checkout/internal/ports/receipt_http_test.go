package ports

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// The printed invoice of an EU business (issue 31 item 3): the seller's name, address and
// VAT number, invoice number and MM-dd-yyyy UTC date, the saved billing contact and the
// buyer's VAT ID, the lines, tax and the reverse-charge note; the PDF carries that text.
func TestReceiptDocOfAnEUBusinessInvoice(t *testing.T) {
	t.Parallel()
	o := &order.Placed{InvoiceID: "inv-1", InvoiceNumber: "100042", CardBrand: "Visa", CardLast4: "1111",
		CreatedAt:      time.Date(2026, 3, 4, 23, 30, 0, 0, time.UTC),
		InvoiceContact: &order.Contact{Name: "Luft GmbH", PhysicalAddress: "Hauptstrasse 1", City: "Berlin", PostalCode: "10115", Country: "DE"}}
	o.Currency, o.Email, o.BusinessID, o.ReverseCharge, o.IsEU = "EUR", "ops@luft.example", "DE123456789", true, true
	o.SubtotalInCents, o.TotalInCents, o.TaxLabel = 19999, 19999, "VAT"
	o.Lines = []order.Line{{Type: "plan", Description: "Premium", Quantity: 1, UnitAmountInCents: 19999, AmountInCents: 19999}}
	seller := Seller{Name: "Hangar Aviation Software Ltd", Address: "1 Runway Road\nDublin", VAT: "IE9999999X"}
	doc := strings.Join(ReceiptDoc(o, seller, nil), "\n")
	for _, want := range []string{"Invoice\nHangar Aviation Software Ltd\n1 Runway Road\nDublin\nVAT number: IE9999999X", "Invoice number: 100042",
		"Date: 03-04-2026 23:30 UTC", "Luft GmbH\nHauptstrasse 1\nBerlin, 10115\nDE", "VAT ID: DE123456789", "Premium: 199.99 EUR",
		"VAT (0 %): 0.00 EUR", "Total: 199.99 EUR", ReverseChargeNote} {
		if !strings.Contains(doc, want) {
			t.Errorf("the invoice lacks %q:\n%s", want, doc)
		}
	}
	pdf, err := ReceiptPDF(o, seller, nil)
	if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF")) || !bytes.Contains(pdf, []byte("IE9999999X")) || !bytes.Contains(pdf, []byte("DE123456789")) {
		t.Fatalf("pdf: %v %.20q", err, pdf)
	}
}

// The catalogue's hidden defaults that cost nothing (the plan's included region) are left
// off the receipt and the PDF; before, only two hard-coded codes were (spec 001 §9).
func TestReceiptLeavesOffTheCataloguesHiddenDefaults(t *testing.T) {
	t.Parallel()
	o := &order.Placed{InvoiceID: "inv-2", InvoiceNumber: "100043", CreatedAt: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)}
	o.Currency, o.SubtotalInCents, o.TotalInCents = "USD", 19999, 19999
	o.Lines = []order.Line{
		{Type: "plan", AddOnCode: "pro_plus", Description: "Pro Plus", Quantity: 1, UnitAmountInCents: 19999, AmountInCents: 19999},
		{Type: "add_on", AddOnCode: "included_geo_us", Description: "United States (included)", Quantity: 1}}
	res, err := receipt(o, domaintest.MustCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.InvoiceItems) != 1 || res.InvoiceItems[0].AddOnCode != "pro_plus" {
		t.Errorf("receipt lines = %v; want only pro_plus", res.InvoiceItems)
	}
	if doc := strings.Join(ReceiptDoc(o, Seller{Name: "Hangar"}, domaintest.MustCatalog(t)), "\n"); strings.Contains(doc, "included") {
		t.Errorf("the printed receipt shows the included region:\n%s", doc)
	}
}

// The rate the tax was charged at is printed beside it (issue 45 item 5); an order that
// recorded no rate prints the tax alone.
func TestReceiptDocPrintsTheTaxRate(t *testing.T) {
	t.Parallel()
	o := &order.Placed{InvoiceID: "inv-3", InvoiceNumber: "100044", CreatedAt: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)}
	o.Currency, o.TaxLabel, o.TaxJurisdiction, o.SubtotalInCents, o.TaxInCents, o.TotalInCents = "EUR", "VAT", "IE", 18599, 4278, 22877
	o.TaxRatePPM = 230_000
	if doc := strings.Join(ReceiptDoc(o, Seller{Name: "Hangar"}, nil), "\n"); !strings.Contains(doc, "VAT (23 %): 42.78 EUR") {
		t.Errorf("the receipt lacks the rate:\n%s", doc)
	}
	if r, err := receipt(o, nil); err != nil || r.GetTaxRate() != "23 %" {
		t.Errorf("receipt taxRate = %q, %v", r.GetTaxRate(), err)
	}
	o.TaxRatePPM = 0
	if doc := strings.Join(ReceiptDoc(o, Seller{Name: "Hangar"}, nil), "\n"); !strings.Contains(doc, "VAT: 42.78 EUR") {
		t.Errorf("an order without a recorded rate:\n%s", doc)
	}
}

// The printed receipt sums where it is printed (issue 45 item 6): the lines before tax make
// the subtotal, the account balance paid after tax follows the tax, amounts are grouped
// ("12,296.00", not "12296.00"), and the receipt's wire lines say which were paid after tax.
func TestReceiptDocListsTheBalanceAfterTheTaxWithGroupedAmounts(t *testing.T) {
	t.Parallel()
	o := &order.Placed{InvoiceID: "inv-4", InvoiceNumber: "100045", CreatedAt: time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)}
	o.Currency, o.TaxLabel, o.SubtotalInCents, o.TaxInCents, o.TotalInCents = "USD", "Tax", 1_228_900, 9_200, 1_229_600
	o.Lines = []order.Line{
		{Type: "PLAN", Description: "Business Pro — 1 year", Quantity: 50, UnitAmountInCents: 24_578, AmountInCents: 1_228_900},
		{Type: "ACCOUNT_BALANCE", Description: "Paid from account balance", UnitAmountInCents: -2_500, AmountInCents: -2_500, PostTax: true},
	}
	o.TotalInCents = o.SubtotalInCents + o.TaxInCents - 2_500
	doc := strings.Join(ReceiptDoc(o, Seller{Name: "Hangar"}, nil), "\n")
	want := "Business Pro — 1 year x 50: 12,289.00 USD\n\nSubtotal: 12,289.00 USD\nTax: 92.00 USD\nPaid from account balance: -25.00 USD\nTotal: 12,356.00 USD"
	if !strings.Contains(doc, want) {
		t.Errorf("the printed receipt does not sum in order; want\n%s\nin\n%s", want, doc)
	}
	res, err := receipt(o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.InvoiceItems) != 2 || res.InvoiceItems[0].GetPostTax() || !res.InvoiceItems[1].GetPostTax() {
		t.Errorf("receipt lines' postTax = %v", res.InvoiceItems)
	}
	if res.Created != "12-07-2026" {
		t.Errorf("created = %q, want the store's MM-dd-yyyy", res.Created)
	}
}
