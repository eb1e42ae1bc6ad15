package adapters

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/domain/gift"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// querier is what the order's transaction runs its statements on: the connection that
// began it (Write pipelines its BEGIN) or a pgx.Tx (WriteMany).
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
	CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error)
}

// orderTx is order.Tx inside the order's transaction.
type orderTx struct{ q querier }

// Write implements order.Store. The transaction's BEGIN travels with its first statement
// (which closes the key, draws the invoice number and writes the order and its lines: one
// round trip, not five) and its COMMIT with the outbox rows: two round trips fewer than
// BEGIN and COMMIT on their own. Any error rolls back; a connection left inside a
// transaction is closed by the pool, not reused.
func (s *OrderStore) Write(ctx context.Context, h order.Held, o *order.Placed, fulfil order.WriteFunc) (*order.Submission, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire connection: %w", err)
	}
	defer conn.Release()
	c := conn.Conn()
	done, err := s.write(ctx, c, h, o, fulfil)
	if err != nil && c.PgConn().TxStatus() != 'I' {
		_, _ = c.Exec(ctx, "ROLLBACK")
	}
	return done, err
}

func (s *OrderStore) write(ctx context.Context, c *pgx.Conn, h order.Held, o *order.Placed, fulfil order.WriteFunc) (*order.Submission, error) {
	first := &pgx.Batch{}
	first.Queue("BEGIN")
	// The number is drawn, and the order written, only when the statement closes the key
	// under the writer's fence.
	closed := queueCloseOrder(first, h, o)
	if err := c.SendBatch(ctx, first).Close(); err != nil {
		return nil, err
	}
	last := &pgx.Batch{}
	var done *order.Submission
	if !*closed {
		// Someone else (the reconciler, a retry) finished or took over this key meanwhile.
		done = &order.Submission{Key: h.Key}
		err := c.QueryRow(ctx, `SELECT status, coalesce(invoice_id::text, ''), failure_code, failure_msg FROM submissions WHERE key = $1`,
			h.Key).Scan(&done.Status, &done.InvoiceID, &done.FailureCode, &done.FailureMessage)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) { // no row: forgotten (nothing charged)
			return nil, err
		}
	} else {
		if err := applyBalances(ctx, c, o); err != nil {
			return nil, err
		}
		evs, err := fulfil(ctx, orderTx{c})
		if err != nil {
			return nil, err
		}
		// The order's outbox rows go with the COMMIT.
		if err := kafka.QueueEnqueue(ctx, last, s.prop, evs...); err != nil {
			return nil, err
		}
	}
	last.Queue("COMMIT")
	return done, c.SendBatch(ctx, last).Close()
}

