package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

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
		// Only the code's hash (and its last four characters) is stored; the code column,
		// the key of rows from before, holds the hash in hex.
		ref := promotion.GiftRef(c.Code)
		if _, err := tx.Exec(ctx, `INSERT INTO gift_certificates (id, code, code_hash, code_hint, currency, balance_in_cents, initial_in_cents,
			buyer_email, buyer_account_id, recipient_email, recipient_name, message, order_id)
			VALUES ($1, upper($2), $3, $4, $5, $6, $6, $7, $8, $9, $10, $11, $12)`,
			c.ID, ref, promotion.GiftCodeHash(c.Code), promotion.MaskGiftCode(c.Code), c.Currency, c.AmountInCents, c.BuyerEmail, c.BuyerAccountID,
			c.RecipientEmail, c.RecipientName, c.Message, c.OrderID); err != nil {
			return fmt.Errorf("issue gift certificate %s: %w", c.ID, err)
		}
	}
	return nil
}

// GiftsOfOrder answers the certificates an order (its invoice id) issued, oldest first.
func (s *Store) GiftsOfOrder(ctx context.Context, orderID string) ([]gift.Certificate, error) {
	rows, err := s.pool.Query(ctx, `SELECT id::text, code_hint, currency, initial_in_cents, buyer_email, buyer_account_id, recipient_email,
		recipient_name, message, order_id FROM gift_certificates WHERE order_id = $1 ORDER BY created_at, id`, orderID)
	if err != nil {
		return nil, fmt.Errorf("read gift certificates of %s: %w", orderID, err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (gift.Certificate, error) {
		var c gift.Certificate
		err := r.Scan(&c.ID, &c.Hint, &c.Currency, &c.AmountInCents, &c.BuyerEmail, &c.BuyerAccountID, &c.RecipientEmail, &c.RecipientName, &c.Message, &c.OrderID)
		return c, err
	})
}
