package adapters

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Entitlement is an account's subscription as checkout last reported it.
type Entitlement struct {
	SubscriptionID, PlanCode, Status string
	AddOns                           []string
	Version                          int64
}

// PutEntitlement records a subscription-changed event in tx: the latest version of the
// account's subscription wins (another subscription of the account replaces it).
func PutEntitlement(ctx context.Context, tx pgx.Tx, account string, e Entitlement) error {
	_, err := tx.Exec(ctx, `INSERT INTO subscription_entitlements (account_uuid, subscription_id, plan_code, add_ons, status, version)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (account_uuid) DO UPDATE SET subscription_id = EXCLUDED.subscription_id, plan_code = EXCLUDED.plan_code,
		add_ons = EXCLUDED.add_ons, status = EXCLUDED.status, version = EXCLUDED.version, updated_at = now()
		WHERE subscription_entitlements.subscription_id <> EXCLUDED.subscription_id
		   OR subscription_entitlements.version < EXCLUDED.version`,
		account, e.SubscriptionID, e.PlanCode, e.AddOns, e.Status, e.Version)
	if err != nil {
		return fmt.Errorf("store entitlement: %w", err)
	}
	return nil
}

// Entitlement answers an account's subscription, or ok false when checkout reported none.
func (s *Store) Entitlement(ctx context.Context, account string) (Entitlement, bool, error) {
	var e Entitlement
	if !plausibleUUID(account) {
		return e, false, nil
	}
	err := s.pool.QueryRow(ctx, `SELECT subscription_id, plan_code, add_ons, status, version FROM subscription_entitlements
		WHERE account_uuid = $1`, account).Scan(&e.SubscriptionID, &e.PlanCode, &e.AddOns, &e.Status, &e.Version)
	if errors.Is(err, pgx.ErrNoRows) {
		return e, false, nil
	}
	if err != nil {
		return e, false, fmt.Errorf("read entitlement: %w", err)
	}
	return e, true, nil
}
