package order

import (
	"context"

	"github.com/google/uuid"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Load answers a written order with its lines; errs.NotFound when there is none.
func (p *Pipeline) Load(ctx context.Context, invoiceID string) (*Placed, error) {
	// Only an id in uuid's own text form names an order (as comparing invoice_id::text did);
	// the store then reads it by its primary key.
	if u, err := uuid.Parse(invoiceID); err != nil || u.String() != invoiceID {
		return nil, errs.E(errs.NotFound, "no such invoice")
	}
	o, err := p.invoices.Load(ctx, invoiceID)
	if err != nil {
		return nil, err
	}
	if o == nil {
		return nil, errs.E(errs.NotFound, "no such invoice")
	}
	return o, nil
}

// SaveContact keeps the billing contact printed on an order's invoice: an issued
// invoice's contact is fixed, and a different one issues a corrected copy (answered).
func (p *Pipeline) SaveContact(ctx context.Context, invoiceID string, c Contact) (*Correction, error) {
	found, copy, err := p.invoices.SaveContact(ctx, invoiceID, c)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errs.E(errs.NotFound, "no such invoice")
	}
	return copy, nil
}
