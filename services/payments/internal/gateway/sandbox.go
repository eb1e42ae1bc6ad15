package gateway

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/payments/internal/domain"
)

// Test card numbers of the sandbox. Any other number that passes the checks is approved.
const (
	CardVisaOK            = "4111111111111111"
	CardMastercardOK      = "5555555555554444"
	CardAmexOK            = "378282246310005"
	CardDiscoverOK        = "6011111111111117"
	CardDecline           = "4000000000000002"
	CardInsufficientFunds = "4000000000009995"
	CardExpired           = "4000000000000069"
	CardCVVFailure        = "4000000000000127"
	CardTimeout           = "4000000000000119"
)

// TestCards lists the sandbox's documented cards and what they do.
var TestCards = []struct{ Number, Outcome string }{
	{CardVisaOK, "approved (Visa)"},
	{CardMastercardOK, "approved (MasterCard)"},
	{CardAmexOK, "approved (American Express, 4-digit CVV)"},
	{CardDiscoverOK, "approved (Discover)"},
	{CardDecline, "declined: Do Not Honor"},
	{CardInsufficientFunds, "declined: Insufficient Funds"},
	{CardExpired, "declined: Expired Card"},
	{CardCVVFailure, "rejected: CVV does not match"},
	{CardTimeout, "processor timeout on the first attempt of an idempotency key; a retry with the same key answers approved"},
}

// outcome is the class of a test card, decided when it is tokenised and kept with the
// nonce, the vaulted method and the transaction instead of the number.
type outcome string

const (
	approve      outcome = "approve"
	decline      outcome = "decline"
	insufficient outcome = "insufficient_funds"
	expired      outcome = "expired_card"
	cvvFail      outcome = "cvv_failed"
	timeout      outcome = "timeout"
)

// approving are the outcomes that authorize (a timeout card is approved, its first answer lost).
var approving = []string{string(approve), string(timeout)}

func outcomeOf(number string) outcome {
	switch number {
	case CardDecline:
		return decline
	case CardInsufficientFunds:
		return insufficient
	case CardExpired:
		return expired
	case CardCVVFailure:
		return cvvFail
	case CardTimeout:
		return timeout
	}
	return approve
}

func (o outcome) refusal() *Declined {
	switch o {
	case decline:
		return &Declined{Code: domain.FailDeclined, Message: "Do Not Honor"}
	case insufficient:
		return &Declined{Code: domain.FailInsufficientFunds, Message: "Insufficient Funds"}
	case expired:
		return &Declined{Code: domain.FailExpiredCard, Message: "Expired Card"}
	case cvvFail:
		return &Declined{Code: domain.FailCVV, Message: "Gateway Rejected: CVV does not match"}
	}
	return nil
}

// Sandbox is the built-in processor. Like a real processor it is one system shared by every
// replica of payments: its state (nonces, vault, transactions, refunds) lives in PostgreSQL
// (the sandbox_* tables of migrations/0002_sandbox.sql), so a nonce tokenised on one
// replica can be charged on another and a restart forgets nothing. It is for development
// and tests; it never stores a card number or CVV.
//
// The pool should be the sandbox's own, not the one charges run on: a charge holds its
// connection while it calls the processor, so sharing one pool can starve the processor
// call of a connection.
type Sandbox struct {
	pool     *pgxpool.Pool
	now      func() time.Time
	key      []byte
	nonceTTL time.Duration
	issued   atomic.Uint64 // nonces issued; every sweepEvery-th sweeps old ones
}

// NewSandbox builds a sandbox on pool (migrated with adapters.Migrations); fingerprintKey
// keys card fingerprints, nonceTTL is the life of a nonce (3 hours at real processors),
// now the clock.
func NewSandbox(pool *pgxpool.Pool, fingerprintKey []byte, nonceTTL time.Duration, now func() time.Time) *Sandbox {
	return &Sandbox{pool: pool, now: now, key: fingerprintKey, nonceTTL: nonceTTL}
}

var _ Gateway = (*Sandbox)(nil)

