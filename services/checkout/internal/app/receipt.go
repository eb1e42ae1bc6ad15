package app

import (
	"context"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// Reader is who asks for a receipt: the session's caller (zero without a session) and the
// receipt token (the cookie of the browser that paid, or the e-mailed link's).
type Reader struct {
	Caller       auth.Caller
	ReceiptToken string
}

// Receipt answers an order's receipt to the browser that paid and to whoever holds the
// Billing right (auth.MayActOn) on the order's account or organization: the account, the
// organization's owner, staff. Anyone else gets not found (so ids cannot be probed).
func (s *Service) Receipt(ctx context.Context, invoiceID string, r Reader) (*order.Placed, error) {
	notFound := errs.E(errs.NotFound, "no such receipt")
	if s.orders == nil || invoiceID == "" {
		return nil, notFound
	}
	o, err := s.orders.Load(ctx, invoiceID)
	if errs.CodeOf(err) == errs.NotFound {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	if !s.mayRead(o, r) {
		return nil, notFound
	}
	return o, nil
}

func (s *Service) mayRead(o *order.Placed, r Reader) bool {
	if r.ReceiptToken != "" && s.receipts.Verify(o.InvoiceID, r.ReceiptToken, s.now()) {
		return true
	}
	for _, acct := range []string{o.AccountID, o.OrganizationID} {
		if acct != "" && auth.MayActOn(r.Caller, acct, auth.Billing) == nil {
			return true
		}
	}
	return false
}
