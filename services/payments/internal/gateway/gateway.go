// Package gateway is the boundary to the card processor: the Gateway interface every
// processor adapter implements, and Sandbox, the built-in processor for development and
// tests that behaves like a real one (test card numbers, single-use expiring nonces,
// a vault, authorizations, captures, voids, refunds, idempotency keys, timeouts) and,
// like a real one, is shared by every replica: its state is in PostgreSQL.
//
// What an adapter for a real processor must do is in services/payments/README.md.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hangar/hangar/services/payments/internal/domain"
)

// Gateway is a card processor. Every method is safe for concurrent use.
//
// Failures: a processor refusal (decline, bad nonce, failed verification) is a *Declined;
// ErrTimeout means the outcome is unknown (the processor may have acted): callers retry
// with the same idempotency key, which the processor deduplicates; invalid card fields
// are an errs Invalid error with field errors; anything else is an outage.
type Gateway interface {
	// ClientToken answers the authorization the hosted fields start with.
	ClientToken(ctx context.Context, customerID string) (string, error)
	// Tokenize turns card fields into a single-use nonce. The only method that sees a
	// card number; it must not keep or log it.
	Tokenize(ctx context.Context, card domain.CardInput) (Nonce, error)
	// TokenizeWallet runs the wallet 'vault' flow for the provider-held account of email.
	TokenizeWallet(ctx context.Context, email string) (Nonce, error)
	// Vault stores the nonce's method for a customer (verifying a card first when asked)
	// and answers the reusable method. The same card vaulted twice for one customer
	// answers the existing method.
	Vault(ctx context.Context, r VaultRequest) (domain.MethodSummary, error)
	// Authorize reserves the amount on a nonce or vaulted method; with r.Capture it is a
	// sale (authorized and captured at once).
	Authorize(ctx context.Context, r AuthRequest) (Transaction, error)
	// Charge is Authorize with capture.
	Charge(ctx context.Context, r AuthRequest) (Transaction, error)
	// Capture captures an authorization.
	Capture(ctx context.Context, txID string) (Transaction, error)
	// Void cancels an authorization.
	Void(ctx context.Context, txID string) (Transaction, error)
	// Refund refunds amount of a captured transaction; idempotent by key.
	Refund(ctx context.Context, txID string, amount int64, key string) (string, error)
	// CardFingerprint answers the card fingerprint of a nonce (not consuming it) or, with
	// token, of a vaulted method; "" when unknown or no card (Stripe's card.fingerprint,
	// Braintree's unique_number_identifier).
	CardFingerprint(ctx context.Context, nonce, token string) (string, error)
	// GetPaymentMethod answers a vaulted method.
	GetPaymentMethod(ctx context.Context, token string) (domain.MethodSummary, error)
	// UpdatePaymentMethod changes a vaulted method's billing details.
	UpdatePaymentMethod(ctx context.Context, token string, u MethodDetails) (domain.MethodSummary, error)
	// Lookup is the processor's own record of what it did (lookup.go): payments reconciles
	// with it, not only with its own table.
	Lookup
}

// Nonce is a single-use reference to tokenised card fields or a wallet account.
type Nonce struct {
	Nonce     string
	Kind      domain.MethodKind
	Card      domain.Summary
	BIN       string
	Email     string
	ExpiresAt time.Time
	// Fingerprint identifies the card (the same for every nonce of one number), as real
	// processors name it: the card-testing rules count declines per card with it.
	Fingerprint string
}

// MethodDetails are a method's billing details.
type MethodDetails struct {
	CardholderName string
	PostalCode     string
	Country        string
}

// VaultRequest asks to store a nonce's method.
type VaultRequest struct {
	// IdempotencyKey, when set, makes the request once-only at the processor: a retry
	// answers the first outcome (payments sends a key derived from its vault's).
	IdempotencyKey string
	Nonce          string
	CustomerID     string
	Verify         bool
	Details        MethodDetails
}

// AuthRequest asks to authorize (and maybe capture) an amount.
type AuthRequest struct {
	IdempotencyKey string
	Amount         int64
	Currency       string
	Nonce          string
	Token          string
	CustomerID     string
	Capture        bool
	StoreInVault   bool
	// Metadata is kept by the processor with the transaction and answered by Lookup (a real
	// gateway's metadata or custom fields): payments sends what it needs to record the
	// charge from the processor's side alone. Never card data.
	Metadata map[string]string
}

// Transaction is the processor's record of a payment.
type Transaction struct {
	ID       string
	Captured bool
	Method   domain.MethodSummary
}

// Declined is a processor refusal, with the failure code of domain (FailDeclined, ...)
// and the processor's message.
type Declined struct {
	Code    string
	Message string
	// Fingerprint is the declined card's, when the processor names it (card testing).
	Fingerprint string
}

func (d *Declined) Error() string { return fmt.Sprintf("declined: %s: %s", d.Code, d.Message) }

// AsDeclined answers the refusal in err, if any.
func AsDeclined(err error) (*Declined, bool) {
	var d *Declined
	ok := errors.As(err, &d)
	return d, ok
}

// ErrTimeout is an unknown outcome: retry with the same idempotency key.
var ErrTimeout = errors.New("payment processor timed out")
