package gateway

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
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

type outcome int

const (
	approve outcome = iota
	decline
	insufficient
	expired
	cvvFail
	timeout
)

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

// nonce is what the sandbox keeps of tokenised fields: the summary and the outcome the
// test number stands for, never the number or CVV.
type nonce struct {
	n           Nonce
	outcome     outcome
	fingerprint string
	used        bool
	details     MethodDetails
}

type method struct {
	m           domain.MethodSummary
	customer    string
	outcome     outcome
	fingerprint string
	details     MethodDetails
}

type transaction struct {
	tx       Transaction
	amount   int64
	status   string // authorized, captured, voided
	refunded int64
	timedOut bool // the first attempt of a timeout card answered ErrTimeout
}

// Sandbox is the built-in processor. Its state (nonces, vault, transactions) is held in
// memory, as a real processor holds it on its side: it is for development and tests.
type Sandbox struct {
	now      func() time.Time
	key      []byte
	nonceTTL time.Duration

	mu      sync.Mutex
	nonces  map[string]*nonce
	methods map[string]*method
	txs     map[string]*transaction
	byKey   map[string]*transaction
	refunds map[string]string // txID+key -> refund id
	refused map[string]*Declined
}

// NewSandbox builds a sandbox; fingerprintKey keys card fingerprints, nonceTTL is the
// life of a nonce (3 hours at real processors), now the clock.
func NewSandbox(fingerprintKey []byte, nonceTTL time.Duration, now func() time.Time) *Sandbox {
	return &Sandbox{now: now, key: fingerprintKey, nonceTTL: nonceTTL, nonces: map[string]*nonce{},
		methods: map[string]*method{}, txs: map[string]*transaction{}, byKey: map[string]*transaction{}, refunds: map[string]string{}, refused: map[string]*Declined{}}
}

var _ Gateway = (*Sandbox)(nil)

func randomID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// ClientToken answers a signed, base64 JSON authorization (like real processors' client tokens).
func (s *Sandbox) ClientToken(_ context.Context, customerID string) (string, error) {
	exp := s.now().Add(24 * time.Hour).Unix()
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("client-token:" + customerID))
	body, _ := json.Marshal(map[string]any{"version": 2, "environment": "sandbox", "merchantId": "hangar-sandbox",
		"authorizationFingerprint": hex.EncodeToString(m.Sum(nil))[:32], "expiresAt": exp,
		"tokenizeUrl": "/buy/api/payments/tokenize", "hostedFieldsUrl": "/buy/payments/"})
	return base64.StdEncoding.EncodeToString(body), nil
}

// Tokenize checks the card fields and answers a nonce. The number and CVV are read here
// and dropped: only the summary, the fingerprint and the test outcome are kept.
func (s *Sandbox) Tokenize(ctx context.Context, in domain.CardInput) (Nonce, error) {
	if err := ctx.Err(); err != nil {
		return Nonce{}, err
	}
	now := s.now()
	card, err := domain.CheckCard(in, now)
	if err != nil {
		return Nonce{}, err
	}
	n := &nonce{n: Nonce{Nonce: randomID("tokencc_"), Kind: domain.KindCard, Card: card.Summary(), BIN: card.BIN(),
		ExpiresAt: now.Add(s.nonceTTL)}, outcome: outcomeOf(card.Number), fingerprint: domain.Fingerprint(s.key, card.Number),
		details: MethodDetails{CardholderName: strings.TrimSpace(in.CardholderName), PostalCode: strings.TrimSpace(in.PostalCode)}}
	s.mu.Lock()
	s.sweep(now)
	s.nonces[n.n.Nonce] = n
	s.mu.Unlock()
	return n.n, nil
}

