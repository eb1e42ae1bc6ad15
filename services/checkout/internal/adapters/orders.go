package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/lease"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// OrderStore is order.Store on PostgreSQL: the submissions table (one row per idempotency
// key), the orders and their invoice lines, and the order's transaction, whose events go
// to the outbox with its COMMIT.
type OrderStore struct {
	pool *pgxpool.Pool
	prop propagation.TextMapPropagator
}

// NewOrderStore answers the order store of pool's checkout database; prop carries the
// trace into the outbox rows.
func NewOrderStore(pool *pgxpool.Pool, prop propagation.TextMapPropagator) *OrderStore {
	return &OrderStore{pool: pool, prop: prop}
}

var _ order.Store = (*OrderStore)(nil)

func unavailable(err error, what string) error {
	return errs.Wrap(errs.Unavailable, fmt.Errorf("%s: %w", what, err), "orders are unavailable; try again")
}

// Lookup implements order.Store.
func (s *OrderStore) Lookup(ctx context.Context, key string) (*order.Submission, error) {
	var sub order.Submission
	err := s.pool.QueryRow(ctx, `SELECT key, request_hash, kind, status, coalesce(invoice_id::text, ''), failure_code, failure_msg
		FROM submissions WHERE key = $1`, key).Scan(&sub.Key, &sub.RequestHash, &sub.Kind, &sub.Status, &sub.InvoiceID, &sub.FailureCode, &sub.FailureMessage)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, unavailable(err, "read submission")
	}
	return &sub, nil
}

// claimSQL claims a key with a lease on the database's clock and the first fencing token.
func claimSQL() string {
	return `INSERT INTO submissions (key, request_hash, kind, purchase, charge_key, lease_until, fence)
	VALUES ($1, $2, $3, $4, $5, ` + lease.Until("$6") + `, $7) ON CONFLICT (key) DO NOTHING`
}

// Claim implements order.Store; a purchase with promotion codes, gift certificates or
// the account balance reserves them in the same transaction (reserveLimits), or is
// refused unclaimed.
func (s *OrderStore) Claim(ctx context.Context, c order.Claim) (bool, error) {
	body, err := json.Marshal(c.Stored)
	if err != nil {
		return false, fmt.Errorf("encode purchase: %w", err)
	}
	if !holdsLimits(&c.Stored.Purchase) {
		tag, err := s.pool.Exec(ctx, claimSQL(), c.Key, c.RequestHash, c.Kind, body, c.ChargeKey, lease.Interval(c.Lease), order.FirstFence)
		if err != nil {
			return false, unavailable(err, "claim submission")
		}
		return tag.RowsAffected() == 1, nil
	}
	claimed := false
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, claimSQL(), c.Key, c.RequestHash, c.Kind, body, c.ChargeKey, lease.Interval(c.Lease), order.FirstFence)
		if err != nil {
			return unavailable(err, "claim submission")
		}
		if claimed = tag.RowsAffected() == 1; !claimed {
			return nil
		}
		// The key and what its order takes (promotions, gift certificates, the account
		// balance) are reserved together, before the charge.
		return reserveLimits(ctx, tx, c.Key, &c.Stored.Purchase)
	})
	if err != nil {
		var e *errs.Error
		if errors.As(err, &e) {
			return false, err
		}
		return false, unavailable(err, "claim submission")
	}
	return claimed, nil
}

// ClaimMany implements order.Store.
func (s *OrderStore) ClaimMany(ctx context.Context, cs []order.Claim) ([]string, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	keys, hashes, kinds, bodies, chargeKeys := make([]string, len(cs)), make([]string, len(cs)), make([]string, len(cs)),
		make([]string, len(cs)), make([]string, len(cs))
	for n, c := range cs {
		body, err := json.Marshal(c.Stored)
		if err != nil {
			return nil, fmt.Errorf("encode purchase: %w", err)
		}
		keys[n], hashes[n], kinds[n], bodies[n], chargeKeys[n] = c.Key, c.RequestHash, c.Kind, string(body), c.ChargeKey
	}
	rows, err := s.pool.Query(ctx, `INSERT INTO submissions (key, request_hash, kind, purchase, charge_key, lease_until, fence)
		SELECT k, h, kd, b::jsonb, ck, `+lease.Until("$6")+`, $7
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS u(k, h, kd, b, ck)
		ON CONFLICT (key) DO NOTHING RETURNING key`, keys, hashes, kinds, bodies, chargeKeys, lease.Interval(cs[0].Lease), order.FirstFence)
	if err != nil {
		return nil, unavailable(err, "claim submissions")
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, unavailable(err, "claim submissions")
	}
	return got, nil
}