// querier is a pool or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func randomID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// nonceHash is how a nonce is stored: whoever reads the table cannot spend the nonces.
func nonceHash(nonce string) []byte {
	h := sha256.Sum256([]byte(nonce))
	return h[:]
}

// nullable stores an empty idempotency key as NULL (no deduplication).
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ClientToken answers a signed, base64 JSON authorization (like real processors' client tokens).
func (s *Sandbox) ClientToken(_ context.Context, customerID string) (string, error) {
	exp := s.now().Add(24 * time.Hour).Unix()
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("client-token:" + customerID))
	body, _ := json.Marshal(map[string]any{"version": 2, "environment": "sandbox", "merchantId": "hangar-sandbox",
		"authorizationFingerprint": hex.EncodeToString(m.Sum(nil))[:32], "expiresAt": exp})
	return base64.StdEncoding.EncodeToString(body), nil
}

// Tokenize checks the card fields and answers a nonce. The number and CVV are read here
// and dropped: only the summary, the fingerprint and the test outcome are stored.
func (s *Sandbox) Tokenize(ctx context.Context, in domain.CardInput) (Nonce, error) {
	if err := ctx.Err(); err != nil {
		return Nonce{}, err
	}
	now := s.now()
	card, err := domain.CheckCard(in, now)
	if err != nil {
		return Nonce{}, err
	}
	n := Nonce{Nonce: randomID("tokencc_"), Kind: domain.KindCard, Card: card.Summary(), BIN: card.BIN(), ExpiresAt: now.Add(s.nonceTTL),
		Fingerprint: domain.Fingerprint(s.key, card.Number)}
	d := MethodDetails{CardholderName: strings.TrimSpace(in.CardholderName), PostalCode: strings.TrimSpace(in.PostalCode)}
	if err := s.putNonce(ctx, n, outcomeOf(card.Number), n.Fingerprint, d, now); err != nil {
		return Nonce{}, err
	}
	return n, nil
}

// TokenizeWallet answers a wallet nonce for the provider-held account of email.
func (s *Sandbox) TokenizeWallet(ctx context.Context, email string) (Nonce, error) {
	email = strings.TrimSpace(email)
	if !domain.ValidEmail(email) {
		return Nonce{}, errs.Field("walletEmail", "Please enter your email address.")
	}
	now := s.now()
	n := Nonce{Nonce: randomID("tokenpp_"), Kind: domain.KindWallet, Email: email, ExpiresAt: now.Add(s.nonceTTL)}
	if err := s.putNonce(ctx, n, approve, domain.Fingerprint(s.key, "wallet:"+strings.ToLower(email)), MethodDetails{}, now); err != nil {
		return Nonce{}, err
	}
	return n, nil
}

// sweepEvery is how many nonces are issued between two sweeps of long-expired ones.
const sweepEvery = 10000

func (s *Sandbox) putNonce(ctx context.Context, n Nonce, oc outcome, fingerprint string, d MethodDetails, now time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO sandbox_nonces (token_hash, kind, outcome, card_brand, card_last4, card_exp_month,
		card_exp_year, wallet_email, cardholder_name, postal_code, fingerprint, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		nonceHash(n.Nonce), string(n.Kind), string(oc), string(n.Card.Brand), n.Card.Last4, n.Card.ExpMonth, n.Card.ExpYear,
		n.Email, d.CardholderName, d.PostalCode, fingerprint, now, n.ExpiresAt)
	if err != nil {
		return fmt.Errorf("store nonce: %w", err)
	}
	if s.issued.Add(1)%sweepEvery == 0 {
		// Nonces a day past expiry are only kept to tell "expired" from "unknown" for a while.
		if _, err := s.pool.Exec(ctx, `DELETE FROM sandbox_nonces WHERE expires_at < $1`, now.Add(-24*time.Hour)); err != nil {
			return fmt.Errorf("sweep nonces: %w", err)
		}
	}
	return nil
}

// nonceRow is what the sandbox knows of a consumed nonce.
type nonceRow struct {
	n           Nonce
	outcome     outcome
	fingerprint string
	details     MethodDetails
}

