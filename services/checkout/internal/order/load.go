package order

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Load answers a written order with its lines; errs.NotFound when there is none. The order
// and its lines are read in one pipelined batch: one round trip, one implicit transaction.
func (p *Pipeline) Load(ctx context.Context, invoiceID string) (*Placed, error) {
	// Only an id in uuid's own text form names an order (as comparing invoice_id::text did);
	// compared as a uuid, both reads use their table's primary key.
	if u, err := uuid.Parse(invoiceID); err != nil || u.String() != invoiceID {
		return nil, errs.E(errs.NotFound, "no such invoice")
	}
	var o Placed
	var acct, org *string
	found := false
	b := &pgx.Batch{}
	b.Queue(`SELECT invoice_id::text, invoice_number, kind, account_id::text, organization_id::text, email,
		currency, subtotal_in_cents, tax_in_cents, total_in_cents, credit_to_account_in_cents, tax_label, tax_jurisdiction,
		reverse_charge, third_party, payment_method, charge_id, card_brand, card_last4, billing_name, billing_country,
		billing_zip, business_id, is_eu, created_at, invoice_contact FROM orders WHERE invoice_id = $1`, invoiceID).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&o.InvoiceID, &o.InvoiceNumber, &o.Kind, &acct, &org, &o.Email, &o.Currency, &o.SubtotalInCents,
			&o.TaxInCents, &o.TotalInCents, &o.CreditToAccountInCents, &o.TaxLabel, &o.TaxJurisdiction, &o.ReverseCharge,
			&o.ThirdParty, &o.PaymentMethod, &o.ChargeID, &o.CardBrand, &o.CardLast4, &o.BillingName, &o.BillingCountry,
			&o.BillingZip, &o.BusinessID, &o.IsEU, &o.CreatedAt, &o.InvoiceContact)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		found = err == nil
		return err
	})
	b.Queue(`SELECT type, add_on_code, plan_type, description, reason, unit_amount_in_cents, quantity,
		amount_in_cents, line_key, bundle_add_on_code, bundle_item_type, post_tax FROM invoice_lines
		WHERE invoice_id = $1 ORDER BY position`, invoiceID).Query(func(rows pgx.Rows) error {
		var err error
		o.Lines, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Line, error) {
			var l Line
			err := r.Scan(&l.Type, &l.AddOnCode, &l.PlanType, &l.Description, &l.Reason, &l.UnitAmountInCents, &l.Quantity,
				&l.AmountInCents, &l.Key, &l.BundleAddOnCode, &l.BundleItemType, &l.PostTax)
			return l, err
		})
		return err
	})
	if err := p.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, errs.Wrap(errs.Unavailable, fmt.Errorf("read order: %w", err), "orders are unavailable; try again")
	}
	if !found {
		return nil, errs.E(errs.NotFound, "no such invoice")
	}
	if acct != nil {
		o.AccountID = *acct
	}
	if org != nil {
		o.OrganizationID = *org
	}
	o.CreatedAt = o.CreatedAt.UTC()
	return &o, nil
}

// SaveContact keeps the billing contact printed on an order's invoice.
func (p *Pipeline) SaveContact(ctx context.Context, invoiceID string, c Contact) error {
	tag, err := p.pool.Exec(ctx, `UPDATE orders SET invoice_contact = $2 WHERE invoice_id = $1`, invoiceID, c)
	if err != nil {
		return errs.Wrap(errs.Unavailable, fmt.Errorf("save invoice contact: %w", err), "orders are unavailable; try again")
	}
	if tag.RowsAffected() == 0 {
		return errs.E(errs.NotFound, "no such invoice")
	}
	return nil
}
