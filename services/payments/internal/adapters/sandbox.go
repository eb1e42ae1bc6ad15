package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// SandboxStore keeps the sandbox processor's state in the sandbox_* tables
// (migrations/0002_sandbox.sql), implementing gateway.SandboxStore.
type SandboxStore struct {
	pool *pgxpool.Pool // nil when bound to tx
	q    sandboxQuerier
}

// sandboxQuerier is a pool or a transaction.
type sandboxQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// NewSandboxStore keeps the sandbox on pool (migrated with Migrations): the sandbox's own
// pool, not the charges' (see gateway.Sandbox).
func NewSandboxStore(pool *pgxpool.Pool) *SandboxStore {
	return &SandboxStore{pool: pool, q: pool}
}

var _ gateway.SandboxStore = (*SandboxStore)(nil)

// noRow answers gateway.ErrNoSandboxRow for pgx's, other errors wrapped with what.
func noRow(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pgx.ErrNoRows):
		return gateway.ErrNoSandboxRow
	}
	return fmt.Errorf("%s: %w", what, err)
}

// InTx runs fn on the store bound to one transaction (in a transaction already: the same).
func (s *SandboxStore) InTx(ctx context.Context, fn func(gateway.SandboxStore) error) error {
	if s.pool == nil {
		return fn(s)
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return fn(&SandboxStore{q: tx}) })
}

