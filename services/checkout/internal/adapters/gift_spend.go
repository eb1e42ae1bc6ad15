package adapters

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// ReserveGiftSpend adds amount (USD minor units) to what each subject bought in gift
// certificates on day, unless that would take any of them past dayCap: all or none, in
// one transaction whose conditional upserts lock the subjects' rows in one order, so
// concurrent submits on any replica never pass the cap together (the second waits for
// the first's row and reads its amount). It answers whether the amount was reserved.
func (s *Store) ReserveGiftSpend(ctx context.Context, subjects []string, day time.Time, amount, dayCap int64) (bool, error) {
	subjects = slices.Compact(slices.Sorted(slices.Values(subjects)))
	reserved := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for _, sub := range subjects {
			var total int64
			err := tx.QueryRow(ctx, `INSERT INTO gift_cap_spend AS g (subject, day, amount)
				SELECT $1::text, $2::date, $3::bigint WHERE $3::bigint <= $4::bigint
				ON CONFLICT (subject, day) DO UPDATE SET amount = g.amount + EXCLUDED.amount
				WHERE g.amount + EXCLUDED.amount <= $4::bigint
				RETURNING amount`, sub, day.UTC().Format(time.DateOnly), amount, dayCap).Scan(&total)
			if errors.Is(err, pgx.ErrNoRows) {
				return errOverCap
			}
			if err != nil {
				return err
			}
		}
		reserved = true
		return nil
	})
	if errors.Is(err, errOverCap) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reserve gift spend: %w", err)
	}
	return reserved, nil
}

var errOverCap = errors.New("over the gift cap")

// ReleaseGiftSpend gives back a reservation whose order was not placed (declined, refused).
func (s *Store) ReleaseGiftSpend(ctx context.Context, subjects []string, day time.Time, amount int64) error {
	_, err := s.pool.Exec(ctx, `UPDATE gift_cap_spend SET amount = GREATEST(amount - $3, 0)
		WHERE subject = ANY($1) AND day = $2::date`, subjects, day.UTC().Format(time.DateOnly), amount)
	if err != nil {
		return fmt.Errorf("release gift spend: %w", err)
	}
	return nil
}
