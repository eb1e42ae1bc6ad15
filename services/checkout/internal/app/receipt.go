package app

import (
	"context"
	"strings"

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

// SaveInvoiceContact keeps the billing contact printed on the invoice, for whoever may read
// the receipt (Receipt): the buyer through the e-mailed link's token needs no session.
func (s *Service) SaveInvoiceContact(ctx context.Context, invoiceID string, r Reader, c order.Contact) (*order.Placed, error) {
	o, err := s.Receipt(ctx, invoiceID, r)
	if err != nil {
		return nil, err
	}
	c.Name, c.PhysicalAddress, c.City, c.Country = strings.TrimSpace(c.Name), strings.TrimSpace(c.PhysicalAddress), strings.TrimSpace(c.City), strings.TrimSpace(c.Country)
	for _, f := range []struct{ v, field string }{{c.Name, "name"}, {c.PhysicalAddress, "address"}, {c.City, "city"}, {c.Country, "country"}} {
		if f.v == "" {
			return nil, errs.Field(f.field, "The billing contact's "+f.field+" cannot be blank.")
		}
	}
	if err := s.orders.SaveContact(ctx, invoiceID, c); err != nil {
		return nil, err
	}
	o.InvoiceContact = &c
	return o, nil
}
