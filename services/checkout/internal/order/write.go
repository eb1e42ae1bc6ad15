package order

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
)

// write is the checkout transaction: it closes the key, writes the order and its lines,
// redeems promotions (their limits hold: the promotion row is locked while counting),
// debits gift certificates and the account balance (never below zero), credits the
// account, runs the kind's Fulfiller and enqueues the events. Exactly once per key: the
// key's pending status is the guard.
func (p *Pipeline) write(ctx context.Context, key string, pu *Purchase, ch Charge) (*Placed, error) {
	placed := &Placed{Purchase: *pu, InvoiceID: newInvoiceID(), ChargeID: ch.ID, CardBrand: ch.CardBrand, CardLast4: ch.CardLast4,
		PaymentMethodToken: ch.MethodToken, CardExpires: ch.CardExpires, CreatedAt: p.now().UTC().Truncate(time.Second)}
	var done string
	var fulfilled []kafka.Event
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		// The invoice number is drawn by the statement that closes the key (one round trip),
		// and only when it does close it.
		var seq int64
		err := tx.QueryRow(ctx, `UPDATE submissions SET status = 'completed', invoice_id = $2, charge_id = $3, updated_at = $4
			WHERE key = $1 AND status = 'pending' RETURNING nextval('invoice_numbers')`, key, placed.InvoiceID, ch.ID, placed.CreatedAt).Scan(&seq)
		if errors.Is(err, pgx.ErrNoRows) {
			// Someone else (the reconciler, a retry) finished this key meanwhile.
			return tx.QueryRow(ctx, `SELECT coalesce(invoice_id::text, '') FROM submissions WHERE key = $1`, key).Scan(&done)
		}
		if err != nil {
			return fmt.Errorf("close submission and number the invoice: %w", err)
		}
		placed.InvoiceNumber = fmt.Sprintf("HGR-%d-%06d", placed.CreatedAt.Year(), seq)
		if err := insertOrder(ctx, tx, key, placed); err != nil {
			return err
		}
		if err := applyBalances(ctx, tx, placed); err != nil {
			return err
		}
		evs, err := p.fulfillers[pu.Kind].Fulfil(ctx, tx, placed)
		if err != nil {
			return err
		}
		completed, err := orderCompleted(placed, ch)
		if err != nil {
			return err
		}
		fulfilled = evs
		return kafka.Enqueue(ctx, tx, p.prop, append([]kafka.Event{completed}, evs...)...)
	})
	if err != nil {
		if errors.Is(err, ErrUnfulfillable) {
			return nil, err
		}
		return nil, errs.Wrap(errs.Unavailable, err, "Your payment was taken but the order is not written yet; it will be completed shortly. Please check your receipt in a moment.")
	}
	if done != "" {
		out, err := p.Load(ctx, done)
		if out != nil {
			out.Replayed = true
		}
		return out, err
	}
	p.metrics.completed(placed, fulfilled)
	return placed, nil
}

func insertOrder(ctx context.Context, tx pgx.Tx, key string, o *Placed) error {
	nullable := func(v string) any {
		if v == "" {
			return nil
		}
		return v
	}
	giftTotal := int64(0)
	for _, g := range o.Gifts {
		giftTotal += g.AmountInCents
	}
	_, err := tx.Exec(ctx, `INSERT INTO orders (invoice_id, invoice_number, submission_key, kind, account_id, organization_id, email,
		currency, subtotal_in_cents, tax_in_cents, total_in_cents, credit_to_account_in_cents, gift_credit_in_cents, tax_label,
		tax_jurisdiction, reverse_charge, third_party, payment_method, charge_id, card_brand, card_last4, billing_name,
		billing_country, billing_zip, business_id, is_eu, created_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25,$26,$27)`,
		o.InvoiceID, o.InvoiceNumber, key, o.Kind, nullable(o.AccountID), nullable(o.OrganizationID), o.Email, o.Currency,
		o.SubtotalInCents, o.TaxInCents, o.TotalInCents, o.CreditToAccountInCents, giftTotal, o.TaxLabel, o.TaxJurisdiction,
		o.ReverseCharge, o.ThirdParty, firstNonEmpty(o.PaymentMethod, "CREDIT_CARD"), o.ChargeID, o.CardBrand, o.CardLast4,
		o.BillingName, o.BillingCountry, o.BillingZip, o.BusinessID, o.IsEU, o.CreatedAt)
	if err != nil {
		return fmt.Errorf("insert order: %w", err)
	}
	rows := make([][]any, len(o.Lines))
	for i, l := range o.Lines {
		rows[i] = []any{o.InvoiceID, i, l.Type, l.AddOnCode, l.PlanType, l.Description, l.Reason, l.UnitAmountInCents, l.Quantity,
			l.AmountInCents, l.Key, l.BundleAddOnCode, l.BundleItemType, l.PostTax}
	}
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"invoice_lines"}, []string{"invoice_id", "position", "type", "add_on_code", "plan_type",
		"description", "reason", "unit_amount_in_cents", "quantity", "amount_in_cents", "line_key", "bundle_add_on_code",
		"bundle_item_type", "post_tax"}, pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("insert invoice lines: %w", err)
	}
	return nil
}

