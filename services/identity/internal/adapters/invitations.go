package adapters

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// CreateInvitation stores inv and enqueues its events, in one transaction. The earlier
// open invitations of the same address to the same organization end: only the newest mail
// works.
func (s *Store) CreateInvitation(ctx context.Context, inv domain.Invitation, events []kafka.Event) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE invitations SET expires_at = $3
			WHERE org_uuid = $1 AND email = $2 AND accepted_at IS NULL AND expires_at > $3`, inv.Org.UUID, inv.Email, inv.CreatedAt); err != nil {
			return fmt.Errorf("end earlier invitations: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO invitations (token_hash, org_uuid, email, roles, invited_by, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, inv.Hash, inv.Org.UUID, inv.Email, roleStrings(inv.Roles), inv.InvitedBy,
			inv.CreatedAt, inv.ExpiresAt); err != nil {
			return fmt.Errorf("insert invitation: %w", err)
		}
		return kafka.Enqueue(ctx, tx, s.prop, events...)
	})
}

const invitationByHash = `SELECT i.token_hash, o.uuid::text, o.name, o.account_uuid::text, i.email, i.roles,
	i.invited_by::text, i.created_at, i.expires_at, i.accepted_at
	FROM invitations i JOIN organizations o ON o.uuid = i.org_uuid WHERE i.token_hash = $1`

func scanInvitation(row pgx.Row) (domain.Invitation, error) {
	var inv domain.Invitation
	var roles []string
	if err := scanToken(row, domain.ErrInvitationInvalid, "invitation", &inv.AcceptedAt, &inv.Hash, &inv.Org.UUID,
		&inv.Org.Name, &inv.Org.AccountUUID, &inv.Email, &roles, &inv.InvitedBy, &inv.CreatedAt, &inv.ExpiresAt); err != nil {
		return inv, err
	}
	for _, r := range roles {
		inv.Roles = append(inv.Roles, domain.Role(r))
	}
	return inv, nil
}

// Invitation answers the invitation of a token hash with its organization;
// domain.ErrInvitationInvalid when there is none.
func (s *Store) Invitation(ctx context.Context, hash []byte) (domain.Invitation, error) {
	return scanInvitation(s.pool.QueryRow(ctx, invitationByHash, hash))
}

// AcceptInvitation spends the invitation of a token hash, in one transaction: under its
// row lock it checks that it is still usable at now (else domain.ErrInvitationInvalid,
// nothing written), asks decide who accepts (an existing account, or a new one it
// creates here with its events), adds that account to the organization with the
// invitation's roles (a member already keeps the roles they have: an invitation never
// lowers an owner), and records who accepted. Two concurrent acceptances: the second
// waits for the lock and finds it spent.
func (s *Store) AcceptInvitation(ctx context.Context, hash []byte, now time.Time, decide func(domain.Invitation) (domain.Acceptance, error)) (domain.Invitation, string, error) {
	var inv domain.Invitation
	var account string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		inv, err = scanInvitation(tx.QueryRow(ctx, invitationByHash+` FOR UPDATE OF i`, hash))
		if err != nil {
			return err
		}
		if !inv.Usable(now) {
			return domain.ErrInvitationInvalid
		}
		acc, err := decide(inv)
		if err != nil {
			return err
		}
		account = acc.AccountUUID
		if account == "" {
			b, id, err := s.accountBatch(ctx, acc.New, acc.Events, nil)
			if err != nil {
				return err
			}
			if err := accountInsertErr(tx.SendBatch(ctx, b).Close()); err != nil {
				return err
			}
			account = id
		}
		if _, err := tx.Exec(ctx, `INSERT INTO memberships (org_uuid, account_uuid, roles) VALUES ($1, $2, $3)
			ON CONFLICT (org_uuid, account_uuid) DO NOTHING`, inv.Org.UUID, account, roleStrings(inv.Roles)); err != nil {
			return fmt.Errorf("add member to %s: %w", inv.Org.UUID, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE invitations SET accepted_at = $2, accepted_by = $3 WHERE token_hash = $1`, hash, now, account); err != nil {
			return fmt.Errorf("accept invitation: %w", err)
		}
		return nil
	})
	return inv, account, err
}
