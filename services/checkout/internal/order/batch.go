package order

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
)

// BatchFulfiller is a Fulfiller that writes many orders of its kind in one round trip
// (the renewal pass writes its renewals in batches). FulfilBatch answers each order's
// events, in the orders' order; an error rolls the whole batch back.
type BatchFulfiller interface {
	Fulfiller
	FulfilBatch(ctx context.Context, tx pgx.Tx, orders []*Placed) ([][]kafka.Event, error)
}

// BatchItem is one purchase of PlaceBatch, with its idempotency key.
type BatchItem struct {
	Key, RequestHash string
	Purchase         *Purchase
	Payment          Payment
}

// BatchResult is PlaceBatch's answer for one item: the order, or the error Place would
// have answered (a DeclinedError, an outage, ErrInProgress).
type BatchResult struct {
	Placed *Placed
	Err    error
}

// chargeConcurrency bounds the payments calls of one batch in flight at once.
const chargeConcurrency = 16

// PlaceBatch places many purchases with the guarantees of Place, each once per key: the
// new keys are claimed in one statement, charged concurrently (each with its own charge
// key, as Place does) and the paid ones written in one transaction. A key seen before, a
// purchase moving balances (promotions, gift certificates, account balance or credit) or
// a kind without a BatchFulfiller goes through Place; when the batch's write fails (an
// unfulfillable order among them), each order is written on its own, so one order cannot
// hold the others back. The answers are in the items' order.
func (p *Pipeline) PlaceBatch(ctx context.Context, items []BatchItem) []BatchResult {
	ctx = context.WithoutCancel(ctx)
	out := make([]BatchResult, len(items))
	var batch []int
	for i, it := range items {
		if p.batchable(it.Purchase) {
			batch = append(batch, i)
		}
	}
	claimed, err := p.claimBatch(ctx, items, batch)
	if err != nil {
		for _, i := range batch {
			out[i].Err = err
		}
		claimed = map[int]bool{}
	}
	for i, it := range items {
		if !claimed[i] && out[i].Err == nil {
			out[i].Placed, out[i].Err = p.Place(ctx, it.Key, it.RequestHash, it.Purchase, it.Payment)
		}
	}
	charges := p.chargeBatch(ctx, items, claimed, out)
	p.writeBatch(ctx, items, charges, out)
	return out
}

// batchable: a purchase PlaceBatch writes in its batch transaction.
func (p *Pipeline) batchable(pu *Purchase) bool {
	if _, ok := p.fulfillers[pu.Kind].(BatchFulfiller); !ok {
		return false
	}
	return len(pu.PromoCodes) == 0 && len(pu.Gifts) == 0 && pu.AccountBalanceInCents == 0 && pu.CreditToAccountInCents == 0
}

// claimBatch inserts the pending submissions of the batch in one statement and answers
// which items it claimed (the others' keys exist: Place handles them).
func (p *Pipeline) claimBatch(ctx context.Context, items []BatchItem, batch []int) (map[int]bool, error) {
	claimed := map[int]bool{}
	if len(batch) == 0 {
		return claimed, nil
	}
	now := p.now()
	keys, hashes, kinds, bodies, chargeKeys := make([]string, len(batch)), make([]string, len(batch)), make([]string, len(batch)),
		make([]string, len(batch)), make([]string, len(batch))
	index := make(map[string]int, len(batch))
	for n, i := range batch {
		it := items[i]
		body, err := json.Marshal(stored{Purchase: *it.Purchase, Payment: it.Payment})
		if err != nil {
			return nil, fmt.Errorf("encode purchase: %w", err)
		}
		keys[n], hashes[n], kinds[n], bodies[n], chargeKeys[n] = it.Key, it.RequestHash, it.Purchase.Kind, string(body), ChargeKey(it.Purchase.Kind, it.Key)
		index[it.Key] = i
	}
	rows, err := p.pool.Query(ctx, `INSERT INTO submissions (key, request_hash, kind, purchase, charge_key, lease_until)
		SELECT k, h, kd, b::jsonb, ck, $6 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS u(k, h, kd, b, ck)
		ON CONFLICT (key) DO NOTHING RETURNING key`, keys, hashes, kinds, bodies, chargeKeys, now.Add(p.lease))
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, fmt.Errorf("claim submissions: %w", err), "orders are unavailable; try again")
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, fmt.Errorf("claim submissions: %w", err), "orders are unavailable; try again")
	}
	for _, k := range got {
		claimed[index[k]] = true
	}
	return claimed, nil
}

