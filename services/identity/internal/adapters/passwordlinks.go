package adapters

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// IssueWelcomeLink stores the welcome link l of a password-less account that never had
// one, with the events events builds from the account's address and kind, in the inbox
// transaction, under the account's row lock; it answers false (nothing written) for an
// unknown account, one with a password, or one already welcomed.
func (t InboxTx) IssueWelcomeLink(ctx context.Context, accountUUID string, l domain.NewLink, events func(email string, kind domain.Kind) ([]kafka.Event, error)) (bool, error) {
	if !plausibleUUID(accountUUID) {
		return false, nil
	}
	var email, kind string
	err := t.tx.QueryRow(ctx, `SELECT email, kind FROM accounts a WHERE uuid = $1 AND password_hash = ''
		AND NOT EXISTS (SELECT 1 FROM password_links l WHERE l.account_uuid = a.uuid AND l.purpose = 'welcome')
		FOR UPDATE`, accountUUID).Scan(&email, &kind)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read account %s for its welcome: %w", accountUUID, err)
	}
	if _, err := t.tx.Exec(ctx, `INSERT INTO password_links (token_hash, account_uuid, purpose, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5)`, l.Hash, accountUUID, l.Purpose, l.CreatedAt, l.ExpiresAt); err != nil {
		return false, fmt.Errorf("insert welcome link: %w", err)
	}
	evs, err := events(email, domain.Kind(kind))
	if err != nil {
		return false, err
	}
	return true, kafka.Enqueue(ctx, t.tx, t.prop, evs...)
}

// IssuePasswordLink stores a link for the account and enqueues its events, in one
// transaction. Every earlier open link of the account ends: only the newest e-mail works.
func (s *Store) IssuePasswordLink(ctx context.Context, accountUUID string, l domain.NewLink, events []kafka.Event) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE password_links SET expires_at = $2
			WHERE account_uuid = $1 AND used_at IS NULL AND expires_at > $2`, accountUUID, l.CreatedAt); err != nil {
			return fmt.Errorf("end earlier password links: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO password_links (token_hash, account_uuid, purpose, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5)`, l.Hash, accountUUID, l.Purpose, l.CreatedAt, l.ExpiresAt); err != nil {
			return fmt.Errorf("insert password link: %w", err)
		}
		return kafka.Enqueue(ctx, tx, s.prop, events...)
	})
}

const linkByHash = `SELECT l.account_uuid::text, a.email, a.kind, l.purpose, l.expires_at, l.used_at
	FROM password_links l JOIN accounts a ON a.uuid = l.account_uuid WHERE l.token_hash = $1`

func scanLink(row pgx.Row) (domain.PasswordLink, error) {
	var l domain.PasswordLink
	var kind string
	if err := scanToken(row, domain.ErrLinkInvalid, "password link", &l.UsedAt, &l.AccountUUID, &l.Email, &kind,
		&l.Purpose, &l.ExpiresAt); err != nil {
		return l, err
	}
	l.Kind = domain.Kind(kind)
	return l, nil
}

// PasswordLink answers the link of a token hash with its account; domain.ErrLinkInvalid when
// there is none.
func (s *Store) PasswordLink(ctx context.Context, hash []byte) (domain.PasswordLink, error) {
	return scanLink(s.pool.QueryRow(ctx, linkByHash, hash))
}

// UsePasswordLink spends the link of a token hash, in one transaction: under the link's
// row lock it checks that the link is still usable at now (else domain.ErrLinkInvalid, nothing
// written), sets the account's password hash, ends every open link of the account, revokes
// every session of the account (the caller starts the new one), and enqueues the events
// events builds. Two concurrent uses of one link: the second waits for the lock and finds
// it used.
func (s *Store) UsePasswordLink(ctx context.Context, hash []byte, now time.Time, passwordHash string, events func(domain.PasswordLink) ([]kafka.Event, error)) (domain.PasswordLink, error) {
	var l domain.PasswordLink
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		l, err = scanLink(tx.QueryRow(ctx, linkByHash+` FOR UPDATE OF l`, hash))
		if err != nil {
			return err
		}
		if !l.Usable(now) {
			return domain.ErrLinkInvalid
		}
		if _, err := tx.Exec(ctx, `UPDATE accounts SET password_hash = $2 WHERE uuid = $1`, l.AccountUUID, passwordHash); err != nil {
			return fmt.Errorf("set password: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE password_links SET used_at = $2 WHERE account_uuid = $1 AND used_at IS NULL`, l.AccountUUID, now); err != nil {
			return fmt.Errorf("use password link: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE sessions SET revoked_at = $2 WHERE account_uuid = $1 AND revoked_at IS NULL`, l.AccountUUID, now); err != nil {
			return fmt.Errorf("revoke sessions: %w", err)
		}
		evs, err := events(l)
		if err != nil {
			return err
		}
		return kafka.Enqueue(ctx, tx, s.prop, evs...)
	})
	return l, err
}
