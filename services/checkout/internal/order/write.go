package order

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
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
	err := p.inTx(ctx, func(ctx context.Context, tx pgx.Tx, first *pgx.Batch) (*pgx.Batch, error) {
		// One statement, pipelined with the BEGIN, closes the key, draws the invoice number
		// and writes the order and its lines (one round trip, not five); the number is drawn,
		// and the order written, only when it does close the key.
		closed := queueCloseOrder(first, key, placed)
		if err := tx.SendBatch(ctx, first).Close(); err != nil {
			return nil, err
		}
		if !*closed {
			// Someone else (the reconciler, a retry) finished this key meanwhile.
			return nil, tx.QueryRow(ctx, `SELECT coalesce(invoice_id::text, '') FROM submissions WHERE key = $1`, key).Scan(&done)
		}
		if err := applyBalances(ctx, tx, placed); err != nil {
			return nil, err
		}
		evs, err := p.fulfillers[pu.Kind].Fulfil(ctx, tx, placed)
		if err != nil {
			return nil, err
		}
		completed, err := orderCompleted(placed, ch, p.receiptURL(placed.InvoiceID))
		if err != nil {
			return nil, err
		}
		fulfilled = evs
		// The order's outbox rows go with the COMMIT.
		last := &pgx.Batch{}
		return last, kafka.QueueEnqueue(ctx, last, p.prop, append([]kafka.Event{completed}, evs...)...)
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

// closeOrderSQL completes a pending key ($1) and, only then, draws the invoice number
// (the invoice_number function of migration 0012 formats it) and inserts the order
// and its lines (unnested arrays: one statement, where COPY would be a round trip of its
// own). It answers the invoice number, or no row when the key was not pending.
const closeOrderSQL = `WITH closed AS (
	UPDATE submissions SET status = 'completed', invoice_id = $2::uuid, charge_id = $3::text, updated_at = $4::timestamptz
	WHERE key = $1::text AND status = 'pending' RETURNING nextval('invoice_numbers') AS seq
), numbered AS (
	SELECT invoice_number($5::integer, seq) AS invoice_number FROM closed
), ord AS (
	INSERT INTO orders (invoice_id, invoice_number, submission_key, kind, account_id, organization_id, email,
		currency, subtotal_in_cents, tax_in_cents, total_in_cents, credit_to_account_in_cents, gift_credit_in_cents, tax_label,
		tax_jurisdiction, reverse_charge, third_party, payment_method, charge_id, card_brand, card_last4, billing_name,
		billing_country, billing_zip, business_id, is_eu, created_at)
	SELECT $2::uuid, invoice_number, $1::text, $6::text, $7::uuid, $8::uuid, $9::text, $10::text, $11::bigint, $12::bigint,
		$13::bigint, $14::bigint, $15::bigint, $16::text, $17::text, $18::boolean, $19::boolean, $20::text, $3::text, $21::text,
		$22::text, $23::text, $24::text, $25::text, $26::text, $27::boolean, $4::timestamptz
	FROM numbered RETURNING invoice_id
), lines AS (
	INSERT INTO invoice_lines (invoice_id, position, type, add_on_code, plan_type, description, reason, unit_amount_in_cents,
		quantity, amount_in_cents, line_key, bundle_add_on_code, bundle_item_type, post_tax)
	SELECT ord.invoice_id, l.n - 1, l.type, l.add_on_code, l.plan_type, l.description, l.reason, l.unit, l.quantity, l.amount,
		l.line_key, l.bundle_add_on_code, l.bundle_item_type, l.post_tax
	FROM ord, unnest($28::text[], $29::text[], $30::text[], $31::text[], $32::text[], $33::bigint[], $34::bigint[],
		$35::bigint[], $36::text[], $37::text[], $38::text[], $39::boolean[])
		WITH ORDINALITY AS l(type, add_on_code, plan_type, description, reason, unit, quantity, amount, line_key,
			bundle_add_on_code, bundle_item_type, post_tax, n)
)
SELECT invoice_number FROM numbered`

// queueCloseOrder queues closeOrderSQL for o on b; when it runs, o gets its invoice number
// and the answer is set when the key was pending (and so closed).
func queueCloseOrder(b *pgx.Batch, key string, o *Placed) *bool {
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
	n := len(o.Lines)
	types, codes, plans, descs, reasons := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	units, qtys, amounts := make([]int64, n), make([]int64, n), make([]int64, n)
	keys, bundleCodes, bundleTypes, postTax := make([]string, n), make([]string, n), make([]string, n), make([]bool, n)
	for i, l := range o.Lines {
		types[i], codes[i], plans[i], descs[i], reasons[i] = l.Type, l.AddOnCode, l.PlanType, l.Description, l.Reason
		units[i], qtys[i], amounts[i] = l.UnitAmountInCents, l.Quantity, l.AmountInCents
		keys[i], bundleCodes[i], bundleTypes[i], postTax[i] = l.Key, l.BundleAddOnCode, l.BundleItemType, l.PostTax
	}
	closed := new(bool)
	b.Queue(closeOrderSQL, key, o.InvoiceID, o.ChargeID, o.CreatedAt, o.CreatedAt.Year(),
		o.Kind, nullable(o.AccountID), nullable(o.OrganizationID), o.Email, o.Currency, o.SubtotalInCents, o.TaxInCents,
		o.TotalInCents, o.CreditToAccountInCents, giftTotal, o.TaxLabel, o.TaxJurisdiction, o.ReverseCharge, o.ThirdParty,
		firstNonEmpty(o.PaymentMethod, "CREDIT_CARD"), o.CardBrand, o.CardLast4, o.BillingName, o.BillingCountry, o.BillingZip,
		o.BusinessID, o.IsEU,
		types, codes, plans, descs, reasons, units, qtys, amounts, keys, bundleCodes, bundleTypes, postTax).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&o.InvoiceNumber)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("close submission and write the order: %w", err)
		}
		*closed = true
		return nil
	})
	return closed
}

