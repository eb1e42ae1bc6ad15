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
// replica of payments: its state (nonces, vault, transactions, refunds) is kept by a
// SandboxStore (adapters.SandboxStore: the sandbox_* tables of migrations/0002_sandbox.sql),
// so a nonce tokenised on one replica can be charged on another and a restart forgets
// nothing. It is for development and tests; it never stores a card number or CVV.
//
// The store's pool should be the sandbox's own, not the one charges run on: a charge holds
// its connection while it calls the processor, so sharing one pool can starve the
// processor call of a connection.
type Sandbox struct {
	store    SandboxStore
	now      func() time.Time
	key      []byte
	nonceTTL time.Duration
	issued   atomic.Uint64 // nonces issued; every sweepEvery-th sweeps old ones
}

// NewSandbox builds a sandbox on store; fingerprintKey keys card fingerprints, nonceTTL
// is the life of a nonce (3 hours at real processors), now the clock.
func NewSandbox(store SandboxStore, fingerprintKey []byte, nonceTTL time.Duration, now func() time.Time) *Sandbox {
	return &Sandbox{store: store, now: now, key: fingerprintKey, nonceTTL: nonceTTL}
}

var _ Gateway = (*Sandbox)(nil)

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
	if err := s.store.PutNonce(ctx, SandboxNonce{Hash: nonceHash(n.Nonce), Kind: n.Kind, Outcome: string(oc), Card: n.Card,
		Email: n.Email, Details: d, Fingerprint: fingerprint, CreatedAt: now, ExpiresAt: n.ExpiresAt}); err != nil {
		return err
	}
	if s.issued.Add(1)%sweepEvery == 0 {
		// Nonces a day past expiry are only kept to tell "expired" from "unknown" for a while.
		return s.store.SweepNonces(ctx, now.Add(-24*time.Hour))
	}
	return nil
}

// consume marks a nonce used, atomically (of concurrent consumers exactly one gets it),
// and answers it; an unknown, used or expired nonce is a refusal.
func (s *Sandbox) consume(ctx context.Context, st SandboxNonces, nonce string) (SandboxNonce, error) {
	now := s.now()
	n, err := st.ConsumeNonce(ctx, nonceHash(nonce), now)
	if errors.Is(err, ErrNoSandboxRow) {
		return n, s.unusable(ctx, st, nonce, now)
	}
	return n, err
}

// unusable answers why a nonce could not be consumed: unknown, used or expired.
func (s *Sandbox) unusable(ctx context.Context, st SandboxNonces, nonce string, now time.Time) error {
	used, expiresAt, err := st.NonceState(ctx, nonceHash(nonce))
	switch {
	case errors.Is(err, ErrNoSandboxRow):
		return &Declined{Code: domain.FailInvalidNonce, Message: "Unknown payment method nonce."}
	case err != nil:
		return err
	case used:
		return &Declined{Code: domain.FailInvalidNonce, Message: "Cannot use a payment method nonce more than once."}
	case !now.Before(expiresAt):
		return &Declined{Code: domain.FailNonceExpired, Message: "Payment method nonce has expired."}
	}
	// Unused and valid now: it expired between the two reads' clocks, or a concurrent
	// consumer's transaction rolled back. Either way this attempt did not get it.
	return &Declined{Code: domain.FailInvalidNonce, Message: "Cannot use a payment method nonce more than once."}
}

// method answers a store's method read, a missing one as NotFound.
func method(m domain.MethodSummary, err error) (domain.MethodSummary, error) {
	if errors.Is(err, ErrNoSandboxRow) {
		return m, errs.E(errs.NotFound, "payment method not found")
	}
	return m, err
}