// consume marks a nonce used, atomically (one UPDATE: of concurrent consumers exactly one
// gets the row), and answers it; an unknown, used or expired nonce is a refusal.
func (s *Sandbox) consume(ctx context.Context, q querier, nonce string) (nonceRow, error) {
	var r nonceRow
	var kind, oc, brand string
	now := s.now()
	err := q.QueryRow(ctx, `UPDATE sandbox_nonces SET used_at = $2
		WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
		RETURNING kind, outcome, card_brand, card_last4, card_exp_month, card_exp_year, wallet_email, cardholder_name,
			postal_code, fingerprint, expires_at`, nonceHash(nonce), now).
		Scan(&kind, &oc, &brand, &r.n.Card.Last4, &r.n.Card.ExpMonth, &r.n.Card.ExpYear, &r.n.Email, &r.details.CardholderName,
			&r.details.PostalCode, &r.fingerprint, &r.n.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, s.unusable(ctx, q, nonce, now)
	}
	if err != nil {
		return r, fmt.Errorf("consume nonce: %w", err)
	}
	r.n.Nonce, r.n.Kind, r.n.Card.Brand, r.outcome = nonce, domain.MethodKind(kind), domain.Brand(brand), outcome(oc)
	return r, nil
}

// unusable answers why a nonce could not be consumed: unknown, used or expired.
func (s *Sandbox) unusable(ctx context.Context, q querier, nonce string, now time.Time) error {
	var used bool
	var expiresAt time.Time
	err := q.QueryRow(ctx, `SELECT used_at IS NOT NULL, expires_at FROM sandbox_nonces WHERE token_hash = $1`, nonceHash(nonce)).
		Scan(&used, &expiresAt)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return &Declined{Code: domain.FailInvalidNonce, Message: "Unknown payment method nonce."}
	case err != nil:
		return fmt.Errorf("read nonce: %w", err)
	case used:
		return &Declined{Code: domain.FailInvalidNonce, Message: "Cannot use a payment method nonce more than once."}
	case !now.Before(expiresAt):
		return &Declined{Code: domain.FailNonceExpired, Message: "Payment method nonce has expired."}
	}
	// Unused and valid now: it expired between the two reads' clocks, or a concurrent
	// consumer's transaction rolled back. Either way this attempt did not get it.
	return &Declined{Code: domain.FailInvalidNonce, Message: "Cannot use a payment method nonce more than once."}
}

const methodCols = `token, kind, card_brand, card_last4, card_exp_month, card_exp_year, wallet_email, cardholder_name`

func scanMethod(row pgx.Row) (domain.MethodSummary, error) {
	var m domain.MethodSummary
	var kind, brand string
	err := row.Scan(&m.Token, &kind, &brand, &m.Card.Last4, &m.Card.ExpMonth, &m.Card.ExpYear, &m.Email, &m.CardholderName)
	m.Kind, m.Card.Brand = domain.MethodKind(kind), domain.Brand(brand)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, errs.E(errs.NotFound, "payment method not found")
	}
	return m, err
}

// vault stores n's method for customer, or refreshes the customer's method of the same
// card (fingerprint): a newer expiry replaces the old one and d's non-empty details win.
func (s *Sandbox) vault(ctx context.Context, q querier, n nonceRow, customer string, d MethodDetails) (domain.MethodSummary, error) {
	first := merge(n.details, d)
	m, err := scanMethod(q.QueryRow(ctx, `INSERT INTO sandbox_methods (token, customer_id, fingerprint, kind, outcome, card_brand,
		card_last4, card_exp_month, card_exp_year, wallet_email, cardholder_name, postal_code, country, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14)
		ON CONFLICT (customer_id, fingerprint) DO UPDATE SET card_brand = EXCLUDED.card_brand, card_last4 = EXCLUDED.card_last4,
			card_exp_month = EXCLUDED.card_exp_month, card_exp_year = EXCLUDED.card_exp_year,
			cardholder_name = CASE WHEN $15 <> '' THEN $15 ELSE sandbox_methods.cardholder_name END,
			postal_code = CASE WHEN $16 <> '' THEN $16 ELSE sandbox_methods.postal_code END,
			country = CASE WHEN $17 <> '' THEN $17 ELSE sandbox_methods.country END,
			updated_at = EXCLUDED.updated_at
		RETURNING `+methodCols,
		randomID("pm_"), customer, n.fingerprint, string(n.n.Kind), string(n.outcome), string(n.n.Card.Brand), n.n.Card.Last4,
		n.n.Card.ExpMonth, n.n.Card.ExpYear, n.n.Email, first.CardholderName, first.PostalCode, first.Country, s.now(),
		d.CardholderName, d.PostalCode, d.Country))
	if err != nil {
		return m, fmt.Errorf("vault method: %w", err)
	}
	return m, nil
}