// chargeBatch charges the claimed items concurrently; a failed charge is answered in out
// (and its lease given up, as payAndWrite does). It answers the paid charges by item.
func (p *Pipeline) chargeBatch(ctx context.Context, items []BatchItem, claimed map[int]bool, out []BatchResult) map[int]Charge {
	paid := make(map[int]Charge, len(claimed))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, chargeConcurrency)
	for i := range claimed {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			it := items[i]
			ch, err := p.charge(ctx, it.Key, ChargeKey(it.Purchase.Kind, it.Key), it.Purchase, it.Payment)
			if err == nil && p.afterCharge != nil {
				if aerr := p.afterCharge(it.Key); aerr != nil {
					err = errs.Wrap(errs.Unavailable, aerr, "Your order is being completed. Please check your receipt in a moment.")
					ch.Status = "PENDING" // left to the reconciler, as payAndWrite leaves it
				}
			}
			if err != nil {
				if _, declined := AsDeclined(err); !declined && ch.Status != "PENDING" {
					p.release(it.Key)
				}
				mu.Lock()
				out[i].Err = err
				mu.Unlock()
				return
			}
			if ch.MethodToken == "" {
				ch.MethodToken = it.Payment.Token
			}
			mu.Lock()
			paid[i] = ch
			mu.Unlock()
		}()
	}
	wg.Wait()
	return paid
}

// writeBatch writes the paid orders in one transaction, or each on its own when the batch
// transaction fails.
func (p *Pipeline) writeBatch(ctx context.Context, items []BatchItem, paid map[int]Charge, out []BatchResult) {
	if len(paid) == 0 {
		return
	}
	created := p.now().UTC().Truncate(time.Second)
	var w batchWrite
	for i := range items {
		if ch, ok := paid[i]; ok {
			w.idx = append(w.idx, i)
			w.keys = append(w.keys, items[i].Key)
			w.charges = append(w.charges, ch)
			w.placed = append(w.placed, &Placed{Purchase: *items[i].Purchase, InvoiceID: newInvoiceID(), ChargeID: ch.ID,
				CardBrand: ch.CardBrand, CardLast4: ch.CardLast4, PaymentMethodToken: ch.MethodToken, CardExpires: ch.CardExpires,
				CreatedAt: created})
		}
	}
	var done map[string]string
	var written map[*Placed][]kafka.Event
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		var err error
		done, written, err = p.writeBatchTx(ctx, tx, &w)
		return err
	})
	if err != nil {
		p.log.WarnContext(ctx, "batch write failed; writing its orders one by one", "orders", len(w.idx), "err", err.Error())
		for n, i := range w.idx {
			pl, werr := p.write(ctx, w.keys[n], items[i].Purchase, w.charges[n])
			if errors.Is(werr, ErrUnfulfillable) {
				werr = p.refund(ctx, w.keys[n], w.charges[n], werr)
			}
			out[i] = BatchResult{Placed: pl, Err: werr}
		}
		return
	}
	for n, i := range w.idx {
		pl := w.placed[n]
		if evs, ok := written[pl]; ok {
			p.metrics.completed(pl, evs)
			out[i] = BatchResult{Placed: pl}
			continue
		}
		// Finished meanwhile by the reconciler or a retry: answer that order.
		inv, ok := done[w.keys[n]]
		if !ok || inv == "" {
			out[i].Err = errs.E(errs.Unavailable, "order state changed; try again")
			continue
		}
		pl, lerr := p.Load(ctx, inv)
		if pl != nil {
			pl.Replayed = true
		}
		out[i] = BatchResult{Placed: pl, Err: lerr}
	}
}

// batchWrite is the paid part of a batch: item index, key, charge and order to write.
type batchWrite struct {
	idx     []int
	keys    []string
	charges []Charge
	placed  []*Placed
}

// writeBatchTx is write for a batch in tx: closes the keys still pending, numbers and
// inserts their orders and lines, runs the kind's FulfilBatch and enqueues the events. It
// answers the invoices of the keys finished elsewhere and the written orders' fulfilment
// events.
func (p *Pipeline) writeBatchTx(ctx context.Context, tx pgx.Tx, w *batchWrite) (map[string]string, map[*Placed][]kafka.Event, error) {
	invoices, chargeIDs := make([]string, len(w.keys)), make([]string, len(w.keys))
	for n := range w.keys {
		invoices[n], chargeIDs[n] = w.placed[n].InvoiceID, w.charges[n].ID
	}
	rows, err := tx.Query(ctx, `UPDATE submissions s SET status = 'completed', invoice_id = u.inv::uuid, charge_id = u.ch, updated_at = $4
		FROM unnest($1::text[], $2::text[], $3::text[]) AS u(k, inv, ch) WHERE s.key = u.k AND s.status = 'pending' RETURNING s.key`,
		w.keys, invoices, chargeIDs, w.placed[0].CreatedAt)
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
	var mine batchWrite
	var others []string
	for n, k := range w.keys {
		if isClosed[k] {
			mine.keys, mine.charges, mine.placed = append(mine.keys, k), append(mine.charges, w.charges[n]), append(mine.placed, w.placed[n])
		} else {
			others = append(others, k)
		}
	}
	done := map[string]string{}
	if len(others) > 0 {
		rows, err := tx.Query(ctx, `SELECT key, coalesce(invoice_id::text, '') FROM submissions WHERE key = ANY($1)`, others)
		if err != nil {
			return nil, nil, fmt.Errorf("read finished submissions: %w", err)
		}
		var k, inv string
		if _, err := pgx.ForEachRow(rows, []any{&k, &inv}, func() error { done[k] = inv; return nil }); err != nil {
			return nil, nil, fmt.Errorf("read finished submissions: %w", err)
		}
	}
	if len(mine.keys) == 0 {
		return done, nil, nil
	}
	written, err := p.insertBatch(ctx, tx, &mine)
	return done, written, err
}

