package ports

import (
	"fmt"

	checkoutv1 "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// ReverseChargeNote is printed on EU business invoices whose VAT the buyer accounts for.
const ReverseChargeNote = "Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC)."

// receiptHiddenCodes are the two default mobile plan codes left off receipts (spec 001 §9
// does not name them; these are the catalogue's free default mobile plans).
var receiptHiddenCodes = map[string]bool{"hangar_mobile_free": true, "hangar_mobile_default": true}

// receipt renders an order as spec 001 §4/§9 shows it.
func receipt(o *order.Placed) (*checkoutv1.GetReceiptResponse, error) {
	money := func(c int64) string {
		if o.ThirdParty {
			return "N/A"
		}
		sign := ""
		if c < 0 {
			sign, c = "-", -c
		}
		return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
	}
	out := &checkoutv1.GetReceiptResponse{InvoiceId: o.InvoiceID, InvoiceNumber: o.InvoiceNumber, Created: o.CreatedAt.Format("01-02-2006"),
		CreatedTime: o.CreatedAt.Format("15:04") + " UTC", Type: o.Kind, Currency: o.Currency, PaymentMethod: o.PaymentMethod,
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
	// Printing an invoice is offered for an EU subscription, a business id or an EU account;
	// never on a refund.
	out.CanPrintInvoice = ptr(o.IsEU || o.BusinessID != "" || tax.IsEUCountry(o.BillingCountry))
	var n narrow
	for _, l := range o.Lines {
		if receiptHiddenCodes[l.AddOnCode] {
			continue
		}
		rl := &checkoutv1.ReceiptLine{Type: l.Type, AddOnCode: l.AddOnCode, PlanType: l.PlanType, Description: l.Description,
			UnitAmount: money(l.UnitAmountInCents), Amount: money(l.AmountInCents)}
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