// closeOrderSQL completes a pending key ($1) held under the fence $40 and, only then, draws the invoice number
// (the invoice_number function of migration 0012 formats it) and inserts the
// order and its lines (unnested arrays: one statement, where COPY would be a round trip of
// its own). It answers the invoice number, or no row when the key was not pending.
const closeOrderSQL = `WITH closed AS (
	UPDATE submissions SET status = 'completed', invoice_id = $2::uuid, charge_id = $3::text, updated_at = $4::timestamptz
	WHERE key = $1::text AND status = 'pending' AND fence = $40::bigint RETURNING nextval('invoice_numbers') AS seq
), numbered AS (
	SELECT invoice_number($5::integer, seq) AS invoice_number FROM closed
), ord AS (
	INSERT INTO orders (invoice_id, invoice_number, submission_key, kind, account_id, organization_id, email,
		currency, subtotal_in_cents, tax_in_cents, total_in_cents, credit_to_account_in_cents, gift_credit_in_cents, tax_label,
		tax_jurisdiction, reverse_charge, third_party, payment_method, charge_id, card_brand, card_last4, billing_name,
		billing_country, billing_zip, business_id, is_eu, created_at, tax_rate_ppm)
	SELECT $2::uuid, invoice_number, $1::text, $6::text, $7::uuid, $8::uuid, $9::text, $10::text, $11::bigint, $12::bigint,
		$13::bigint, $14::bigint, $15::bigint, $16::text, $17::text, $18::boolean, $19::boolean, $20::text, $3::text, $21::text,
		$22::text, $23::text, $24::text, $25::text, $26::text, $27::boolean, $4::timestamptz, $41::bigint
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
func queueCloseOrder(b *pgx.Batch, h order.Held, o *order.Placed) *bool {
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
	b.Queue(closeOrderSQL, h.Key, o.InvoiceID, o.ChargeID, o.CreatedAt, o.CreatedAt.Year(),
		o.Kind, nullable(o.AccountID), nullable(o.OrganizationID), o.Email, o.Currency, o.SubtotalInCents, o.TaxInCents,
		o.TotalInCents, o.CreditToAccountInCents, o.GiftTotal(), o.TaxLabel, o.TaxJurisdiction, o.ReverseCharge, o.ThirdParty,
		o.PaymentMethodOrCard(), o.CardBrand, o.CardLast4, o.BillingName, o.BillingCountry, o.BillingZip,
		o.BusinessID, o.IsEU,
		types, codes, plans, descs, reasons, units, qtys, amounts, keys, bundleCodes, bundleTypes, postTax, h.Fence, o.TaxRatePPM).QueryRow(func(row pgx.Row) error {
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

// applyBalances redeems promotions and moves gift and account balances.
func applyBalances(ctx context.Context, q querier, o *order.Placed) error {
	for _, code := range o.PromoCodes {
		if err := redeem(ctx, q, strings.ToUpper(code), o.AccountID); err != nil {
			return err
		}
	}
	for _, g := range giftsInLockOrder(o.Gifts) {
		hash, err := giftHash(g)
		if err != nil {
			return err
		}
		// The ledger names the certificate by its id: its code is stored nowhere.
		var id string
		err = q.QueryRow(ctx, `UPDATE gift_certificates SET balance_in_cents = balance_in_cents - $2
			WHERE code_hash = $1 AND currency = $3 AND balance_in_cents >= $2 RETURNING id::text`, hash, g.AmountInCents, o.Currency).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return order.Unfulfillable("A gift certificate of this order no longer covers its amount.")
		}
		if err != nil {
			return fmt.Errorf("debit gift certificate: %w", err)
		}
		if err := movement(ctx, q, o.InvoiceID, "gift", id, -g.AmountInCents); err != nil {
			return err
		}
	}
	if b := o.AccountBalanceInCents; b > 0 {
		tag, err := q.Exec(ctx, `UPDATE account_balances SET balance_in_cents = balance_in_cents - $2
			WHERE account_id = $1 AND currency = $3 AND balance_in_cents >= $2`, o.AccountID, b, o.Currency)
		if err != nil {
			return fmt.Errorf("debit account balance: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return order.Unfulfillable("Your account balance changed.")
		}
		if err := movement(ctx, q, o.InvoiceID, "account_debit", o.AccountID, -b); err != nil {
			return err
		}
	}
	if c := o.CreditToAccountInCents; c > 0 && o.AccountID != "" {
		tag, err := q.Exec(ctx, `INSERT INTO account_balances (account_id, currency, balance_in_cents) VALUES ($1, $2, $3)
			ON CONFLICT (account_id) DO UPDATE SET balance_in_cents = account_balances.balance_in_cents + EXCLUDED.balance_in_cents
			WHERE account_balances.currency = EXCLUDED.currency`, o.AccountID, o.Currency, c)
		if err != nil {
			return fmt.Errorf("credit account: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return order.Unfulfillable("Your account balance is held in another currency.")
		}
		if err := movement(ctx, q, o.InvoiceID, "account_credit", o.AccountID, c); err != nil {
			return err
		}
	}
	return nil
}

// redeem records a promotion redemption; the promotion row is locked while its
// redemptions are counted, so concurrent orders cannot exceed the limit.
func redeem(ctx context.Context, q querier, code, accountID string) error {
	var max int
	err := q.QueryRow(ctx, `SELECT max_redemptions FROM promotions WHERE code = $1 FOR UPDATE`, code).Scan(&max)
	if errors.Is(err, pgx.ErrNoRows) {
		return order.Unfulfillable("The code " + code + " is no longer valid.")
	}
	if err != nil {
		return fmt.Errorf("lock promotion: %w", err)
	}
	if max > 0 {
		var n int
		if err := q.QueryRow(ctx, `SELECT count(*) FROM promotion_redemptions WHERE code = $1`, code).Scan(&n); err != nil {
			return fmt.Errorf("count redemptions: %w", err)
		}
		if n >= max {
			return order.Unfulfillable("The code " + code + " has been fully redeemed.")
		}
	}
	if accountID == "" {
		return nil
	}
	tag, err := q.Exec(ctx, `INSERT INTO promotion_redemptions (code, account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, code, accountID)
	if err != nil {
		return fmt.Errorf("redeem %s: %w", code, err)
	}
	if tag.RowsAffected() == 0 {
		return order.Unfulfillable("Code already used.")
	}
	return nil
}

