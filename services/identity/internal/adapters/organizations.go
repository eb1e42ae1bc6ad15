package adapters

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// ProvisionOrganization answers the organization whose own account is ownerUUID, creating
// it with name, the account as its owner with ownerRoles, when there is none (created
// true). An individual account becomes a business account with it. The account row is
// locked first, so two concurrent calls for one account create one organization; an
// existing organization keeps its name. A child account of a group cannot own one.
func (s *Store) ProvisionOrganization(ctx context.Context, ownerUUID, name string, ownerRoles []domain.Role) (org domain.Organization, created bool, err error) {
	if !plausibleUUID(ownerUUID) {
		return org, false, errNoAccount
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var kind string
		if err := tx.QueryRow(ctx, `SELECT kind FROM accounts WHERE uuid = $1 FOR UPDATE`, ownerUUID).Scan(&kind); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return errNoAccount
			}
			return fmt.Errorf("lock account %s: %w", ownerUUID, err)
		}
		err := tx.QueryRow(ctx, `SELECT uuid::text, name, account_uuid::text FROM organizations WHERE account_uuid = $1`, ownerUUID).
			Scan(&org.UUID, &org.Name, &org.AccountUUID)
		if err == nil {
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("read organization of %s: %w", ownerUUID, err)
		}
		if domain.Kind(kind) == domain.Child {
			return errs.E(errs.Precondition, "a child account of a group cannot own an organization")
		}
		if err := tx.QueryRow(ctx, `INSERT INTO organizations (name, account_uuid) VALUES ($1, $2) RETURNING uuid::text, name, account_uuid::text`,
			name, ownerUUID).Scan(&org.UUID, &org.Name, &org.AccountUUID); err != nil {
			return fmt.Errorf("insert organization: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE accounts SET kind = 'business' WHERE uuid = $1 AND kind = 'individual'`, ownerUUID); err != nil {
			return fmt.Errorf("make %s a business account: %w", ownerUUID, err)
		}
		created = true
		return addMember(ctx, tx, org.UUID, ownerUUID, ownerRoles)
	})
	return org, created, err
}
