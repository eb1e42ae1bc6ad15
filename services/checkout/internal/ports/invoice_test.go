package ports

import (
	"testing"

	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
)

// The preview answer says which lines pay after tax (issue 45 item 6): the page lists them
// below the tax rather than above the subtotal they are not part of.
func TestPreviewLinesSayWhichArePaidAfterTax(t *testing.T) {
	t.Parallel()
	inv := &pricing.Invoice{Currency: "USD", SubtotalInCents: 11_586, TaxInCents: 840, TotalInCents: 9_926, Lines: []pricing.Line{
		{Type: pricing.ItemPlan, Description: "Essential — 1 year", AmountInCents: 19_999},
		{Type: pricing.ItemSubscriptionCr, Description: "Credit for 143 unused days of Premium", AmountInCents: -18_413},
		{Type: pricing.ItemAccountBalance, Description: "Paid from account balance", AmountInCents: -2_500, PostTax: true},
	}}
	out, err := invoice(inv)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{false, false, true} {
		if got := out.InvoiceItems[i].GetPostTax(); got != want {
			t.Errorf("line %d (%s) postTax = %v, want %v", i, out.InvoiceItems[i].Description, got, want)
		}
	}
}