// giftHash is the stored hash of the certificate a debit names.
func giftHash(g order.GiftDebit) ([]byte, error) {
	if g.Ref == "" {
		return promotion.GiftCodeHash(g.Code), nil
	}
	h, err := hex.DecodeString(g.Ref)
	if err != nil {
		return nil, fmt.Errorf("gift debit ref %q: %w", g.Ref, err)
	}
	return h, nil
}

func movement(ctx context.Context, q querier, invoiceID, kind, ref string, amount int64) error {
	if _, err := q.Exec(ctx, `INSERT INTO balance_movements (invoice_id, kind, ref, amount_in_cents) VALUES ($1, $2, $3, $4)`,
		invoiceID, kind, ref, amount); err != nil {
		return fmt.Errorf("record balance movement: %w", err)
	}
	return nil
}

// WriteMany implements order.Store: the keys still pending under their writer's fences
// closed in one statement, the others' states read in one, their numbers drawn in one,
// orders and lines by two COPY statements, then fulfil and the outbox rows by one COPY.
func (s *OrderStore) WriteMany(ctx context.Context, held []order.Held, os []*order.Placed, fulfil order.BatchWriteFunc) (map[string]*order.Submission, error) {
	var done map[string]*order.Submission
	keys := make([]string, len(held))
	for n, h := range held {
		keys[n] = h.Key
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		mine, others, err := closeSubmissions(ctx, tx, held, os)
		if err != nil {
			return err
		}
		if done, err = finishedSubmissions(ctx, tx, others); err != nil || len(mine) == 0 {
			return err
		}
		if err := insertOrders(ctx, tx, keys, os, mine); err != nil {
			return err
		}
		evs, err := fulfil(ctx, orderTx{tx}, mine)
		if err != nil {
			return err
		}
		return kafka.Enqueue(ctx, tx, s.prop, evs...)
	})
	return done, err
}

// closeSubmissions completes the submissions pending under the writer's fences and
// answers the indexes of the ones it closed and the keys it did not (finished or taken
// over elsewhere).
func closeSubmissions(ctx context.Context, tx pgx.Tx, held []order.Held, os []*order.Placed) (mine []int, others []string, err error) {
	keys, fences := make([]string, len(held)), make([]int64, len(held))
	invoices, chargeIDs := make([]string, len(held)), make([]string, len(held))
	for n, h := range held {
		keys[n], fences[n], invoices[n], chargeIDs[n] = h.Key, h.Fence, os[n].InvoiceID, os[n].ChargeID
	}
	rows, err := tx.Query(ctx, `UPDATE submissions s SET status = 'completed', invoice_id = u.inv::uuid, charge_id = u.ch, updated_at = $4
		FROM unnest($1::text[], $2::text[], $3::text[], $5::bigint[]) AS u(k, inv, ch, f)
		WHERE s.key = u.k AND s.status = 'pending' AND s.fence = u.f RETURNING s.key`,
		keys, invoices, chargeIDs, os[0].CreatedAt, fences)
	if err != nil {
		return nil, nil, fmt.Errorf("close submissions: %w", err)
	}
	closed, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, nil, fmt.Errorf("close submissions: %w", err)
	}
	isClosed := make(map[string]bool, len(closed))
	for _, k := range closed {
		isClosed[k] = true
	}
	for n, k := range keys {
		if isClosed[k] {
			mine = append(mine, n)
		} else {
			others = append(others, k)
		}
	}
	return mine, others, nil
}

