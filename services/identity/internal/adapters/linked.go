package adapters

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// LinkedAccounts answers the partner accounts linked to a store account, by partner id.
func (s *Store) LinkedAccounts(ctx context.Context, accountUUID string) ([]domain.LinkedAccount, error) {
	rows, err := s.pool.Query(ctx, `SELECT jepp_account_id, username, linked_avionics_at IS NOT NULL
		FROM linked_partner_accounts WHERE account_uuid = $1 ORDER BY jepp_account_id`, accountUUID)
	if err != nil {
		return nil, fmt.Errorf("list linked accounts: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.LinkedAccount, error) {
		var a domain.LinkedAccount
		return a, r.Scan(&a.JeppAccountID, &a.Username, &a.LinkedAvionics)
	})
	if err != nil {
		return nil, fmt.Errorf("list linked accounts: %w", err)
	}
	return out, nil
}

// LinkAvionics marks the store account's avionics databases linked to one of its partner
// accounts. Linking again keeps the first time; an unknown pair is NotFound.
func (s *Store) LinkAvionics(ctx context.Context, accountUUID, jeppAccountID string, at time.Time) (domain.LinkedAccount, error) {
	var a domain.LinkedAccount
	err := s.pool.QueryRow(ctx, `UPDATE linked_partner_accounts SET linked_avionics_at = COALESCE(linked_avionics_at, $3)
		WHERE account_uuid = $1 AND jepp_account_id = $2 RETURNING jepp_account_id, username`, accountUUID, jeppAccountID, at).
		Scan(&a.JeppAccountID, &a.Username)
	if errors.Is(err, pgx.ErrNoRows) {
		return a, errs.E(errs.NotFound, "no such linked account")
	}
	if err != nil {
		return a, fmt.Errorf("link avionics: %w", err)
	}
	a.LinkedAvionics = true
	return a, nil
}

// AddLinkedAccount records a partner account linked to a store account (seed and tests;
// the partner's own linking flow writes here too). Existing pairs keep their state.
func (s *Store) AddLinkedAccount(ctx context.Context, accountUUID, jeppAccountID, username string) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO linked_partner_accounts (account_uuid, jepp_account_id, username)
		VALUES ($1, $2, $3) ON CONFLICT (account_uuid, jepp_account_id) DO NOTHING`, accountUUID, jeppAccountID, username)
	if err != nil {
		return fmt.Errorf("add linked account: %w", err)
	}
	return nil
}
