package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/domain/gift"
	"github.com/hangar/hangar/services/checkout/internal/domain/oneoff"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
)

// CreateCart stores a preconfigured cart under a new random id and answers it.
func (s *Store) CreateCart(ctx context.Context, c oneoff.PresetCart) (oneoff.PresetCart, error) {
	c.UUID = uuid.NewString()
	body, err := json.Marshal(c.Request)
	if err != nil {
		return c, fmt.Errorf("encode cart: %w", err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO preconfigured_carts (id, request_json, commerce_cart_type, created_by) VALUES ($1, $2, $3, $4)`,
		c.UUID, body, c.CartType, c.CreatedBy); err != nil {
		return c, fmt.Errorf("store cart: %w", err)
	}
	return c, nil
}

// Cart answers a preconfigured cart by id, or nil when there is none (or the id is not a UUID).
func (s *Store) Cart(ctx context.Context, id string) (*oneoff.PresetCart, error) {
	if _, err := uuid.Parse(id); err != nil {
		return nil, nil
	}
	var c oneoff.PresetCart
	var body []byte
	err := s.pool.QueryRow(ctx, `SELECT id::text, request_json, commerce_cart_type, created_by FROM preconfigured_carts WHERE id = $1`, id).
		Scan(&c.UUID, &body, &c.CartType, &c.CreatedBy)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read cart %s: %w", id, err)
	}
	if err := json.Unmarshal(body, &c.Request); err != nil {
		return nil, fmt.Errorf("decode cart %s: %w", id, err)
	}
	return &c, nil
}

// execer runs a statement: a pgx.Tx, or the connection of a transaction it began.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// IssueGifts writes certificates in the caller's transaction (the order's), so a
// certificate exists exactly when its purchase is recorded.
func IssueGifts(ctx context.Context, tx execer, certs []gift.Certificate) error {
	for _, c := range certs {
		if _, err := tx.Exec(ctx, `INSERT INTO gift_certificates (id, code, currency, balance_in_cents, initial_in_cents,
			buyer_email, buyer_account_id, recipient_email, recipient_name, message, order_id)
			VALUES ($1, $2, $3, $4, $4, $5, $6, $7, $8, $9, $10)`,
			c.ID, c.Code, c.Currency, c.AmountInCents, c.BuyerEmail, c.BuyerAccountID, c.RecipientEmail, c.RecipientName, c.Message, c.OrderID); err != nil {
			return fmt.Errorf("issue gift certificate %s: %w", c.ID, err)
		}
	}
	return nil
}

// DebitGift takes amount from a certificate in the caller's transaction and answers what
// is left. One conditional UPDATE does it: the row lock serialises concurrent redemptions
// of one code, and the balance condition is re-checked on the locked row, so two orders
// can never spend the same balance twice. An unknown code, another currency, or a balance
// that no longer covers the amount (someone else spent it since the preview) is an error
// with the message to show, and nothing is taken.
func DebitGift(ctx context.Context, tx pgx.Tx, code, currency string, amount int64) (int64, error) {
	if amount <= 0 {
		return 0, errs.E(errs.Invalid, "a gift certificate debit must be positive")
	}
	norm, _ := gift.Normalize(code)
	var left int64
	err := tx.QueryRow(ctx, `UPDATE gift_certificates SET balance_in_cents = balance_in_cents - $3
		WHERE code = $1 AND currency = $2 AND balance_in_cents >= $3 RETURNING balance_in_cents`, norm, currency, amount).Scan(&left)
	if err == nil {
		return left, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("debit gift certificate: %w", err)
	}
	var cur string
	var bal int64
	err = tx.QueryRow(ctx, `SELECT currency, balance_in_cents FROM gift_certificates WHERE code = $1`, norm).Scan(&cur, &bal)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, errs.E(errs.NotFound, "%s", promotion.MsgGiftNotFound)
	case err != nil:
		return 0, fmt.Errorf("read gift certificate: %w", err)
	case cur != currency:
		return 0, errs.E(errs.Precondition, "%s", promotion.MsgGiftCurrency)
	}
	return 0, errs.E(errs.Conflict, "%s", MsgGiftBalanceChanged)
}

// MsgGiftBalanceChanged: the certificate was spent elsewhere between preview and payment.
const MsgGiftBalanceChanged = "The balance of your gift certificate has changed. Please review your order and try again."

// GiftsOfOrder answers the certificates an order (its invoice id) issued, oldest first.
func (s *Store) GiftsOfOrder(ctx context.Context, orderID string) ([]gift.Certificate, error) {
	rows, err := s.pool.Query(ctx, `SELECT id::text, code, currency, initial_in_cents, buyer_email, buyer_account_id, recipient_email,
		recipient_name, message, order_id FROM gift_certificates WHERE order_id = $1 ORDER BY created_at, code`, orderID)
	if err != nil {
		return nil, fmt.Errorf("read gift certificates of %s: %w", orderID, err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (gift.Certificate, error) {
		var c gift.Certificate
		err := r.Scan(&c.ID, &c.Code, &c.Currency, &c.AmountInCents, &c.BuyerEmail, &c.BuyerAccountID, &c.RecipientEmail, &c.RecipientName, &c.Message, &c.OrderID)
		return c, err
	})
}