// finishedSubmissions answers the submission of each key as it is (finished or taken over
// elsewhere); a key without one (forgotten) answers an empty status.
func finishedSubmissions(ctx context.Context, tx pgx.Tx, keys []string) (map[string]*order.Submission, error) {
	done := make(map[string]*order.Submission, len(keys))
	if len(keys) == 0 {
		return done, nil
	}
	for _, k := range keys {
		done[k] = &order.Submission{Key: k}
	}
	rows, err := tx.Query(ctx, `SELECT key, status, coalesce(invoice_id::text, ''), failure_code, failure_msg FROM submissions
		WHERE key = ANY($1)`, keys)
	if err != nil {
		return nil, fmt.Errorf("read finished submissions: %w", err)
	}
	var sub order.Submission
	if _, err := pgx.ForEachRow(rows, []any{&sub.Key, &sub.Status, &sub.InvoiceID, &sub.FailureCode, &sub.FailureMessage}, func() error {
		x := sub
		done[x.Key] = &x
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read finished submissions: %w", err)
	}
	return done, nil
}

// insertOrders numbers the orders os[n] for n in mine (the invoice_number function of
// migration 0012, as closeOrderSQL) and copies them and their invoice lines.
func insertOrders(ctx context.Context, tx pgx.Tx, keys []string, os []*order.Placed, mine []int) error {
	years := make([]int, len(mine))
	for j, n := range mine {
		years[j] = os[n].CreatedAt.Year()
	}
	rows, err := tx.Query(ctx, `SELECT invoice_number(y, nextval('invoice_numbers')) FROM unnest($1::integer[]) WITH ORDINALITY AS t(y, n) ORDER BY n`, years)
	if err != nil {
		return fmt.Errorf("invoice numbers: %w", err)
	}
	numbers, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(numbers) != len(mine) {
		return fmt.Errorf("invoice numbers: %w", errors.Join(err, errors.New("short")))
	}
	orderRows := make([][]any, len(mine))
	var lineRows [][]any
	for j, n := range mine {
		o := os[n]
		o.InvoiceNumber = numbers[j]
		orderRows[j] = []any{o.InvoiceID, o.InvoiceNumber, keys[n], o.Kind, nullable(o.AccountID), nullable(o.OrganizationID), o.Email,
			o.Currency, o.SubtotalInCents, o.TaxInCents, o.TotalInCents, o.CreditToAccountInCents, int64(0), o.TaxLabel,
			o.TaxJurisdiction, o.ReverseCharge, o.ThirdParty, o.PaymentMethodOrCard(), o.ChargeID, o.CardBrand,
			o.CardLast4, o.BillingName, o.BillingCountry, o.BillingZip, o.BusinessID, o.IsEU, o.CreatedAt, o.TaxRatePPM}
		for i, l := range o.Lines {
			lineRows = append(lineRows, []any{o.InvoiceID, i, l.Type, l.AddOnCode, l.PlanType, l.Description, l.Reason,
				l.UnitAmountInCents, l.Quantity, l.AmountInCents, l.Key, l.BundleAddOnCode, l.BundleItemType, l.PostTax})
		}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"orders"}, []string{"invoice_id", "invoice_number", "submission_key", "kind", "account_id",
		"organization_id", "email", "currency", "subtotal_in_cents", "tax_in_cents", "total_in_cents", "credit_to_account_in_cents",
		"gift_credit_in_cents", "tax_label", "tax_jurisdiction", "reverse_charge", "third_party", "payment_method", "charge_id",
		"card_brand", "card_last4", "billing_name", "billing_country", "billing_zip", "business_id", "is_eu", "created_at", "tax_rate_ppm"},
		pgx.CopyFromRows(orderRows)); err != nil {
		return fmt.Errorf("insert orders: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"invoice_lines"}, []string{"invoice_id", "position", "type", "add_on_code", "plan_type",
		"description", "reason", "unit_amount_in_cents", "quantity", "amount_in_cents", "line_key", "bundle_add_on_code",
		"bundle_item_type", "post_tax"}, pgx.CopyFromRows(lineRows)); err != nil {
		return fmt.Errorf("insert invoice lines: %w", err)
	}
	return nil
}