// inTx runs f in a transaction whose BEGIN travels with f's first statements (f queues them
// on first and sends it through tx) and whose COMMIT travels with the statements of the
// batch f answers: two round trips fewer than BEGIN and COMMIT on their own. Any error
// rolls back; a connection left inside a transaction is closed by the pool, not reused.
func (p *Pipeline) inTx(ctx context.Context, f func(ctx context.Context, tx pgx.Tx, first *pgx.Batch) (*pgx.Batch, error)) error {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire connection: %w", err)
	}
	defer conn.Release()
	tx := begunTx{conn.Conn()}
	first := &pgx.Batch{}
	first.Queue("BEGIN")
	last, err := f(ctx, tx, first)
	if err == nil {
		if last == nil {
			last = &pgx.Batch{}
		}
		last.Queue("COMMIT")
		err = tx.SendBatch(ctx, last).Close()
	}
	if err != nil && conn.Conn().PgConn().TxStatus() != 'I' {
		_ = tx.Rollback(ctx)
	}
	return err
}

// begunTx is the pgx.Tx of a transaction that inTx began on its connection.
type begunTx struct{ c *pgx.Conn }

var errNested = errors.New("nested transactions are not supported here")

func (begunTx) Begin(context.Context) (pgx.Tx, error) { return nil, errNested }
func (t begunTx) Commit(ctx context.Context) error {
	_, err := t.c.Exec(ctx, "COMMIT")
	return err
}
func (t begunTx) Rollback(ctx context.Context) error {
	_, err := t.c.Exec(ctx, "ROLLBACK")
	return err
}
func (t begunTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	return t.c.CopyFrom(ctx, table, cols, src)
}
func (t begunTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return t.c.SendBatch(ctx, b)
}
func (begunTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }
func (t begunTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.c.Prepare(ctx, name, sql)
}
func (t begunTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return t.c.Exec(ctx, sql, args...)
}
func (t begunTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return t.c.Query(ctx, sql, args...)
}
func (t begunTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return t.c.QueryRow(ctx, sql, args...)
}
func (t begunTx) Conn() *pgx.Conn { return t.c }

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

func orderCompleted(o *Placed, ch Charge, receiptURL string) (kafka.Event, error) {
	ev := &eventsv1.OrderCompleted{OrderId: o.InvoiceID, InvoiceId: o.InvoiceID, InvoiceNumber: o.InvoiceNumber, AccountId: o.AccountID,
		Email: o.Email, OrderKind: o.Kind, BuyerKind: o.BuyerKind, Currency: o.Currency, SubtotalInCents: o.SubtotalInCents,
		TaxInCents: o.TaxInCents, TotalInCents: o.TotalInCents, CardBrand: ch.CardBrand, CardLast4: ch.CardLast4, ChargeId: ch.ID,
		CompletedAt: timestamppb.New(o.CreatedAt), ReceiptUrl: receiptURL, TaxLabel: o.TaxLabel, ReverseCharge: o.ReverseCharge}
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