// decodeStored reads a submission's stored purchase and payment.
func decodeStored(body []byte, chargeKey string, fence int64) (order.Stored, error) {
	var st order.Stored
	if err := json.Unmarshal(body, &st); err != nil {
		return st, fmt.Errorf("decode stored purchase: %w", err)
	}
	st.ChargeKey, st.Fence = chargeKey, fence
	return st, nil
}

// TakeOver implements order.Store.
func (s *OrderStore) TakeOver(ctx context.Context, key string, d time.Duration) (order.Stored, bool, error) {
	var body []byte
	var chargeKey string
	var fence int64
	err := s.pool.QueryRow(ctx, `UPDATE submissions SET `+lease.Take("$2")+`, attempts = attempts + 1, updated_at = now()
		WHERE key = $1 AND status = 'pending' AND `+lease.Expired+` RETURNING purchase, charge_key, fence`, key, lease.Interval(d)).
		Scan(&body, &chargeKey, &fence)
	if errors.Is(err, pgx.ErrNoRows) {
		return order.Stored{}, false, nil
	}
	if err != nil {
		return order.Stored{}, false, unavailable(err, "take over submission")
	}
	st, err := decodeStored(body, chargeKey, fence)
	return st, err == nil, err
}

// Reopen implements order.Store. A declined key's reservations stopped counting with the
// decline (only pending keys hold them), so the reopened key reserves its promotions, gift
// certificates and balance again in the same transaction, as Claim does: a code redeemed
// or a balance spent by someone else meanwhile refuses the retry before any charge, the
// key left declined.
func (s *OrderStore) Reopen(ctx context.Context, key string, pay order.Payment, chargeKey string, d time.Duration) (order.Stored, bool, error) {
	payJSON, err := json.Marshal(pay)
	if err != nil {
		return order.Stored{}, false, fmt.Errorf("encode payment: %w", err)
	}
	var st order.Stored
	reopened := false
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var body []byte
		var fence int64
		err := tx.QueryRow(ctx, `UPDATE submissions SET status = 'pending', purchase = jsonb_set(purchase, '{payment}', $2::jsonb),
				charge_key = $3, failure_code = '', failure_msg = '', `+lease.Take("$4")+`, attempts = attempts + 1, updated_at = now()
			WHERE key = $1 AND status = 'declined'
				AND (coalesce(purchase->'payment'->>'nonce', ''), coalesce(purchase->'payment'->>'token', '')) <> ($5::text, $6::text)
			RETURNING purchase, fence`,
			key, payJSON, chargeKey, lease.Interval(d), pay.Nonce, pay.Token).Scan(&body, &fence)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return unavailable(err, "reopen declined submission")
		}
		if st, err = decodeStored(body, chargeKey, fence); err != nil {
			return err
		}
		if err := reserveLimits(ctx, tx, key, &st.Purchase); err != nil {
			return err
		}
		reopened = true
		return nil
	})
	if err != nil {
		var e *errs.Error
		if errors.As(err, &e) {
			return order.Stored{}, false, err
		}
		return order.Stored{}, false, unavailable(err, "reopen declined submission")
	}
	return st, reopened, nil
}

// RenewLeases implements order.Store: one statement for the request's one key or a batch's
// hundred.
func (s *OrderStore) RenewLeases(ctx context.Context, held []order.Held, d time.Duration) error {
	keys, fences := make([]string, len(held)), make([]int64, len(held))
	for n, h := range held {
		keys[n], fences[n] = h.Key, h.Fence
	}
	_, err := s.pool.Exec(ctx, `UPDATE submissions s SET lease_until = `+lease.Until("$3")+`
		FROM unnest($1::text[], $2::bigint[]) AS u(k, f)
		WHERE s.key = u.k AND s.fence = u.f AND s.status = 'pending' AND s.`+lease.Held, keys, fences, lease.Interval(d))
	return err
}