func merge(a, b MethodDetails) MethodDetails {
	if b.CardholderName != "" {
		a.CardholderName = b.CardholderName
	}
	if b.PostalCode != "" {
		a.PostalCode = b.PostalCode
	}
	if b.Country != "" {
		a.Country = b.Country
	}
	return a
}

// Vault stores a nonce's method; with Verify a card whose test number declines fails
// verification like a $0 authorization would (the nonce is spent either way). With an
// idempotency key the outcome is kept under the key: a retry replays it (the spent nonce
// is not asked for again), and concurrent requests with one key wait for the first.
func (s *Sandbox) Vault(ctx context.Context, r VaultRequest) (domain.MethodSummary, error) {
	var m domain.MethodSummary
	var refused *Declined
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if r.IdempotencyKey != "" {
			var done bool
			var err error
			if m, refused, done, err = s.replayVault(ctx, tx, r.IdempotencyKey); err != nil || done {
				return err
			}
		}
		n, err := s.consume(ctx, tx, r.Nonce)
		if err != nil {
			return err
		}
		if r.Verify {
			if d := n.outcome.refusal(); d != nil {
				d.Message = "Processor declined the verification: " + d.Message
				d.Fingerprint = n.fingerprint
				refused = d
				// commit: the nonce is spent
				return s.recordVault(ctx, tx, r.IdempotencyKey, "refused", n.outcome, d, "")
			}
		}
		if m, err = s.vault(ctx, tx, n, r.CustomerID, r.Details); err != nil {
			return err
		}
		return s.recordVault(ctx, tx, r.IdempotencyKey, "vaulted", n.outcome, nil, m.Token)
	})
	if err != nil {
		return domain.MethodSummary{}, err
	}
	if refused != nil {
		return domain.MethodSummary{}, refused
	}
	return m, nil
}

// replayVault locks key (for the transaction) and answers its recorded outcome, if any.
func (s *Sandbox) replayVault(ctx context.Context, tx pgx.Tx, key string) (domain.MethodSummary, *Declined, bool, error) {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "sandbox-vault:"+key); err != nil {
		return domain.MethodSummary{}, nil, false, fmt.Errorf("lock vault key: %w", err)
	}
	var status, code, msg, token string
	err := tx.QueryRow(ctx, `SELECT status, failure_code, failure_message, method_token FROM sandbox_vaults WHERE idempotency_key = $1`,
		key).Scan(&status, &code, &msg, &token)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return domain.MethodSummary{}, nil, false, nil
	case err != nil:
		return domain.MethodSummary{}, nil, false, fmt.Errorf("read vault by key: %w", err)
	case status == "refused":
		return domain.MethodSummary{}, &Declined{Code: code, Message: msg}, true, nil
	}
	m, err := scanMethod(tx.QueryRow(ctx, `SELECT `+methodCols+` FROM sandbox_methods WHERE token = $1`, token))
	return m, nil, true, err
}

// recordVault keeps a keyed vault request's outcome (nothing without a key).
func (s *Sandbox) recordVault(ctx context.Context, tx pgx.Tx, key, status string, oc outcome, d *Declined, token string) error {
	if key == "" {
		return nil
	}
	var code, msg string
	if d != nil {
		code, msg = d.Code, d.Message
	}
	if _, err := tx.Exec(ctx, `INSERT INTO sandbox_vaults (idempotency_key, status, outcome, failure_code, failure_message,
		method_token, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`, key, status, string(oc), code, msg, token, s.now()); err != nil {
		return fmt.Errorf("record vault: %w", err)
	}
	return nil
}