// vault stores n's method for customer, or refreshes the customer's method of the same
// card (fingerprint): a newer expiry replaces the old one and d's non-empty details win.
func (s *Sandbox) vault(ctx context.Context, st SandboxMethods, n SandboxNonce, customer string, d MethodDetails) (domain.MethodSummary, error) {
	return method(st.VaultMethod(ctx, SandboxMethod{Token: randomID("pm_"), CustomerID: customer, Fingerprint: n.Fingerprint,
		Kind: n.Kind, Outcome: n.Outcome, Card: n.Card, Email: n.Email, Details: merge(n.Details, d), At: s.now()}, d))
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
	err := s.store.InTx(ctx, func(st SandboxStore) error {
		if r.IdempotencyKey != "" {
			var done bool
			var err error
			if m, refused, done, err = s.replayVault(ctx, st, r.IdempotencyKey); err != nil || done {
				return err
			}
		}
		n, err := s.consume(ctx, st, r.Nonce)
		if err != nil {
			return err
		}
		if r.Verify {
			if d := outcome(n.Outcome).refusal(); d != nil {
				d.Message = "Processor declined the verification: " + d.Message
				d.Fingerprint = n.Fingerprint
				refused = d
				// commit: the nonce is spent
				return s.recordVault(ctx, st, r.IdempotencyKey, "refused", n.Outcome, d, "")
			}
		}
		if m, err = s.vault(ctx, st, n, r.CustomerID, r.Details); err != nil {
			return err
		}
		return s.recordVault(ctx, st, r.IdempotencyKey, "vaulted", n.Outcome, nil, m.Token)
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
func (s *Sandbox) replayVault(ctx context.Context, st SandboxMethods, key string) (domain.MethodSummary, *Declined, bool, error) {
	if err := st.LockVaultKey(ctx, key); err != nil {
		return domain.MethodSummary{}, nil, false, err
	}
	v, err := st.VaultOutcome(ctx, key)
	switch {
	case errors.Is(err, ErrNoSandboxRow):
		return domain.MethodSummary{}, nil, false, nil
	case err != nil:
		return domain.MethodSummary{}, nil, false, err
	case v.Status == "refused":
		return domain.MethodSummary{}, &Declined{Code: v.FailureCode, Message: v.FailureMessage}, true, nil
	}
	m, err := method(st.Method(ctx, v.MethodToken))
	return m, nil, true, err
}

// recordVault keeps a keyed vault request's outcome (nothing without a key).
func (s *Sandbox) recordVault(ctx context.Context, st SandboxMethods, key, status, oc string, d *Declined, token string) error {
	if key == "" {
		return nil
	}
	v := SandboxVault{Key: key, Status: status, Outcome: oc, MethodToken: token, At: s.now()}
	if d != nil {
		v.FailureCode, v.FailureMessage = d.Code, d.Message
	}
	return st.RecordVault(ctx, v)
}

// answer is what a stored transaction says to a caller: its refusal or the transaction.
func answer(t SandboxTx) (Transaction, error) {
	if t.Status == "refused" {
		if d := outcome(t.Outcome).refusal(); d != nil {
			return Transaction{}, d
		}
		return Transaction{}, &Declined{Code: domain.FailDeclined, Message: "Do Not Honor"}
	}
	return t.Tx, nil
}

// Authorize authorizes (and with Capture captures) an amount, once per idempotency key: a
// retry answers the first result, a refusal included.
func (s *Sandbox) Authorize(ctx context.Context, r AuthRequest) (Transaction, error) {
	if err := ctx.Err(); err != nil {
		return Transaction{}, err
	}
	t, err := s.authorize(ctx, r)
	if errors.Is(err, ErrSandboxKeyTaken) {
		return s.replay(ctx, s.store, r, s.now())
	}
	return t, err
}

// authorize spends the source (a nonce or a vaulted method) and records the processor's
// decision in one step of the store, so the two cannot come apart. Nothing is spent when
// the idempotency key already has a transaction; the caller then replays the stored one.
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
	a := SandboxAuth{From: SandboxFromMethod, Token: r.Token, Key: r.IdempotencyKey, ID: randomID("tx_"), Approving: approving,
		Status: status, Amount: r.Amount, Currency: r.Currency, Metadata: meta, At: now}
	switch {
	case r.Nonce != "" && r.StoreInVault:
		a.From, a.NonceHash, a.CustomerID, a.MethodToken = SandboxFromNonceVault, nonceHash(r.Nonce), r.CustomerID, randomID("pm_")
	case r.Nonce != "":
		a.From, a.NonceHash = SandboxFromNonce, nonceHash(r.Nonce)
	}
	t, vaulted, err := s.store.Authorize(ctx, a)
	switch {
	case errors.Is(err, ErrNoSandboxRow):
		// The key has a transaction already, or the source is unusable.
		return s.replay(ctx, s.store, r, now)
	case err != nil:
		return Transaction{}, err
	}
	oc := outcome(t.Outcome)
	if d := oc.refusal(); d != nil {
		d.Fingerprint = s.declinedCard(ctx, r)
		return Transaction{}, d
	}
	if oc == timeout {
		// The processor acted but its answer is lost; a retry with the key replays it.
		return Transaction{}, ErrTimeout
	}
	if vaulted != nil {
		t.Tx.Method = *vaulted
	}
	return t.Tx, nil
}

// CardFingerprint answers the fingerprint of a nonce's or a vaulted method's card ("" when
// unknown).
func (s *Sandbox) CardFingerprint(ctx context.Context, nonce, token string) (string, error) {
	var fp string
	var err error
	if nonce != "" {
		fp, err = s.store.NonceFingerprint(ctx, nonceHash(nonce))
	} else if token != "" {
		fp, err = s.store.MethodFingerprint(ctx, token)
	}
	if errors.Is(err, ErrNoSandboxRow) {
		return "", nil
	}
	return fp, err
}

// declinedCard answers the fingerprint of a declined source, as a processor's decline
// names the card (empty when it cannot be read). Only declines pay for the read.
func (s *Sandbox) declinedCard(ctx context.Context, r AuthRequest) string {
	var fp string
	if r.Nonce != "" {
		fp, _ = s.store.NonceFingerprint(ctx, nonceHash(r.Nonce))
	} else {
		fp, _ = s.store.MethodFingerprint(ctx, r.Token)
	}
	return fp
}

// replay answers the key's stored transaction, or why the source could not be used.
func (s *Sandbox) replay(ctx context.Context, st interface {
	SandboxTransactions
	SandboxNonces
}, r AuthRequest, now time.Time) (Transaction, error) {
	if r.IdempotencyKey != "" {
		t, err := st.TxByKey(ctx, r.IdempotencyKey)
		if err == nil {
			return answer(t)
		}
		if !errors.Is(err, ErrNoSandboxRow) {
			return Transaction{}, err
		}
	}
	if r.Nonce != "" {
		return Transaction{}, s.unusable(ctx, st, r.Nonce, now)
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
	t, err := s.store.Transition(ctx, id, status, append(from, status))
	if err == nil {
		return t.Tx, nil
	}
	if !errors.Is(err, ErrNoSandboxRow) {
		return Transaction{}, fmt.Errorf("%s transaction: %w", verb, err)
	}
	cur, err := s.store.TxStatus(ctx, id)
	if errors.Is(err, ErrNoSandboxRow) {
		return Transaction{}, errs.E(errs.NotFound, "processor transaction not found")
	}
	if err != nil {
		return Transaction{}, err
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
	err := s.store.InTx(ctx, func(st SandboxStore) error {
		if key != "" {
			var err error
			out, err = st.RefundByKey(ctx, id, key)
			if err == nil {
				return nil
			}
			if !errors.Is(err, ErrNoSandboxRow) {
				return err
			}
		}
		ok, err := st.AddRefunded(ctx, id, amount)
		if err != nil {
			return err
		}
		if !ok {
			_, err := st.TxStatus(ctx, id)
			if errors.Is(err, ErrNoSandboxRow) {
				return errs.E(errs.NotFound, "processor transaction not found")
			}
			if err != nil {
				return err
			}
			return errs.E(errs.Precondition, "refund of %d exceeds what is left of the transaction", amount)
		}
		out = randomID("rf_")
		if key == "" {
			key = out
		}
		return st.PutRefund(ctx, id, key, out, amount, s.now())
	})
	return out, err
}

// GetPaymentMethod answers a vaulted method.
func (s *Sandbox) GetPaymentMethod(ctx context.Context, token string) (domain.MethodSummary, error) {
	return method(s.store.Method(ctx, token))
}

// UpdatePaymentMethod changes a vaulted method's billing details (empty ones are kept).
func (s *Sandbox) UpdatePaymentMethod(ctx context.Context, token string, d MethodDetails) (domain.MethodSummary, error) {
	return method(s.store.UpdateMethod(ctx, token, d, s.now()))
}