// PutNonce stores a nonce by its hash.
func (s *SandboxStore) PutNonce(ctx context.Context, n gateway.SandboxNonce) error {
	_, err := s.q.Exec(ctx, `INSERT INTO sandbox_nonces (token_hash, kind, outcome, card_brand, card_last4, card_exp_month,
		card_exp_year, wallet_email, cardholder_name, postal_code, fingerprint, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		n.Hash, string(n.Kind), n.Outcome, string(n.Card.Brand), n.Card.Last4, n.Card.ExpMonth, n.Card.ExpYear,
		n.Email, n.Details.CardholderName, n.Details.PostalCode, n.Fingerprint, n.CreatedAt, n.ExpiresAt)
	if err != nil {
		return fmt.Errorf("store nonce: %w", err)
	}
	return nil
}

// SweepNonces deletes the nonces that expired before before.
func (s *SandboxStore) SweepNonces(ctx context.Context, before time.Time) error {
	if _, err := s.q.Exec(ctx, `DELETE FROM sandbox_nonces WHERE expires_at < $1`, before); err != nil {
		return fmt.Errorf("sweep nonces: %w", err)
	}
	return nil
}

// ConsumeNonce spends an unused, unexpired nonce in one UPDATE (of concurrent consumers
// exactly one gets the row).
func (s *SandboxStore) ConsumeNonce(ctx context.Context, hash []byte, now time.Time) (gateway.SandboxNonce, error) {
	n := gateway.SandboxNonce{Hash: hash}
	var kind, brand string
	err := s.q.QueryRow(ctx, `UPDATE sandbox_nonces SET used_at = $2
		WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
		RETURNING kind, outcome, card_brand, card_last4, card_exp_month, card_exp_year, wallet_email, cardholder_name,
			postal_code, fingerprint, expires_at`, hash, now).
		Scan(&kind, &n.Outcome, &brand, &n.Card.Last4, &n.Card.ExpMonth, &n.Card.ExpYear, &n.Email, &n.Details.CardholderName,
			&n.Details.PostalCode, &n.Fingerprint, &n.ExpiresAt)
	n.Kind, n.Card.Brand = domain.MethodKind(kind), domain.Brand(brand)
	return n, noRow(err, "consume nonce")
}

// NonceState answers whether a nonce was used and when it expires.
func (s *SandboxStore) NonceState(ctx context.Context, hash []byte) (used bool, expiresAt time.Time, err error) {
	err = s.q.QueryRow(ctx, `SELECT used_at IS NOT NULL, expires_at FROM sandbox_nonces WHERE token_hash = $1`, hash).
		Scan(&used, &expiresAt)
	return used, expiresAt, noRow(err, "read nonce")
}

// NonceFingerprint answers a nonce's card fingerprint.
func (s *SandboxStore) NonceFingerprint(ctx context.Context, hash []byte) (string, error) {
	var fp string
	err := s.q.QueryRow(ctx, `SELECT fingerprint FROM sandbox_nonces WHERE token_hash = $1`, hash).Scan(&fp)
	return fp, noRow(err, "read nonce fingerprint")
}

const sandboxMethodCols = `token, kind, card_brand, card_last4, card_exp_month, card_exp_year, wallet_email, cardholder_name`

func scanSandboxMethod(row pgx.Row, what string) (domain.MethodSummary, error) {
	var m domain.MethodSummary
	var kind, brand string
	err := row.Scan(&m.Token, &kind, &brand, &m.Card.Last4, &m.Card.ExpMonth, &m.Card.ExpYear, &m.Email, &m.CardholderName)
	m.Kind, m.Card.Brand = domain.MethodKind(kind), domain.Brand(brand)
	return m, noRow(err, what)
}

// VaultMethod stores m for its customer, or refreshes the customer's method of the same
// fingerprint.
func (s *SandboxStore) VaultMethod(ctx context.Context, m gateway.SandboxMethod, override gateway.MethodDetails) (domain.MethodSummary, error) {
	return scanSandboxMethod(s.q.QueryRow(ctx, `INSERT INTO sandbox_methods (token, customer_id, fingerprint, kind, outcome, card_brand,
		card_last4, card_exp_month, card_exp_year, wallet_email, cardholder_name, postal_code, country, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)
		ON CONFLICT (customer_id, fingerprint) DO UPDATE SET card_brand = EXCLUDED.card_brand, card_last4 = EXCLUDED.card_last4,
			card_exp_month = EXCLUDED.card_exp_month, card_exp_year = EXCLUDED.card_exp_year,
			cardholder_name = CASE WHEN $15 <> '' THEN $15 ELSE sandbox_methods.cardholder_name END,
			postal_code = CASE WHEN $16 <> '' THEN $16 ELSE sandbox_methods.postal_code END,
			country = CASE WHEN $17 <> '' THEN $17 ELSE sandbox_methods.country END,
			updated_at = EXCLUDED.updated_at
		RETURNING `+sandboxMethodCols,
		m.Token, m.CustomerID, m.Fingerprint, string(m.Kind), m.Outcome, string(m.Card.Brand), m.Card.Last4,
		m.Card.ExpMonth, m.Card.ExpYear, m.Email, m.Details.CardholderName, m.Details.PostalCode, m.Details.Country, m.At,
		override.CardholderName, override.PostalCode, override.Country), "vault method")
}

// Method answers a vaulted method.
func (s *SandboxStore) Method(ctx context.Context, token string) (domain.MethodSummary, error) {
	return scanSandboxMethod(s.q.QueryRow(ctx, `SELECT `+sandboxMethodCols+` FROM sandbox_methods WHERE token = $1`, token), "read method")
}

// MethodFingerprint answers a vaulted method's card fingerprint.
func (s *SandboxStore) MethodFingerprint(ctx context.Context, token string) (string, error) {
	var fp string
	err := s.q.QueryRow(ctx, `SELECT fingerprint FROM sandbox_methods WHERE token = $1`, token).Scan(&fp)
	return fp, noRow(err, "read method fingerprint")
}

// UpdateMethod sets a vaulted method's non-empty billing details.
func (s *SandboxStore) UpdateMethod(ctx context.Context, token string, d gateway.MethodDetails, now time.Time) (domain.MethodSummary, error) {
	return scanSandboxMethod(s.q.QueryRow(ctx, `UPDATE sandbox_methods SET
		cardholder_name = CASE WHEN $2 <> '' THEN $2 ELSE cardholder_name END,
		postal_code = CASE WHEN $3 <> '' THEN $3 ELSE postal_code END,
		country = CASE WHEN $4 <> '' THEN $4 ELSE country END, updated_at = $5
		WHERE token = $1 RETURNING `+sandboxMethodCols, token, d.CardholderName, d.PostalCode, d.Country, now), "update method")
}

// LockVaultKey takes a transaction-scoped advisory lock on a vault request's key.
func (s *SandboxStore) LockVaultKey(ctx context.Context, key string) error {
	if _, err := s.q.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "sandbox-vault:"+key); err != nil {
		return fmt.Errorf("lock vault key: %w", err)
	}
	return nil
}

// VaultOutcome answers the outcome recorded under a vault request's key.
func (s *SandboxStore) VaultOutcome(ctx context.Context, key string) (gateway.SandboxVault, error) {
	v := gateway.SandboxVault{Key: key}
	err := s.q.QueryRow(ctx, `SELECT status, failure_code, failure_message, method_token FROM sandbox_vaults WHERE idempotency_key = $1`,
		key).Scan(&v.Status, &v.FailureCode, &v.FailureMessage, &v.MethodToken)
	return v, noRow(err, "read vault by key")
}

// RecordVault records a keyed vault request's outcome.
func (s *SandboxStore) RecordVault(ctx context.Context, v gateway.SandboxVault) error {
	if _, err := s.q.Exec(ctx, `INSERT INTO sandbox_vaults (idempotency_key, status, outcome, failure_code, failure_message,
		method_token, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`, v.Key, v.Status, v.Outcome, v.FailureCode,
		v.FailureMessage, v.MethodToken, v.At); err != nil {
		return fmt.Errorf("record vault: %w", err)
	}
	return nil
}

const sandboxTxCols = `id, status, outcome, method_token, method_kind, card_brand, card_last4, card_exp_month, card_exp_year,
	wallet_email, cardholder_name`

func scanSandboxTx(row pgx.Row, extra ...any) (gateway.SandboxTx, error) {
	var t gateway.SandboxTx
	var kind, brand string
	m := &t.Tx.Method
	err := row.Scan(append([]any{&t.Tx.ID, &t.Status, &t.Outcome, &m.Token, &kind, &brand, &m.Card.Last4, &m.Card.ExpMonth,
		&m.Card.ExpYear, &m.Email, &m.CardholderName}, extra...)...)
	m.Kind, m.Card.Brand = domain.MethodKind(kind), domain.Brand(brand)
	t.Tx.Captured = t.Status == "captured"
	return t, err
}

// authorizeSQL consumes the source (a nonce or a vaulted method) and records the processor's
// decision in one statement, so the two cannot come apart and a charge costs one round
// trip. Nothing is consumed when the idempotency key already has a transaction; the
// statement then answers no row and the caller replays the stored one. $1 now, $2 source
// (nonce hash or method token), $3 key, $4 id, $5 approving outcomes, $6 status when
// approved, $7 amount, $8 currency, $9 the caller's metadata (JSON object).
const authorizeSQL = `WITH src AS (%s), ins AS (
	INSERT INTO sandbox_transactions (id, idempotency_key, status, outcome, amount, currency, method_token, method_kind,
		card_brand, card_last4, card_exp_month, card_exp_year, wallet_email, cardholder_name, created_at, metadata)
	SELECT $4, $3, CASE WHEN outcome = ANY($5) THEN $6 ELSE 'refused' END, outcome, $7, $8, token, kind, card_brand,
		card_last4, card_exp_month, card_exp_year, wallet_email, cardholder_name, $1, $9::jsonb FROM src
	RETURNING ` + sandboxTxCols + `)
	SELECT * FROM ins`

// consumeNonceSQL spends a nonce unless the key ($3) already has a transaction.
const consumeNonceSQL = `UPDATE sandbox_nonces SET used_at = $1
		WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1
			AND NOT EXISTS (SELECT 1 FROM sandbox_transactions WHERE idempotency_key = $3)
		RETURNING '' AS token, kind, outcome, card_brand, card_last4, card_exp_month, card_exp_year, wallet_email,
			cardholder_name, postal_code, fingerprint`

var (
	authorizeNonceSQL  = fmt.Sprintf(authorizeSQL, consumeNonceSQL)
	authorizeMethodSQL = fmt.Sprintf(authorizeSQL, `SELECT token, kind, outcome, card_brand, card_last4, card_exp_month,
			card_exp_year, wallet_email, cardholder_name, postal_code, fingerprint
		FROM sandbox_methods WHERE token = $2
			AND NOT EXISTS (SELECT 1 FROM sandbox_transactions WHERE idempotency_key = $3)`)
)

// authorizeVaultSQL is authorizeNonceSQL that, when the processor approves, also vaults the
// nonce's method for the customer (as VaultMethod does with no details of its own: a
// method the customer already has for the card keeps its cardholder and postal code) and
// records the transaction against it. Spending the nonce, vaulting and recording stand or
// fall together in one statement, so a charge that vaults costs one round trip and no
// explicit transaction. $10 customer, $11 the new method's token.
const authorizeVaultSQL = `WITH src AS (` + consumeNonceSQL + `), vaulted AS (
	INSERT INTO sandbox_methods (token, customer_id, fingerprint, kind, outcome, card_brand, card_last4, card_exp_month,
		card_exp_year, wallet_email, cardholder_name, postal_code, country, created_at, updated_at)
	SELECT $11, $10, fingerprint, kind, outcome, card_brand, card_last4, card_exp_month, card_exp_year, wallet_email,
		cardholder_name, postal_code, '', $1, $1 FROM src WHERE outcome = ANY($5)
	ON CONFLICT (customer_id, fingerprint) DO UPDATE SET card_brand = EXCLUDED.card_brand, card_last4 = EXCLUDED.card_last4,
		card_exp_month = EXCLUDED.card_exp_month, card_exp_year = EXCLUDED.card_exp_year, updated_at = EXCLUDED.updated_at
	RETURNING ` + sandboxMethodCols + `), ins AS (
	INSERT INTO sandbox_transactions (id, idempotency_key, status, outcome, amount, currency, method_token, method_kind,
		card_brand, card_last4, card_exp_month, card_exp_year, wallet_email, cardholder_name, created_at, metadata)
	SELECT $4, $3, CASE WHEN src.outcome = ANY($5) THEN $6 ELSE 'refused' END, src.outcome, $7, $8, coalesce(vaulted.token, ''),
		src.kind, src.card_brand, src.card_last4, src.card_exp_month, src.card_exp_year, src.wallet_email, src.cardholder_name, $1, $9::jsonb
	FROM src LEFT JOIN vaulted ON true
	RETURNING ` + sandboxTxCols + `)
	SELECT ins.*, vaulted.token IS NOT NULL, coalesce(vaulted.token, ''), coalesce(vaulted.kind, ''), coalesce(vaulted.card_brand, ''),
		coalesce(vaulted.card_last4, ''), coalesce(vaulted.card_exp_month, 0), coalesce(vaulted.card_exp_year, 0),
		coalesce(vaulted.wallet_email, ''), coalesce(vaulted.cardholder_name, '')
	FROM ins LEFT JOIN vaulted ON true`

// nullable stores an empty idempotency key as NULL (no deduplication).
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Authorize spends a's source and records the transaction in one statement.
func (s *SandboxStore) Authorize(ctx context.Context, a gateway.SandboxAuth) (gateway.SandboxTx, *domain.MethodSummary, error) {
	args := []any{a.At, any(a.Token), nullable(a.Key), a.ID, a.Approving, a.Status, a.Amount, a.Currency, a.Metadata}
	sql := authorizeMethodSQL
	var (
		vaulted     bool
		m           domain.MethodSummary
		kind, brand string
		extra       []any
	)
	switch a.From {
	case gateway.SandboxFromNonceVault:
		sql, args[1] = authorizeVaultSQL, a.NonceHash
		args = append(args, a.CustomerID, a.MethodToken)
		extra = []any{&vaulted, &m.Token, &kind, &brand, &m.Card.Last4, &m.Card.ExpMonth, &m.Card.ExpYear, &m.Email, &m.CardholderName}
	case gateway.SandboxFromNonce:
		sql, args[1] = authorizeNonceSQL, a.NonceHash
	}
	t, err := scanSandboxTx(s.q.QueryRow(ctx, sql, args...), extra...)
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return t, nil, gateway.ErrNoSandboxRow
	case errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "sandbox_transactions_idempotency_key_key":
		return t, nil, gateway.ErrSandboxKeyTaken
	case err != nil:
		return t, nil, fmt.Errorf("authorize: %w", err)
	}
	if !vaulted {
		return t, nil, nil
	}
	m.Kind, m.Card.Brand = domain.MethodKind(kind), domain.Brand(brand)
	return t, &m, nil
}

// TxByKey answers the transaction recorded under an idempotency key.
func (s *SandboxStore) TxByKey(ctx context.Context, key string) (gateway.SandboxTx, error) {
	t, err := scanSandboxTx(s.q.QueryRow(ctx, `SELECT `+sandboxTxCols+` FROM sandbox_transactions WHERE idempotency_key = $1`, key))
	return t, noRow(err, "read transaction by key")
}

// Transition moves a transaction whose status is one of from to status.
func (s *SandboxStore) Transition(ctx context.Context, id, status string, from []string) (gateway.SandboxTx, error) {
	t, err := scanSandboxTx(s.q.QueryRow(ctx, `UPDATE sandbox_transactions SET status = $2 WHERE id = $1 AND status = ANY($3)
		RETURNING `+sandboxTxCols, id, status, from))
	if errors.Is(err, pgx.ErrNoRows) {
		return t, gateway.ErrNoSandboxRow
	}
	return t, err
}

// TxStatus answers the status of a transaction that was not refused.
func (s *SandboxStore) TxStatus(ctx context.Context, id string) (string, error) {
	var cur string
	err := s.q.QueryRow(ctx, `SELECT status FROM sandbox_transactions WHERE id = $1 AND status <> 'refused'`, id).Scan(&cur)
	return cur, noRow(err, "read transaction")
}

// RefundByKey answers the refund of a transaction made under key.
func (s *SandboxStore) RefundByKey(ctx context.Context, txID, key string) (string, error) {
	var id string
	err := s.q.QueryRow(ctx, `SELECT id FROM sandbox_refunds WHERE transaction_id = $1 AND idempotency_key = $2`, txID, key).Scan(&id)
	return id, noRow(err, "read refund")
}

// AddRefunded adds amount to a captured transaction's refunded total if it is positive and fits.
func (s *SandboxStore) AddRefunded(ctx context.Context, txID string, amount int64) (bool, error) {
	tag, err := s.q.Exec(ctx, `UPDATE sandbox_transactions SET refunded = refunded + $2
		WHERE id = $1 AND status = 'captured' AND $2 > 0 AND refunded + $2 <= amount`, txID, amount)
	if err != nil {
		return false, fmt.Errorf("refund transaction: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}

// PutRefund records a refund.
func (s *SandboxStore) PutRefund(ctx context.Context, txID, key, id string, amount int64, at time.Time) error {
	if _, err := s.q.Exec(ctx, `INSERT INTO sandbox_refunds (transaction_id, idempotency_key, id, amount, created_at)
		VALUES ($1, $2, $3, $4, $5)`, txID, key, id, amount, at); err != nil {
		return fmt.Errorf("store refund: %w", err)
	}
	return nil
}

const sandboxRecordCols = sandboxTxCols + `, coalesce(idempotency_key, ''), amount, refunded, currency, created_at, metadata`

func scanSandboxRecord(row pgx.Row) (gateway.Record, error) {
	var r gateway.Record
	var meta []byte
	t, err := scanSandboxTx(row, &r.Key, &r.Amount, &r.Refunded, &r.Currency, &r.CreatedAt, &meta)
	if err != nil {
		return r, err
	}
	r.Transaction, r.Status = t.Tx, t.Status
	if len(meta) > 0 {
		if err := json.Unmarshal(meta, &r.Metadata); err != nil {
			return r, fmt.Errorf("decode metadata of %s: %w", r.ID, err)
		}
	}
	return r, nil
}

// RecordByKey answers the transaction made under a caller's idempotency key.
func (s *SandboxStore) RecordByKey(ctx context.Context, key string) (gateway.Record, error) {
	r, err := scanSandboxRecord(s.q.QueryRow(ctx, `SELECT `+sandboxRecordCols+` FROM sandbox_transactions WHERE idempotency_key = $1`, key))
	return r, noRow(err, "find transaction by key")
}

// SearchRecords answers the transactions created in [from, to), oldest first, at most limit.
func (s *SandboxStore) SearchRecords(ctx context.Context, from, to time.Time, limit int) ([]gateway.Record, error) {
	rows, err := s.q.Query(ctx, `SELECT `+sandboxRecordCols+` FROM sandbox_transactions WHERE created_at >= $1 AND created_at < $2
		ORDER BY created_at, id LIMIT $3`, from, to, limit)
	if err != nil {
		return nil, fmt.Errorf("search transactions: %w", err)
	}
	defer rows.Close()
	var out []gateway.Record
	for rows.Next() {
		r, err := scanSandboxRecord(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
