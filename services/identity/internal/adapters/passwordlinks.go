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

// CreateAccountWithLink is CreateAccount for an account without a password: its welcome
// link goes into the same batch (one round trip, one transaction), so the account never
// exists without the link its welcome e-mail carries.
func (s *Store) CreateAccountWithLink(ctx context.Context, a domain.Account, l domain.NewLink, events func(uuid string) ([]kafka.Event, error)) (string, error) {
	return s.createAccount(ctx, a, events, func(b *pgx.Batch, id string) { queueLink(b, id, l) })
}

func queueLink(b *pgx.Batch, accountUUID string, l domain.NewLink) {
	b.Queue(`INSERT INTO password_links (token_hash, account_uuid, purpose, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
		l.Hash, accountUUID, l.Purpose, l.CreatedAt, l.ExpiresAt)
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

const linkCols = `l.account_uuid::text, a.email, a.kind, l.purpose, l.expires_at, l.used_at`

func scanLink(row pgx.Row) (domain.PasswordLink, error) {
	var l domain.PasswordLink
	var kind string
	var used *time.Time
	if err := row.Scan(&l.AccountUUID, &l.Email, &kind, &l.Purpose, &l.ExpiresAt, &used); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return l, domain.ErrLinkInvalid
		}
		return l, fmt.Errorf("read password link: %w", err)
	}
	l.Kind = domain.Kind(kind)
	if used != nil {
		l.UsedAt = *used
	}
	return l, nil
}

// PasswordLink answers the link of a token hash with its account; domain.ErrLinkInvalid when
// there is none.
func (s *Store) PasswordLink(ctx context.Context, hash []byte) (domain.PasswordLink, error) {
	return scanLink(s.pool.QueryRow(ctx, `SELECT `+linkCols+` FROM password_links l JOIN accounts a ON a.uuid = l.account_uuid
		WHERE l.token_hash = $1`, hash))
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
		l, err = scanLink(tx.QueryRow(ctx, `SELECT `+linkCols+` FROM password_links l JOIN accounts a ON a.uuid = l.account_uuid
			WHERE l.token_hash = $1 FOR UPDATE OF l`, hash))
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
