package adapters

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ReserveGiftSpend adds amount to what buyer (an e-mail) bought in gift certificates of
// currency on day, unless that would pass dayCap: one statement whose row lock orders
// concurrent submits of one buyer on any replica, so together they never pass the cap.
// It answers whether the amount was reserved.
func (s *Store) ReserveGiftSpend(ctx context.Context, buyer, currency string, day time.Time, amount, dayCap int64) (bool, error) {
	var total int64
	err := s.pool.QueryRow(ctx, `INSERT INTO gift_spend AS g (buyer, day, currency, amount_in_cents)
		SELECT $1::text, $2::date, $3::text, $4::bigint WHERE $4::bigint <= $5::bigint
		ON CONFLICT (buyer, day, currency) DO UPDATE SET amount_in_cents = g.amount_in_cents + EXCLUDED.amount_in_cents
		WHERE g.amount_in_cents + EXCLUDED.amount_in_cents <= $5::bigint
		RETURNING amount_in_cents`, strings.ToLower(strings.TrimSpace(buyer)), day.UTC().Format(time.DateOnly), currency, amount, dayCap).Scan(&total)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reserve gift spend: %w", err)
	}
	return true, nil
}

// ReleaseGiftSpend gives back a reservation whose order was not placed (declined, refused).
func (s *Store) ReleaseGiftSpend(ctx context.Context, buyer, currency string, day time.Time, amount int64) error {
	_, err := s.pool.Exec(ctx, `UPDATE gift_spend SET amount_in_cents = GREATEST(amount_in_cents - $4, 0)
		WHERE buyer = $1 AND day = $2::date AND currency = $3`, strings.ToLower(strings.TrimSpace(buyer)), day.UTC().Format(time.DateOnly), currency, amount)
	if err != nil {
		return fmt.Errorf("release gift spend: %w", err)
	}
	return nil
}