// TokenizeWallet answers a wallet nonce for the provider-held account of email.
func (s *Sandbox) TokenizeWallet(_ context.Context, email string) (Nonce, error) {
	email = strings.TrimSpace(email)
	if !domain.ValidEmail(email) {
		return Nonce{}, errs.Field("walletEmail", "Please enter your email address.")
	}
	now := s.now()
	n := &nonce{n: Nonce{Nonce: randomID("tokenpp_"), Kind: domain.KindWallet, Email: email, ExpiresAt: now.Add(s.nonceTTL)},
		fingerprint: domain.Fingerprint(s.key, "wallet:"+strings.ToLower(email))}
	s.mu.Lock()
	s.sweep(now)
	s.nonces[n.n.Nonce] = n
	s.mu.Unlock()
	return n.n, nil
}

// sweep forgets nonces a day past expiry, so memory stays bounded. Caller holds mu.
func (s *Sandbox) sweep(now time.Time) {
	if len(s.nonces) < 10000 {
		return
	}
	for k, n := range s.nonces {
		if now.After(n.n.ExpiresAt.Add(24 * time.Hour)) {
			delete(s.nonces, k)
		}
	}
}

// consume marks a nonce used. Caller holds mu.
func (s *Sandbox) consume(id string) (*nonce, error) {
	n, ok := s.nonces[id]
	switch {
	case !ok:
		return nil, &Declined{Code: domain.FailInvalidNonce, Message: "Unknown payment method nonce."}
	case n.used:
		return nil, &Declined{Code: domain.FailInvalidNonce, Message: "Cannot use a payment method nonce more than once."}
	case !s.now().Before(n.n.ExpiresAt):
		return nil, &Declined{Code: domain.FailNonceExpired, Message: "Payment method nonce has expired."}
	}
	n.used = true
	return n, nil
}