const txCols = `id, status, outcome, method_token, method_kind, card_brand, card_last4, card_exp_month, card_exp_year,
	wallet_email, cardholder_name`

// txRow is a stored processor transaction.
type txRow struct {
	tx      Transaction
	status  string
	outcome outcome
}

func scanTx(row pgx.Row, extra ...any) (txRow, error) {
	var t txRow
	var oc, kind, brand string
	m := &t.tx.Method
	err := row.Scan(append([]any{&t.tx.ID, &t.status, &oc, &m.Token, &kind, &brand, &m.Card.Last4, &m.Card.ExpMonth, &m.Card.ExpYear,
		&m.Email, &m.CardholderName}, extra...)...)
	t.outcome, m.Kind, m.Card.Brand = outcome(oc), domain.MethodKind(kind), domain.Brand(brand)
	t.tx.Captured = t.status == "captured"
	return t, err
}

// answer is what a stored transaction says to a caller: its refusal or the transaction.
func (t txRow) answer() (Transaction, error) {
	if t.status == "refused" {
		if d := t.outcome.refusal(); d != nil {
			return Transaction{}, d
		}
		return Transaction{}, &Declined{Code: domain.FailDeclined, Message: "Do Not Honor"}
	}
	return t.tx, nil
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
	RETURNING ` + txCols + `)
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
// nonce's method for the customer (as vault does with no details of its own: a method the
// customer already has for the card keeps its cardholder and postal code) and records the
// transaction against it. Spending the nonce, vaulting and recording stand or fall together
// in one statement, so a charge that vaults costs one round trip and no explicit
// transaction. $10 customer, $11 the new method's token.
const authorizeVaultSQL = `WITH src AS (` + consumeNonceSQL + `), vaulted AS (
	INSERT INTO sandbox_methods (token, customer_id, fingerprint, kind, outcome, card_brand, card_last4, card_exp_month,
		card_exp_year, wallet_email, cardholder_name, postal_code, country, created_at, updated_at)
	SELECT $11, $10, fingerprint, kind, outcome, card_brand, card_last4, card_exp_month, card_exp_year, wallet_email,
		cardholder_name, postal_code, '', $1, $1 FROM src WHERE outcome = ANY($5)
	ON CONFLICT (customer_id, fingerprint) DO UPDATE SET card_brand = EXCLUDED.card_brand, card_last4 = EXCLUDED.card_last4,
		card_exp_month = EXCLUDED.card_exp_month, card_exp_year = EXCLUDED.card_exp_year, updated_at = EXCLUDED.updated_at
	RETURNING ` + methodCols + `), ins AS (
	INSERT INTO sandbox_transactions (id, idempotency_key, status, outcome, amount, currency, method_token, method_kind,
		card_brand, card_last4, card_exp_month, card_exp_year, wallet_email, cardholder_name, created_at, metadata)
	SELECT $4, $3, CASE WHEN src.outcome = ANY($5) THEN $6 ELSE 'refused' END, src.outcome, $7, $8, coalesce(vaulted.token, ''),
		src.kind, src.card_brand, src.card_last4, src.card_exp_month, src.card_exp_year, src.wallet_email, src.cardholder_name, $1, $9::jsonb
	FROM src LEFT JOIN vaulted ON true
	RETURNING ` + txCols + `)
	SELECT ins.*, vaulted.token IS NOT NULL, coalesce(vaulted.token, ''), coalesce(vaulted.kind, ''), coalesce(vaulted.card_brand, ''),
		coalesce(vaulted.card_last4, ''), coalesce(vaulted.card_exp_month, 0), coalesce(vaulted.card_exp_year, 0),
		coalesce(vaulted.wallet_email, ''), coalesce(vaulted.cardholder_name, '')
	FROM ins LEFT JOIN vaulted ON true`

// Authorize authorizes (and with Capture captures) an amount, once per idempotency key: a
// retry answers the first result, a refusal included.
func (s *Sandbox) Authorize(ctx context.Context, r AuthRequest) (Transaction, error) {
	if err := ctx.Err(); err != nil {
		return Transaction{}, err
	}
	t, err := s.authorize(ctx, r)
	if errors.Is(err, errKeyTaken) {
		return s.replay(ctx, s.pool, r, s.now())
	}
	return t, err
}