// applyBalances redeems promotions and moves gift and account balances.
func applyBalances(ctx context.Context, tx pgx.Tx, o *Placed) error {
	for _, code := range o.PromoCodes {
		if err := redeem(ctx, tx, strings.ToUpper(code), o.AccountID); err != nil {
			return err
		}
	}
	for _, g := range o.Gifts {
		tag, err := tx.Exec(ctx, `UPDATE gift_certificates SET balance_in_cents = balance_in_cents - $2
			WHERE code = $1 AND currency = $3 AND balance_in_cents >= $2`, strings.ToUpper(g.Code), g.AmountInCents, o.Currency)
		if err != nil {
			return fmt.Errorf("debit gift certificate: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return Unfulfillable("The gift certificate " + strings.ToUpper(g.Code) + " no longer covers this amount.")
		}
		if err := movement(ctx, tx, o.InvoiceID, "gift", strings.ToUpper(g.Code), -g.AmountInCents); err != nil {
			return err
		}
	}
	if b := o.AccountBalanceInCents; b > 0 {
		tag, err := tx.Exec(ctx, `UPDATE account_balances SET balance_in_cents = balance_in_cents - $2
			WHERE account_id = $1 AND currency = $3 AND balance_in_cents >= $2`, o.AccountID, b, o.Currency)
		if err != nil {
			return fmt.Errorf("debit account balance: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return Unfulfillable("Your account balance changed.")
		}
		if err := movement(ctx, tx, o.InvoiceID, "account_debit", o.AccountID, -b); err != nil {
			return err
		}
	}
	if c := o.CreditToAccountInCents; c > 0 && o.AccountID != "" {
		tag, err := tx.Exec(ctx, `INSERT INTO account_balances (account_id, currency, balance_in_cents) VALUES ($1, $2, $3)
			ON CONFLICT (account_id) DO UPDATE SET balance_in_cents = account_balances.balance_in_cents + EXCLUDED.balance_in_cents
			WHERE account_balances.currency = EXCLUDED.currency`, o.AccountID, o.Currency, c)
		if err != nil {
			return fmt.Errorf("credit account: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return Unfulfillable("Your account balance is held in another currency.")
		}
		if err := movement(ctx, tx, o.InvoiceID, "account_credit", o.AccountID, c); err != nil {
			return err
		}
	}
	return nil
}

// redeem records a promotion redemption; the promotion row is locked while its
// redemptions are counted, so concurrent orders cannot exceed the limit.
func redeem(ctx context.Context, tx pgx.Tx, code, accountID string) error {
	var max int
	err := tx.QueryRow(ctx, `SELECT max_redemptions FROM promotions WHERE code = $1 FOR UPDATE`, code).Scan(&max)
	if errors.Is(err, pgx.ErrNoRows) {
		return Unfulfillable("The code " + code + " is no longer valid.")
	}
	if err != nil {
		return fmt.Errorf("lock promotion: %w", err)
	}
	if max > 0 {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM promotion_redemptions WHERE code = $1`, code).Scan(&n); err != nil {
			return fmt.Errorf("count redemptions: %w", err)
		}
		if n >= max {
			return Unfulfillable("The code " + code + " has been fully redeemed.")
		}
	}
	if accountID == "" {
		return nil
	}
	tag, err := tx.Exec(ctx, `INSERT INTO promotion_redemptions (code, account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, code, accountID)
	if err != nil {
		return fmt.Errorf("redeem %s: %w", code, err)
	}
	if tag.RowsAffected() == 0 {
		return Unfulfillable("Code already used.")
	}
	return nil
}

func movement(ctx context.Context, tx pgx.Tx, invoiceID, kind, ref string, amount int64) error {
	if _, err := tx.Exec(ctx, `INSERT INTO balance_movements (invoice_id, kind, ref, amount_in_cents) VALUES ($1, $2, $3, $4)`,
		invoiceID, kind, ref, amount); err != nil {
		return fmt.Errorf("record balance movement: %w", err)
	}
	return nil
}

func orderCompleted(o *Placed, ch Charge) (kafka.Event, error) {
	ev := &eventsv1.OrderCompleted{OrderId: o.InvoiceID, InvoiceId: o.InvoiceID, InvoiceNumber: o.InvoiceNumber, AccountId: o.AccountID,
		Email: o.Email, OrderKind: o.Kind, BuyerKind: o.BuyerKind, Currency: o.Currency, SubtotalInCents: o.SubtotalInCents,
		TaxInCents: o.TaxInCents, TotalInCents: o.TotalInCents, CardBrand: ch.CardBrand, CardLast4: ch.CardLast4, ChargeId: ch.ID,
		CompletedAt: timestamppb.New(o.CreatedAt), ReceiptUrl: ReceiptURL(o.InvoiceID), TaxLabel: o.TaxLabel, ReverseCharge: o.ReverseCharge}
	for _, l := range o.Lines {
		ev.Lines = append(ev.Lines, &eventsv1.InvoiceLine{AddOnCode: l.AddOnCode, Description: l.Description, Type: l.Type,
			Quantity: int32(l.Quantity), AmountInCents: l.AmountInCents, Reason: l.Reason})
	}
	b, err := proto.Marshal(ev)
	if err != nil {
		return kafka.Event{}, fmt.Errorf("encode order completed: %w", err)
	}
	return kafka.Event{Topic: events.TopicOrderCompleted, Key: firstNonEmpty(o.AccountID, o.Email), Payload: b}, nil
}

// ReceiptURL is the success page showing an order's receipt.
func ReceiptURL(invoiceID string) string { return "/buy/success?invoiceId=" + invoiceID }

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}
