package adapters

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// welcomeSQL checks the locked accounts of a batch and inserts the welcome links of those
// password-less and never welcomed, answering their address and kind. The welcome check
// reads password_links_welcome (migration 0009): an account's welcome link, used or not.
const welcomeSQL = `WITH eligible AS (
	SELECT a.uuid, a.email, a.kind, u.hash, u.purpose, u.created_at, u.expires_at
	FROM unnest($1::uuid[], $2::bytea[], $3::text[], $4::timestamptz[], $5::timestamptz[]) AS u(account, hash, purpose, created_at, expires_at)
	JOIN accounts a ON a.uuid = u.account
	WHERE a.password_hash = ''
	  AND NOT EXISTS (SELECT 1 FROM password_links l WHERE l.account_uuid = a.uuid AND l.purpose = 'welcome')),
	issued AS (
	INSERT INTO password_links (token_hash, account_uuid, purpose, created_at, expires_at)
	SELECT hash, uuid, purpose, created_at, expires_at FROM eligible
	RETURNING account_uuid)
	SELECT e.uuid::text, e.email, e.kind FROM eligible e JOIN issued i ON i.account_uuid = e.uuid ORDER BY e.uuid`

// IssueWelcomeLinks stores the welcome link of each of links' accounts that is
// password-less and was never welcomed, with the events events builds from its address and
// kind, in the inbox transaction, under the accounts' row locks. An unknown account (or an
// id that is not a UUID), one with a password or one welcomed already gets nothing; an
// account named twice gets its first link.
//
// The batch costs at most three statements in two round trips, whatever its size: the
// accounts' row locks, taken in uuid order (two replicas' batches naming the same accounts
// wait for each other instead of deadlocking), pipelined with the statement that checks
// the accounts and inserts their links; then the links' events in one insert. The check is
// not in the locking statement: a statement reads with the snapshot it started with, and
// after waiting for a row only locked (not updated) by another transaction it re-checks
// nothing, so it would miss the link that transaction committed and welcome the account a
// second time. The statement after the lock reads with a snapshot taken once it is held.
func (t InboxTx) IssueWelcomeLinks(ctx context.Context, links []domain.AccountLink, events func(l domain.AccountLink, email string, kind domain.Kind) ([]kafka.Event, error)) error {
	byAccount := make(map[string]domain.AccountLink, len(links))
	n := len(links)
	accounts, hashes, purposes := make([]string, 0, n), make([][]byte, 0, n), make([]string, 0, n)
	created, expires := make([]time.Time, 0, n), make([]time.Time, 0, n)
	for _, l := range links {
		id := strings.ToLower(l.AccountUUID) // as the uuid column answers it
		if _, seen := byAccount[id]; seen || !plausibleUUID(id) {
			continue
		}
		byAccount[id] = l
		accounts, hashes, purposes = append(accounts, id), append(hashes, l.Link.Hash), append(purposes, l.Link.Purpose)
		created, expires = append(created, l.Link.CreatedAt), append(expires, l.Link.ExpiresAt)
	}
	if len(accounts) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	b.Queue(`SELECT uuid FROM accounts WHERE uuid = ANY($1::uuid[]) AND password_hash = '' ORDER BY uuid FOR UPDATE`, accounts)
	b.Queue(welcomeSQL,
		accounts, hashes, purposes, created, expires)
	br := t.tx.SendBatch(ctx, b)
	ws, err := readWelcomed(br)
	if cerr := br.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("insert welcome links: %w", cerr)
	}
	if err != nil {
		return err
	}
	var evs []kafka.Event
	for _, w := range ws {
		e, err := events(byAccount[w.Account], w.Email, domain.Kind(w.Kind))
		if err != nil {
			return err
		}
		evs = append(evs, e...)
	}
	return kafka.Enqueue(ctx, t.tx, t.prop, evs...)
}

// welcomed is an account IssueWelcomeLinks welcomed.
type welcomed struct{ Account, Email, Kind string }

// readWelcomed answers IssueWelcomeLinks' batch: the lock, then the accounts welcomed.
func readWelcomed(br pgx.BatchResults) ([]welcomed, error) {
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("lock accounts for their welcome: %w", err)
	}
	rows, err := br.Query()
	if err != nil {
		return nil, fmt.Errorf("insert welcome links: %w", err)
	}
	ws, err := pgx.CollectRows(rows, pgx.RowToStructByPos[welcomed])
	if err != nil {
		return nil, fmt.Errorf("insert welcome links: %w", err)
	}
	return ws, nil
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