// errKeyTaken: a concurrent request with the same idempotency key recorded its transaction
// first (the statement failed as a whole, nothing was consumed).
var errKeyTaken = errors.New("idempotency key taken concurrently")

func (s *Sandbox) authorize(ctx context.Context, r AuthRequest) (Transaction, error) {
	now := s.now()
	status := "authorized"
	if r.Capture {
		status = "captured"
	}
	meta, err := metadataJSON(r.Metadata)
	if err != nil {
		return Transaction{}, err
	}
	args := []any{now, any(r.Token), nullable(r.IdempotencyKey), randomID("tx_"), approving, status, r.Amount, r.Currency, meta}
	sql := authorizeMethodSQL
	var (
		vaulted     bool
		m           domain.MethodSummary
		kind, brand string
		extra       []any
	)
	switch {
	case r.Nonce != "" && r.StoreInVault:
		sql, args[1] = authorizeVaultSQL, nonceHash(r.Nonce)
		args = append(args, r.CustomerID, randomID("pm_"))
		extra = []any{&vaulted, &m.Token, &kind, &brand, &m.Card.Last4, &m.Card.ExpMonth, &m.Card.ExpYear, &m.Email, &m.CardholderName}
	case r.Nonce != "":
		sql, args[1] = authorizeNonceSQL, nonceHash(r.Nonce)
	}
	t, err := scanTx(s.pool.QueryRow(ctx, sql, args...), extra...)
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		// The key has a transaction already, or the source is unusable.
		return s.replay(ctx, s.pool, r, now)
	case errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "sandbox_transactions_idempotency_key_key":
		return Transaction{}, errKeyTaken
	case err != nil:
		return Transaction{}, fmt.Errorf("authorize: %w", err)
	}
	if d := t.outcome.refusal(); d != nil {
		d.Fingerprint = s.declinedCard(ctx, r)
		return Transaction{}, d
	}
	if t.outcome == timeout {
		// The processor acted but its answer is lost; a retry with the key replays it.
		return Transaction{}, ErrTimeout
	}
	if vaulted {
		m.Kind, m.Card.Brand = domain.MethodKind(kind), domain.Brand(brand)
		t.tx.Method = m
	}
	return t.tx, nil
}

// declinedCard answers the fingerprint of a declined source, as a processor's decline
// names the card (empty when it cannot be read). Only declines pay for the read.
func (s *Sandbox) declinedCard(ctx context.Context, r AuthRequest) string {
	var fp string
	if r.Nonce != "" {
		_ = s.pool.QueryRow(ctx, `SELECT fingerprint FROM sandbox_nonces WHERE token_hash = $1`, nonceHash(r.Nonce)).Scan(&fp)
	} else {
		_ = s.pool.QueryRow(ctx, `SELECT fingerprint FROM sandbox_methods WHERE token = $1`, r.Token).Scan(&fp)
	}
	return fp
}

// replay answers the key's stored transaction, or why the source could not be used.
func (s *Sandbox) replay(ctx context.Context, q querier, r AuthRequest, now time.Time) (Transaction, error) {
	if r.IdempotencyKey != "" {
		t, err := scanTx(q.QueryRow(ctx, `SELECT `+txCols+` FROM sandbox_transactions WHERE idempotency_key = $1`, r.IdempotencyKey))
		if err == nil {
			return t.answer()
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return Transaction{}, fmt.Errorf("read transaction by key: %w", err)
		}
	}
	if r.Nonce != "" {
		return Transaction{}, s.unusable(ctx, q, r.Nonce, now)
	}
	return Transaction{}, &Declined{Code: domain.FailInvalidMethod, Message: "Payment method token is invalid."}
}

// Charge authorizes and captures.
func (s *Sandbox) Charge(ctx context.Context, r AuthRequest) (Transaction, error) {
	r.Capture = true
	return s.Authorize(ctx, r)
}

