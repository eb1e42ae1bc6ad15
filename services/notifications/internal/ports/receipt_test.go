package ports_test

import (
	"testing"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/services/notifications/internal/ports"
)

// The order-completed event's lines paid after tax stay so in the mail's receipt, which
// lists them below the tax (issue 45 item 6).
func TestReceiptOfKeepsTheLinesPaidAfterTax(t *testing.T) {
	t.Parallel()
	r := ports.ReceiptOf(&eventsv1.OrderCompleted{InvoiceId: "inv-1", OrderKind: "subscription", Lines: []*eventsv1.InvoiceLine{
		{Description: "Essential — 1 year", Type: "PLAN", AmountInCents: 19_999},
		{Description: "Paid from account balance", Type: "ACCOUNT_BALANCE", AmountInCents: -2_500, PostTax: true},
	}})
	if len(r.ItemLines()) != 1 || len(r.PaidLines()) != 1 || r.PaidLines()[0].Amount != -2_500 {
		t.Errorf("items %v, paid after tax %v", r.ItemLines(), r.PaidLines())
	}
}