// vaultLocked stores n for customer. Caller holds mu.
func (s *Sandbox) vaultLocked(n *nonce, customer string, d MethodDetails) *method {
	for _, m := range s.methods {
		if m.customer == customer && m.fingerprint == n.fingerprint {
			m.m.Card = n.n.Card // a newer expiry replaces the old one
			m.details = merge(m.details, d)
			m.m.CardholderName = m.details.CardholderName
			return m
		}
	}
	m := &method{m: domain.MethodSummary{Token: randomID("pm_"), Kind: n.n.Kind, Card: n.n.Card, Email: n.n.Email},
		customer: customer, outcome: n.outcome, fingerprint: n.fingerprint, details: merge(n.details, d)}
	m.m.CardholderName = m.details.CardholderName
	s.methods[m.m.Token] = m
	return m
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
// verification like a $0 authorization would.
func (s *Sandbox) Vault(ctx context.Context, r VaultRequest) (domain.MethodSummary, error) {
	if err := ctx.Err(); err != nil {
		return domain.MethodSummary{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.consume(r.Nonce)
	if err != nil {
		return domain.MethodSummary{}, err
	}
	if r.Verify {
		if d := n.outcome.refusal(); d != nil {
			d.Message = "Processor declined the verification: " + d.Message
			return domain.MethodSummary{}, d
		}
	}
	return s.vaultLocked(n, r.CustomerID, r.Details).m, nil
}

// Authorize authorizes (and with Capture captures) an amount, once per idempotency key.
func (s *Sandbox) Authorize(ctx context.Context, r AuthRequest) (Transaction, error) {
	if err := ctx.Err(); err != nil {
		return Transaction{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.byKey[r.IdempotencyKey]; ok {
		// The processor's own idempotency: a retry answers the first result.
		return t.tx, nil
	}
	if d, ok := s.refused[r.IdempotencyKey]; ok {
		return Transaction{}, d
	}
	var (
		oc      outcome
		summary domain.MethodSummary
		src     *nonce
	)
	switch {
	case r.Nonce != "":
		n, err := s.consume(r.Nonce)
		if err != nil {
			return Transaction{}, err
		}
		oc, src = n.outcome, n
		summary = domain.MethodSummary{Kind: n.n.Kind, Card: n.n.Card, Email: n.n.Email, CardholderName: n.details.CardholderName}
	default:
		m, ok := s.methods[r.Token]
		if !ok {
			return Transaction{}, &Declined{Code: domain.FailInvalidMethod, Message: "Payment method token is invalid."}
		}
		oc, summary = m.outcome, m.m
	}
	if d := oc.refusal(); d != nil {
		if r.IdempotencyKey != "" {
			s.refused[r.IdempotencyKey] = d
		}
		return Transaction{}, d
	}
	if src != nil && r.StoreInVault {
		summary = s.vaultLocked(src, r.CustomerID, MethodDetails{}).m
	}
	t := &transaction{tx: Transaction{ID: randomID("tx_"), Captured: r.Capture, Method: summary}, amount: r.Amount, status: "authorized"}
	if r.Capture {
		t.status = "captured"
	}
	s.txs[t.tx.ID] = t
	if r.IdempotencyKey != "" {
		s.byKey[r.IdempotencyKey] = t
	}
	if oc == timeout && !t.timedOut {
		// The processor acted but the answer is lost.
		t.timedOut = true
		return Transaction{}, ErrTimeout
	}
	return t.tx, nil
}

// Charge authorizes and captures.
func (s *Sandbox) Charge(ctx context.Context, r AuthRequest) (Transaction, error) {
	r.Capture = true
	return s.Authorize(ctx, r)
}

func (s *Sandbox) tx(id string) (*transaction, error) {
	t, ok := s.txs[id]
	if !ok {
		return nil, errs.E(errs.NotFound, "processor transaction not found")
	}
	return t, nil
}

// Capture captures an authorization (capturing a captured one answers it again).
func (s *Sandbox) Capture(_ context.Context, id string) (Transaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.tx(id)
	if err != nil {
		return Transaction{}, err
	}
	switch t.status {
	case "authorized":
		t.status, t.tx.Captured = "captured", true
	case "captured":
	default:
		return Transaction{}, errs.E(errs.Precondition, "cannot capture a %s transaction", t.status)
	}
	return t.tx, nil
}

// Void cancels an authorization.
func (s *Sandbox) Void(_ context.Context, id string) (Transaction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.tx(id)
	if err != nil {
		return Transaction{}, err
	}
	switch t.status {
	case "authorized":
		t.status = "voided"
	case "voided":
	default:
		return Transaction{}, errs.E(errs.Precondition, "cannot void a %s transaction", t.status)
	}
	return t.tx, nil
}

// Refund refunds part or all of a captured transaction, once per key.
func (s *Sandbox) Refund(_ context.Context, id string, amount int64, key string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.refunds[id+"\x00"+key]; ok && key != "" {
		return r, nil
	}
	t, err := s.tx(id)
	if err != nil {
		return "", err
	}
	if t.status != "captured" || amount <= 0 || t.refunded+amount > t.amount {
		return "", errs.E(errs.Precondition, "refund of %d exceeds what is left of the transaction", amount)
	}
	t.refunded += amount
	r := randomID("rf_")
	if key != "" {
		s.refunds[id+"\x00"+key] = r
	}
	return r, nil
}

// GetPaymentMethod answers a vaulted method.
func (s *Sandbox) GetPaymentMethod(_ context.Context, token string) (domain.MethodSummary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.methods[token]
	if !ok {
		return domain.MethodSummary{}, errs.E(errs.NotFound, "payment method not found")
	}
	return m.m, nil
}

// UpdatePaymentMethod changes a vaulted method's billing details.
func (s *Sandbox) UpdatePaymentMethod(_ context.Context, token string, d MethodDetails) (domain.MethodSummary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.methods[token]
	if !ok {
		return domain.MethodSummary{}, errs.E(errs.NotFound, "payment method not found")
	}
	m.details = merge(m.details, d)
	m.m.CardholderName = m.details.CardholderName
	return m.m, nil
}
