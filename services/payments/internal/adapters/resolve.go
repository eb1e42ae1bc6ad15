package adapters

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/lease"
	"github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/domain"
)

// Resolve answers the charge of key, recording it from the processor's side when payments
// has no row of it (adoption). The key is claimed as Charge claims it, by inserting its row,
// so a charge of the key still in flight is waited for (its insert holds the unique index)
// and answered once committed, and a charge of the key arriving meanwhile waits for this one
// and then replays what it recorded. Nothing recorded (step answers nil) leaves no row:
// NotFound. With a sweep token (not 0) the record is made only while that token still holds
// the sweep's lease, checked (and the lease row locked against a takeover) in the same
// transaction: app.ErrSweepLost otherwise.
func (s *Store) Resolve(ctx context.Context, id, key string, now time.Time, sweep int64, step app.ResolveStep) (domain.Charge, error) {
	var out domain.Charge
	var existed, none bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// A claim, never committed as it stands: rewritten below or rolled back.
		tag, err := tx.Exec(ctx, `INSERT INTO charges (id, idempotency_key, request_hash, status, amount, currency, customer_id,
			created_at, updated_at) VALUES ($1, $2, '\x'::bytea, 'pending', 1, '', '', $3, $3) ON CONFLICT (idempotency_key) DO NOTHING`,
			id, key, now)
		if err != nil {
			return fmt.Errorf("claim charge key: %w", err)
		}
		if tag.RowsAffected() == 0 {
			existed = true
			return nil
		}
		c, events, adopt, err := step(ctx)
		if err != nil {
			return err
		}
		if c == nil {
			none = true
			return errNothingToRecord
		}
		if c.ID != id {
			return fmt.Errorf("adopted charge %s is not the claim %s", c.ID, id)
		}
		if sweep != 0 {
			var held bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sweeper_leases WHERE name = $1 AND fence = $2 AND `+lease.Held+`
				FOR SHARE)`, sweepLease, sweep).Scan(&held); err != nil {
				return fmt.Errorf("check the sweep's lease: %w", err)
			}
			if !held {
				return app.ErrSweepLost
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE charges SET request_hash = $2, amount = $3, currency = $4, customer_id = $5,
			authorize_only = $6, reference = $7, description = $8, created_at = $9 WHERE id = $1`,
			c.ID, c.RequestHash, c.Amount, c.Currency, c.CustomerID, c.AuthorizeOnly, c.Reference, c.Description, c.CreatedAt); err != nil {
			return fmt.Errorf("record adopted charge: %w", err)
		}
		if err := saveCharge(ctx, tx, *c); err != nil {
			return err
		}
		if err := kafka.Enqueue(ctx, tx, s.prop, events...); err != nil {
			return err
		}
		if adopt != nil {
			if err := s.adopt(ctx, tx, *adopt); err != nil {
				return err
			}
		}
		out = *c
		return nil
	})
	switch {
	case none:
		return out, errs.E(errs.NotFound, "charge not found")
	case err != nil:
		return out, err
	case existed:
		return s.GetChargeByKey(ctx, key, 0)
	}
	return out, nil
}

var errNothingToRecord = errors.New("nothing to record")

// sweepLease is the processor sweep's row of sweeper_leases.
const sweepLease = "processor"

// TakeSweep takes the processor sweep's lease for d when nobody holds it, with a new
// fencing token; ok false: another sweeper holds it.
func (s *Store) TakeSweep(ctx context.Context, d time.Duration) (fence int64, ok bool, err error) {
	err = s.pool.QueryRow(ctx, `UPDATE sweeper_leases SET `+lease.Take("$2")+` WHERE name = $1 AND `+lease.Expired+` RETURNING fence`,
		sweepLease, lease.Interval(d)).Scan(&fence)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("take the sweep's lease: %w", err)
	}
	return fence, true, nil
}

// RenewSweep extends the sweep's lease by d while fence still holds it (the heartbeat).
func (s *Store) RenewSweep(ctx context.Context, fence int64, d time.Duration) error {
	_, err := s.pool.Exec(ctx, `UPDATE sweeper_leases SET lease_until = `+lease.Until("$3")+` WHERE name = $1 AND fence = $2 AND `+lease.Held,
		sweepLease, fence, lease.Interval(d))
	return err
}

// SweepHeld answers whether fence still holds the sweep's lease.
func (s *Store) SweepHeld(ctx context.Context, fence int64) (bool, error) {
	var held bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sweeper_leases WHERE name = $1 AND fence = $2 AND `+lease.Held+`)`,
		sweepLease, fence).Scan(&held)
	if err != nil {
		return false, fmt.Errorf("check the sweep's lease: %w", err)
	}
	return held, nil
}

// EndSweep gives the sweep's lease up, so the next sweep (of any replica) may take it at once.
func (s *Store) EndSweep(ctx context.Context, fence int64) error {
	_, err := s.pool.Exec(ctx, `UPDATE sweeper_leases SET `+lease.Drop+` WHERE name = $1 AND fence = $2`, sweepLease, fence)
	return err
}

// ChargedTransactions answers which of the processor transaction ids have a charge.
func (s *Store) ChargedTransactions(ctx context.Context, txIDs []string) (map[string]bool, error) {
	rows, err := s.pool.Query(ctx, `SELECT processor_tx_id FROM charges WHERE processor_tx_id = ANY($1)`, txIDs)
	if err != nil {
		return nil, fmt.Errorf("find charges of processor transactions: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}
