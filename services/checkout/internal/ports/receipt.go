package ports

import (
	checkoutv1 "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	receiptrules "github.com/hangar/hangar/services/checkout/internal/domain/receipt"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// ReverseChargeNote is printed on EU business invoices whose VAT the buyer accounts for.
const ReverseChargeNote = receiptrules.ReverseChargeNote

// receipt renders an order as spec 001 §4/§9 shows it, by the receipt rules of the domain;
// cat (nil: not loaded) tells which lines are the catalogue's hidden defaults.
func receipt(o *order.Placed, cat *domain.Catalog) (*checkoutv1.GetReceiptResponse, error) {
	money := func(c int64) string { return receiptrules.Money(c, o.ThirdParty) }
	out := &checkoutv1.GetReceiptResponse{InvoiceId: o.InvoiceID, InvoiceNumber: o.InvoiceNumber, Created: domain.FormatDate(o.CreatedAt),
		CreatedTime: o.CreatedAt.UTC().Format("15:04") + " UTC", Type: o.Kind, Currency: o.Currency, PaymentMethod: o.PaymentMethod,
		CardBrand: o.CardBrand, CardLast4: o.CardLast4, AccountId: o.AccountID, Email: o.Email,
		BillingContact: &checkoutv1.BillingContact{Name: o.BillingName, PostalCode: o.BillingZip, Country: o.BillingCountry},
		Subtotal:       money(o.SubtotalInCents), Tax: money(o.TaxInCents), Total: money(o.TotalInCents), TaxVatText: o.TaxLabel,
		ReverseCharge: ptr(o.ReverseCharge), ThirdParty: ptr(o.ThirdParty), BusinessIdentificationNo: o.BusinessID, Status: "paid"}
	if c := o.InvoiceContact; c != nil {
		out.BillingContact = &checkoutv1.BillingContact{Name: c.Name, PhysicalAddress: c.PhysicalAddress, PhysicalAddress2: c.PhysicalAddress2,
			City: c.City, StateProvince: c.StateProvince, PostalCode: c.PostalCode, Country: c.Country}
	}
	if o.ReverseCharge {
		out.ReverseChargeNote = ReverseChargeNote
	}
	out.TaxNote = receiptrules.TaxNote(o.TaxJurisdiction, o.BusinessID, o.ReverseCharge)
	out.TaxRate = receiptrules.TaxRate(o.TaxRatePPM, o.ReverseCharge)
	out.CanPrintInvoice = ptr(receiptrules.CanPrintInvoice(o.IsEU, o.BusinessID, o.BillingCountry))
	var n narrow
	for _, l := range o.Lines {
		if !receiptrules.Shown(cat, l.AddOnCode, l.AmountInCents) {
			continue
		}
		rl := &checkoutv1.ReceiptLine{Type: l.Type, AddOnCode: l.AddOnCode, PlanType: l.PlanType, Description: l.Description,
			UnitAmount: money(l.UnitAmountInCents), Amount: money(l.AmountInCents), PostTax: ptr(l.PostTax)}
		n.set(&rl.Quantity, l.Quantity)
		n.set(&rl.UnitAmountInCents, l.UnitAmountInCents)
		n.set(&rl.AmountInCents, l.AmountInCents)
		out.InvoiceItems = append(out.InvoiceItems, rl)
	}
	n.set(&out.SubtotalInCents, o.SubtotalInCents)
	n.set(&out.TaxInCents, o.TaxInCents)
	n.set(&out.TotalInCents, o.TotalInCents)
	n.set(&out.CreditToAccountInCents, o.CreditToAccountInCents)
	if n.err != nil {
		return nil, n.err
	}
	return out, nil
}

// loadedCatalog answers the catalogue the service prices with, nil before one is loaded
// (a receipt then prints every line).
func loadedCatalog(svc *app.Service) *domain.Catalog {
	c, err := svc.Catalog()
	if err != nil {
		return nil
	}
	return c
}