// Release implements order.Store: the lease ends now, so a retry (or the reconciler) may
// take the key over at once.
func (s *OrderStore) Release(ctx context.Context, h order.Held) error {
	_, err := s.pool.Exec(ctx, `UPDATE submissions SET `+lease.Drop+`, updated_at = now()
		WHERE key = $1 AND fence = $2 AND status = 'pending'`, h.Key, h.Fence)
	return err
}

// Forget implements order.Store.
func (s *OrderStore) Forget(ctx context.Context, h order.Held) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM submissions WHERE key = $1 AND fence = $2 AND status = 'pending'`, h.Key, h.Fence)
	return err
}

// Decline implements order.Store.
func (s *OrderStore) Decline(ctx context.Context, h order.Held, d *order.DeclinedError) (bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE submissions SET status = 'declined', failure_code = $3, failure_msg = $4, updated_at = now()
		WHERE key = $1 AND fence = $2 AND status = 'pending'`, h.Key, h.Fence, d.Code, d.Message)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// Refunded implements order.Store.
func (s *OrderStore) Refunded(ctx context.Context, h order.Held, chargeID, cause string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE submissions SET status = 'refunded', charge_id = $3, failure_msg = $4, updated_at = now()
		WHERE key = $1 AND fence = $2 AND status = 'pending'`, h.Key, h.Fence, chargeID, cause); err != nil {
		return errs.Wrap(errs.Unavailable, err, "orders are unavailable; try again")
	}
	return nil
}

// Abandon implements order.Store.
func (s *OrderStore) Abandon(ctx context.Context, h order.Held) error {
	_, err := s.pool.Exec(ctx, `UPDATE submissions SET status = 'abandoned', updated_at = now()
		WHERE key = $1 AND fence = $2 AND status = 'pending'`, h.Key, h.Fence)
	return err
}

// ClaimStale implements order.Store.
func (s *OrderStore) ClaimStale(ctx context.Context, d time.Duration, limit int) ([]order.StaleClaim, error) {
	rows, err := s.pool.Query(ctx, `UPDATE submissions SET `+lease.Take("$1")+`, attempts = attempts + 1, updated_at = now()
		WHERE key IN (SELECT key FROM submissions WHERE status = 'pending' AND `+lease.Expired+` ORDER BY lease_until LIMIT $2
			FOR UPDATE SKIP LOCKED)
		RETURNING key, charge_key, purchase, fence`, lease.Interval(d), limit)
	if err != nil {
		return nil, fmt.Errorf("claim stale submissions: %w", err)
	}
	var out []order.StaleClaim
	var key, chargeKey string
	var body []byte
	var fence int64
	if _, err := pgx.ForEachRow(rows, []any{&key, &chargeKey, &body, &fence}, func() error {
		st, err := decodeStored(body, chargeKey, fence)
		out = append(out, order.StaleClaim{Key: key, Stored: st, Err: err})
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read stale submissions: %w", err)
	}
	return out, nil
}

// LookupMany implements order.Store.
func (s *OrderStore) LookupMany(ctx context.Context, keys []string) (map[string]*order.Submission, error) {
	rows, err := s.pool.Query(ctx, `SELECT key, request_hash, kind, status, coalesce(invoice_id::text, ''), failure_code, failure_msg
		FROM submissions WHERE key = ANY($1)`, keys)
	if err != nil {
		return nil, unavailable(err, "read submissions")
	}
	out := make(map[string]*order.Submission)
	var sub order.Submission
	if _, err := pgx.ForEachRow(rows, []any{&sub.Key, &sub.RequestHash, &sub.Kind, &sub.Status, &sub.InvoiceID, &sub.FailureCode, &sub.FailureMessage},
		func() error {
			x := sub
			out[x.Key] = &x
			return nil
		}); err != nil {
		return nil, unavailable(err, "read submissions")
	}
	return out, nil
}

// Load implements order.Store. The order and its lines are read in one pipelined batch:
// one round trip, one implicit transaction; both reads use their table's primary key.
func (s *OrderStore) Load(ctx context.Context, invoiceID string) (*order.Placed, error) {
	var o order.Placed
	var acct, org *string
	var correction *order.Correction
	found := false
	b := &pgx.Batch{}
	b.Queue(`SELECT invoice_id::text, invoice_number, kind, account_id::text, organization_id::text, email,
		currency, subtotal_in_cents, tax_in_cents, total_in_cents, credit_to_account_in_cents, tax_label, tax_jurisdiction,
		reverse_charge, third_party, payment_method, charge_id, card_brand, card_last4, billing_name, billing_country,
		billing_zip, business_id, is_eu, created_at, invoice_contact, tax_rate_ppm,
		(SELECT jsonb_build_object('number', c.number, 'contact', c.contact, 'createdAt', c.created_at) FROM invoice_corrections c
			WHERE c.invoice_id = orders.invoice_id ORDER BY c.seq DESC LIMIT 1)
		FROM orders WHERE invoice_id = $1`, invoiceID).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&o.InvoiceID, &o.InvoiceNumber, &o.Kind, &acct, &org, &o.Email, &o.Currency, &o.SubtotalInCents,
			&o.TaxInCents, &o.TotalInCents, &o.CreditToAccountInCents, &o.TaxLabel, &o.TaxJurisdiction, &o.ReverseCharge,
			&o.ThirdParty, &o.PaymentMethod, &o.ChargeID, &o.CardBrand, &o.CardLast4, &o.BillingName, &o.BillingCountry,
			&o.BillingZip, &o.BusinessID, &o.IsEU, &o.CreatedAt, &o.InvoiceContact, &o.TaxRatePPM, &correction)
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
		o.Lines, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (order.Line, error) {
			var l order.Line
			err := r.Scan(&l.Type, &l.AddOnCode, &l.PlanType, &l.Description, &l.Reason, &l.UnitAmountInCents, &l.Quantity,
				&l.AmountInCents, &l.Key, &l.BundleAddOnCode, &l.BundleItemType, &l.PostTax)
			return l, err
		})
		return err
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, unavailable(err, "read order")
	}
	if !found {
		return nil, nil
	}
	if correction != nil {
		correction.CreatedAt = correction.CreatedAt.UTC()
		o.Correction, o.InvoiceContact = correction, &correction.Contact
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

// SaveContact implements order.Store, in one transaction under the order's row lock.
func (s *OrderStore) SaveContact(ctx context.Context, invoiceID string, c order.Contact) (found bool, copy *order.Correction, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var number string
		var saved *order.Contact
		err := tx.QueryRow(ctx, `SELECT invoice_number, invoice_contact FROM orders WHERE invoice_id = $1 FOR UPDATE`, invoiceID).Scan(&number, &saved)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		if saved == nil {
			_, err := tx.Exec(ctx, `UPDATE orders SET invoice_contact = $2 WHERE invoice_id = $1`, invoiceID, c)
			return err
		}
		var seq int
		latest := &order.Correction{}
		err = tx.QueryRow(ctx, `SELECT seq, number, contact, created_at FROM invoice_corrections WHERE invoice_id = $1 ORDER BY seq DESC LIMIT 1`,
			invoiceID).Scan(&seq, &latest.Number, &latest.Contact, &latest.CreatedAt)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			latest = nil
		case err != nil:
			return err
		}
		current := saved
		if latest != nil {
			current = &latest.Contact
		}
		if *current == c {
			copy = latest
			return nil
		}
		copy = &order.Correction{Number: fmt.Sprintf("%s-C%d", number, seq+1), Contact: c}
		return tx.QueryRow(ctx, `INSERT INTO invoice_corrections (invoice_id, seq, number, contact) VALUES ($1, $2, $3, $4) RETURNING created_at`,
			invoiceID, seq+1, copy.Number, c).Scan(&copy.CreatedAt)
	})
	if err != nil {
		return false, nil, unavailable(err, "save invoice contact")
	}
	if copy != nil {
		copy.CreatedAt = copy.CreatedAt.UTC()
	}
	return found, copy, nil
}

func nullable(v string) any {
	if v == "" {
		return nil
	}
	return v
}