// IssueGifts implements order.Tx.
func (t orderTx) IssueGifts(ctx context.Context, certs []gift.Certificate) error {
	return IssueGifts(ctx, t.q, certs)
}

// upsertSubscription writes the subscription of an order (new, changed or renewed).
const upsertSubscription = `INSERT INTO subscriptions (id, account_id, email, name, plan_code, add_ons, quantity, currency, price_in_cents,
		term_start, term_end, payment_source, payment_method, military, valid, business_id, billing_country, billing_zip, billing_name,
		organization_id, parent_account_id, licensing_method, is_eu, last_invoice_id, payment_method_token, card_expires_at, version, updated_at)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,'CREDIT_CARD',$12,$13,true,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,1,now())
		ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, plan_code = EXCLUDED.plan_code, add_ons = EXCLUDED.add_ons,
		quantity = EXCLUDED.quantity, currency = EXCLUDED.currency, price_in_cents = EXCLUDED.price_in_cents,
		term_start = EXCLUDED.term_start, term_end = EXCLUDED.term_end, payment_method = EXCLUDED.payment_method,
		military = EXCLUDED.military, valid = true, business_id = EXCLUDED.business_id, billing_country = EXCLUDED.billing_country,
		billing_zip = EXCLUDED.billing_zip, billing_name = EXCLUDED.billing_name, is_eu = subscriptions.is_eu OR EXCLUDED.is_eu,
		last_invoice_id = EXCLUDED.last_invoice_id,
		payment_method_token = coalesce(nullif(EXCLUDED.payment_method_token, ''), subscriptions.payment_method_token),
		card_expires_at = coalesce(EXCLUDED.card_expires_at, CASE WHEN EXCLUDED.payment_method_token IN ('', subscriptions.payment_method_token)
			THEN subscriptions.card_expires_at END),
		lapsed_at = NULL,
		-- A term stacked after the current one (an early renewal) keeps the current term's
		-- unused days paid for; a change restarts the term today (its credit given).
		earlier_terms = CASE WHEN EXCLUDED.term_start > now() THEN
			(SELECT coalesce(jsonb_agg(t), '[]') FROM jsonb_array_elements(subscriptions.earlier_terms ||
				jsonb_build_array(jsonb_build_object('start', subscriptions.term_start, 'end', subscriptions.term_end,
					'priceInCents', subscriptions.price_in_cents))) t
			WHERE (t->>'end')::timestamptz > now()) ELSE '[]' END,
		version = subscriptions.version + 1, updated_at = now()
		RETURNING version, auto_renew`

// WriteSubscriptions implements order.Tx: one statement for one subscription, a pipelined
// batch for many (one round trip either way).
func (t orderTx) WriteSubscriptions(ctx context.Context, subs []*order.SubscriptionWrite) error {
	args := func(w *order.SubscriptionWrite) []any {
		return []any{w.ID, w.AccountID, w.Email, w.Name, w.PlanCode, w.AddOns, w.Quantity, w.Currency, w.PriceInCents, w.TermStart,
			w.TermEnd, w.PaymentMethod, w.Military, w.BusinessID, w.BillingCountry, w.BillingZip, w.BillingName,
			nullable(w.OrganizationID), nullable(w.ParentAccountID), w.LicensingMethod, w.IsEU, w.InvoiceID, w.PaymentMethodToken,
			w.CardExpiresAt}
	}
	if len(subs) == 1 {
		w := subs[0]
		if err := t.q.QueryRow(ctx, upsertSubscription, args(w)...).Scan(&w.Version, &w.AutoRenew); err != nil {
			return fmt.Errorf("write subscription: %w", err)
		}
		return nil
	}
	b := &pgx.Batch{}
	for _, w := range subs {
		b.Queue(upsertSubscription, args(w)...).QueryRow(func(row pgx.Row) error { return row.Scan(&w.Version, &w.AutoRenew) })
	}
	if err := t.q.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("write subscriptions: %w", err)
	}
	return nil
}