// transition moves a transaction from one of from to status (already there: answered again).
func (s *Sandbox) transition(ctx context.Context, id, status, verb string, from ...string) (Transaction, error) {
	t, err := scanTx(s.pool.QueryRow(ctx, `UPDATE sandbox_transactions SET status = $2 WHERE id = $1 AND status = ANY($3)
		RETURNING `+txCols, id, status, append(from, status)))
	if err == nil {
		return t.tx, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return Transaction{}, fmt.Errorf("%s transaction: %w", verb, err)
	}
	var cur string
	err = s.pool.QueryRow(ctx, `SELECT status FROM sandbox_transactions WHERE id = $1 AND status <> 'refused'`, id).Scan(&cur)
	if errors.Is(err, pgx.ErrNoRows) {
		return Transaction{}, errs.E(errs.NotFound, "processor transaction not found")
	}
	if err != nil {
		return Transaction{}, fmt.Errorf("read transaction: %w", err)
	}
	return Transaction{}, errs.E(errs.Precondition, "cannot %s a %s transaction", verb, cur)
}

// Capture captures an authorization (capturing a captured one answers it again).
func (s *Sandbox) Capture(ctx context.Context, id string) (Transaction, error) {
	return s.transition(ctx, id, "captured", "capture", "authorized")
}

// Void cancels an authorization.
func (s *Sandbox) Void(ctx context.Context, id string) (Transaction, error) {
	return s.transition(ctx, id, "voided", "void", "authorized")
}

// Refund refunds part or all of a captured transaction, once per key.
func (s *Sandbox) Refund(ctx context.Context, id string, amount int64, key string) (string, error) {
	var out string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if key != "" {
			err := tx.QueryRow(ctx, `SELECT id FROM sandbox_refunds WHERE transaction_id = $1 AND idempotency_key = $2`, id, key).Scan(&out)
			if err == nil {
				return nil
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("read refund: %w", err)
			}
		}
		tag, err := tx.Exec(ctx, `UPDATE sandbox_transactions SET refunded = refunded + $2
			WHERE id = $1 AND status = 'captured' AND $2 > 0 AND refunded + $2 <= amount`, id, amount)
		if err != nil {
			return fmt.Errorf("refund transaction: %w", err)
		}
		if tag.RowsAffected() == 0 {
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sandbox_transactions WHERE id = $1 AND status <> 'refused')`, id).Scan(&exists); err != nil {
				return fmt.Errorf("read transaction: %w", err)
			}
			if !exists {
				return errs.E(errs.NotFound, "processor transaction not found")
			}
			return errs.E(errs.Precondition, "refund of %d exceeds what is left of the transaction", amount)
		}
		out = randomID("rf_")
		if key == "" {
			key = out
		}
		if _, err := tx.Exec(ctx, `INSERT INTO sandbox_refunds (transaction_id, idempotency_key, id, amount, created_at)
			VALUES ($1, $2, $3, $4, $5)`, id, key, out, amount, s.now()); err != nil {
			return fmt.Errorf("store refund: %w", err)
		}
		return nil
	})
	return out, err
}

// GetPaymentMethod answers a vaulted method.
func (s *Sandbox) GetPaymentMethod(ctx context.Context, token string) (domain.MethodSummary, error) {
	return scanMethod(s.pool.QueryRow(ctx, `SELECT `+methodCols+` FROM sandbox_methods WHERE token = $1`, token))
}

// UpdatePaymentMethod changes a vaulted method's billing details (empty ones are kept).
func (s *Sandbox) UpdatePaymentMethod(ctx context.Context, token string, d MethodDetails) (domain.MethodSummary, error) {
	return scanMethod(s.pool.QueryRow(ctx, `UPDATE sandbox_methods SET
		cardholder_name = CASE WHEN $2 <> '' THEN $2 ELSE cardholder_name END,
		postal_code = CASE WHEN $3 <> '' THEN $3 ELSE postal_code END,
		country = CASE WHEN $4 <> '' THEN $4 ELSE country END, updated_at = $5
		WHERE token = $1 RETURNING `+methodCols, token, d.CardholderName, d.PostalCode, d.Country, s.now()))
}
