package gateway

import (
	"context"
	"errors"
	"time"

	"github.com/hangar/hangar/services/payments/internal/domain"
)

// SandboxStore is the sandbox processor's memory: its nonces, vault, transactions and
// refunds, shared by every replica (adapters.SandboxStore keeps them in the sandbox_*
// tables). The sandbox decides (outcomes, refusals, idempotency); the store only reads and
// writes. A method answering one row answers ErrNoSandboxRow when there is none. Its
// methods are grouped by the part of the sandbox that calls them, and each helper takes
// only its group.
type SandboxStore interface {
	// InTx runs fn on the store bound to one transaction, committed when fn answers nil.
	InTx(ctx context.Context, fn func(SandboxStore) error) error
	SandboxNonces
	SandboxMethods
	SandboxTransactions
	SandboxRefunds
	SandboxRecords
}

// SandboxNonces keeps the tokenised nonces (Tokenize, and every use of a nonce).
type SandboxNonces interface {
	// PutNonce stores a tokenised nonce (by its hash, never the nonce itself).
	PutNonce(ctx context.Context, n SandboxNonce) error
	// SweepNonces deletes the nonces that expired before before.
	SweepNonces(ctx context.Context, before time.Time) error
	// ConsumeNonce marks the nonce of hash used at now, atomically (of concurrent
	// consumers exactly one gets it), if it is unused and unexpired.
	ConsumeNonce(ctx context.Context, hash []byte, now time.Time) (SandboxNonce, error)
	// NonceState answers whether the nonce of hash was used, and when it expires.
	NonceState(ctx context.Context, hash []byte) (used bool, expiresAt time.Time, err error)
	// NonceFingerprint answers the card fingerprint of the nonce of hash.
	NonceFingerprint(ctx context.Context, hash []byte) (string, error)
}

// SandboxMethods is the vault: the stored methods and the keyed vault requests' outcomes.
type SandboxMethods interface {
	// VaultMethod stores m for its customer, or refreshes the customer's method of the same
	// fingerprint (the card and expiry are m's; of the billing details, override's
	// non-empty ones win over the stored ones).
	VaultMethod(ctx context.Context, m SandboxMethod, override MethodDetails) (domain.MethodSummary, error)
	// Method answers a vaulted method.
	Method(ctx context.Context, token string) (domain.MethodSummary, error)
	// MethodFingerprint answers the card fingerprint of a vaulted method.
	MethodFingerprint(ctx context.Context, token string) (string, error)
	// UpdateMethod sets a vaulted method's non-empty billing details.
	UpdateMethod(ctx context.Context, token string, d MethodDetails, now time.Time) (domain.MethodSummary, error)
	// LockVaultKey holds a keyed vault request's lock until the transaction ends.
	LockVaultKey(ctx context.Context, key string) error
	// VaultOutcome answers the outcome recorded under a vault request's key.
	VaultOutcome(ctx context.Context, key string) (SandboxVault, error)
	// RecordVault records a keyed vault request's outcome.
	RecordVault(ctx context.Context, v SandboxVault) error
}

// SandboxTransactions records the processor's transactions (authorise, capture, void).
type SandboxTransactions interface {
	// Authorize spends a.Source and records the transaction in one step; ErrNoSandboxRow
	// when the key already has a transaction or the source is unusable (nothing spent),
	// errSandboxKeyTaken when a concurrent request with the key recorded first. With
	// SandboxFromNonceVault it answers the method vaulted on approval, if any.
	Authorize(ctx context.Context, a SandboxAuth) (SandboxTx, *domain.MethodSummary, error)
	// TxByKey answers the transaction recorded under an idempotency key.
	TxByKey(ctx context.Context, key string) (SandboxTx, error)
	// Transition moves a transaction whose status is one of from to status.
	Transition(ctx context.Context, id, status string, from []string) (SandboxTx, error)
	// TxStatus answers the status of a transaction that was not refused.
	TxStatus(ctx context.Context, id string) (string, error)
}

// SandboxRefunds records refunds of captured transactions.
type SandboxRefunds interface {
	// RefundByKey answers the refund of a transaction made under key.
	RefundByKey(ctx context.Context, txID, key string) (string, error)
	// AddRefunded adds amount to what was refunded of a captured transaction, if it is
	// positive and fits; false when nothing changed.
	AddRefunded(ctx context.Context, txID string, amount int64) (bool, error)
	// PutRefund records a refund.
	PutRefund(ctx context.Context, txID, key, id string, amount int64, at time.Time) error
}

// SandboxRecords serves Lookup: the transactions by a caller's key or by time.
type SandboxRecords interface {
	RecordByKey(ctx context.Context, key string) (Record, error)
	SearchRecords(ctx context.Context, from, to time.Time, limit int) ([]Record, error)
}

// ErrNoSandboxRow is a SandboxStore's answer when the row asked for does not exist.
var ErrNoSandboxRow = errors.New("no sandbox row")

// ErrSandboxKeyTaken is Authorize's answer when a concurrent request with the same
// idempotency key recorded its transaction first (nothing was spent).
var ErrSandboxKeyTaken = errors.New("idempotency key taken concurrently")

// SandboxNonce is a stored nonce.
type SandboxNonce struct {
	Hash        []byte
	Kind        domain.MethodKind
	Outcome     string
	Card        domain.Summary
	Email       string
	Details     MethodDetails // cardholder name and postal code
	Fingerprint string
	CreatedAt   time.Time
	ExpiresAt   time.Time
}

// SandboxMethod is a method to vault.
type SandboxMethod struct {
	Token, CustomerID, Fingerprint string
	Kind                           domain.MethodKind
	Outcome                        string
	Card                           domain.Summary
	Email                          string
	Details                        MethodDetails
	At                             time.Time
}

// SandboxVault is a keyed vault request's outcome: vaulted (MethodToken) or refused.
type SandboxVault struct {
	Key, Status, Outcome        string
	FailureCode, FailureMessage string
	MethodToken                 string
	At                          time.Time
}

// SandboxTx is a stored processor transaction.
type SandboxTx struct {
	Tx      Transaction
	Status  string
	Outcome string
}

// SandboxSource is what an authorization spends.
type SandboxSource int

const (
	SandboxFromMethod     SandboxSource = iota // a vaulted method (Token)
	SandboxFromNonce                           // a nonce (NonceHash)
	SandboxFromNonceVault                      // a nonce, vaulted for CustomerID as MethodToken on approval
)

// SandboxAuth is one authorization to record.
type SandboxAuth struct {
	From        SandboxSource
	Token       string // the vaulted method's
	NonceHash   []byte
	Key         string // "" is no deduplication
	ID          string
	Approving   []string // the outcomes that approve
	Status      string   // when approved: authorized or captured
	Amount      int64
	Currency    string
	Metadata    []byte // a JSON object
	CustomerID  string
	MethodToken string
	At          time.Time
}