// insertBatch writes the orders (numbers, rows, lines), their kind's state and events.
func (p *Pipeline) insertBatch(ctx context.Context, tx pgx.Tx, w *batchWrite) (map[*Placed][]kafka.Event, error) {
	years := make([]int, len(w.placed))
	for n, o := range w.placed {
		years[n] = o.CreatedAt.Year()
	}
	rows, err := tx.Query(ctx, `SELECT invoice_number(y, nextval('invoice_numbers')) FROM unnest($1::integer[]) WITH ORDINALITY AS t(y, n) ORDER BY n`, years)
	if err != nil {
		return nil, fmt.Errorf("invoice numbers: %w", err)
	}
	numbers, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(numbers) != len(w.placed) {
		return nil, fmt.Errorf("invoice numbers: %w", errors.Join(err, errors.New("short")))
	}
	for n, o := range w.placed {
		o.InvoiceNumber = numbers[n]
	}
	if err := insertOrders(ctx, tx, w); err != nil {
		return nil, err
	}
	byKind := map[string][]*Placed{}
	for _, o := range w.placed {
		byKind[o.Kind] = append(byKind[o.Kind], o)
	}
	written := make(map[*Placed][]kafka.Event, len(w.placed))
	for kind, os := range byKind {
		evs, err := p.fulfillers[kind].(BatchFulfiller).FulfilBatch(ctx, tx, os)
		if err != nil {
			return nil, err
		}
		if len(evs) != len(os) {
			return nil, fmt.Errorf("fulfil %s orders: %d answers for %d orders", kind, len(evs), len(os))
		}
		for n, o := range os {
			written[o] = evs[n]
		}
	}
	all := make([]kafka.Event, 0, 2*len(w.placed))
	for n, o := range w.placed {
		completed, err := orderCompleted(o, w.charges[n], p.receiptURL(o.InvoiceID))
		if err != nil {
			return nil, err
		}
		all = append(append(all, completed), written[o]...)
	}
	return written, kafka.Enqueue(ctx, tx, p.prop, all...)
}

// insertOrders copies the orders and their invoice lines (two COPY statements).
func insertOrders(ctx context.Context, tx pgx.Tx, w *batchWrite) error {
	orderRows := make([][]any, len(w.placed))
	var lineRows [][]any
	for n, o := range w.placed {
		orderRows[n] = []any{o.InvoiceID, o.InvoiceNumber, w.keys[n], o.Kind, nullable(o.AccountID), nullable(o.OrganizationID), o.Email,
			o.Currency, o.SubtotalInCents, o.TaxInCents, o.TotalInCents, o.CreditToAccountInCents, int64(0), o.TaxLabel,
			o.TaxJurisdiction, o.ReverseCharge, o.ThirdParty, firstNonEmpty(o.PaymentMethod, "CREDIT_CARD"), o.ChargeID, o.CardBrand,
			o.CardLast4, o.BillingName, o.BillingCountry, o.BillingZip, o.BusinessID, o.IsEU, o.CreatedAt}
		for i, l := range o.Lines {
			lineRows = append(lineRows, []any{o.InvoiceID, i, l.Type, l.AddOnCode, l.PlanType, l.Description, l.Reason,
				l.UnitAmountInCents, l.Quantity, l.AmountInCents, l.Key, l.BundleAddOnCode, l.BundleItemType, l.PostTax})
		}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"orders"}, []string{"invoice_id", "invoice_number", "submission_key", "kind", "account_id",
		"organization_id", "email", "currency", "subtotal_in_cents", "tax_in_cents", "total_in_cents", "credit_to_account_in_cents",
		"gift_credit_in_cents", "tax_label", "tax_jurisdiction", "reverse_charge", "third_party", "payment_method", "charge_id",
		"card_brand", "card_last4", "billing_name", "billing_country", "billing_zip", "business_id", "is_eu", "created_at"},
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

func nullable(v string) any {
	if v == "" {
		return nil
	}
	return v
}

// Seen answers which of keys have a submission (the renewal pass sends the attempts it met
// before, after a crash or an outage, the one-by-one way).
func (p *Pipeline) Seen(ctx context.Context, keys []string) (map[string]bool, error) {
	rows, err := p.pool.Query(ctx, `SELECT key FROM submissions WHERE key = ANY($1)`, keys)
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, fmt.Errorf("read submissions: %w", err), "orders are unavailable; try again")
	}
	seen, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, errs.Wrap(errs.Unavailable, fmt.Errorf("read submissions: %w", err), "orders are unavailable; try again")
	}
	out := make(map[string]bool, len(seen))
	for _, k := range seen {
		out[k] = true
	}
	return out, nil
}
