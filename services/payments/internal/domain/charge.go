package domain

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Status is the state of a charge:
//
//	pending ─► authorized ─► captured ─► partially_refunded ─► refunded
//	   │            └──────► voided          └──────────────────► refunded
//	   ├─► captured (a sale: authorized and captured in one processor call)
//	   └─► failed
//
// pending is also where a charge stays when the processor's answer is unknown (timeout):
// a retry with the same idempotency key asks the processor again with the same key.
type Status string

const (
	Pending           Status = "pending"
	Authorized        Status = "authorized"
	Captured          Status = "captured"
	Failed            Status = "failed"
	Voided            Status = "voided"
	Refunded          Status = "refunded"
	PartiallyRefunded Status = "partially_refunded"
)

// Currencies the store charges in.
var Currencies = map[string]bool{"USD": true, "CAD": true, "EUR": true, "GBP": true, "AUD": true}

// MethodKind is how a charge or a stored method pays.
type MethodKind string

const (
	KindCard   MethodKind = "CreditCard"
	KindWallet MethodKind = "PayPalAccount"
)

// MethodSummary describes the payment method of a charge or a vault entry, without card data.
type MethodSummary struct {
	Token          string
	Kind           MethodKind
	Card           Summary // zero for wallets
	Email          string  // the provider-held e-mail of a wallet
	CardholderName string
}

// ChargeRequest is a validated request to charge.
type ChargeRequest struct {
	IdempotencyKey string
	Amount         int64
	Currency       string
	Nonce          string
	Token          string
	CustomerID     string
	Description    string
	Reference      string
	AuthorizeOnly  bool
	StoreInVault   bool
	// MakeDefault: the vaulted method becomes the method on file even when one is.
	MakeDefault bool
	// CustomerEmail is the buyer's e-mail: with a credit-card admin's session, a card the
	// reader vaulted for it in that admin's sales mode may pay (app: the stored-method rule).
	// It decides who may pay, not what is charged, so it is not part of the request hash.
	CustomerEmail string
	// Fence is the caller's fencing token for the key (0: none; not part of the request
	// hash: a takeover's retry is the same request). A charge under a fence older than the
	// newest recorded for the key is refused (ErrFenced).
	Fence int64
}

// Validate checks the request, answering field errors.
func (r *ChargeRequest) Validate() error {
	r.Currency = strings.ToUpper(strings.TrimSpace(r.Currency))
	var fields []errs.FieldError
	add := func(f, m string) { fields = append(fields, errs.FieldError{Field: f, Message: m}) }
	if k := strings.TrimSpace(r.IdempotencyKey); k == "" || len(k) > 255 {
		add("idempotencyKey", "an idempotency key of 1 to 255 characters is required")
	}
	if r.Amount <= 0 {
		add("amount", "amount must be a positive number of minor units")
	}
	if !Currencies[r.Currency] {
		add("currency", "currency must be one of USD, CAD, EUR, GBP, AUD")
	}
	if (r.Nonce == "") == (r.Token == "") {
		add("nonce", "exactly one of nonce or paymentMethodToken is required")
	}
	if strings.TrimSpace(r.CustomerID) == "" {
		add("customerId", "customer is required")
	}
	if len(fields) > 0 {
		return &errs.Error{Code: errs.Invalid, Message: fields[0].Message, Fields: fields}
	}
	return nil
}

// Hash identifies the request's content, to tell a replay from a different request
// reusing a key.
func (r ChargeRequest) Hash() []byte {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%t\x00%t", r.Amount, r.Currency, r.Nonce, r.Token,
		r.CustomerID, r.Description, r.Reference, r.AuthorizeOnly, r.StoreInVault)
	if r.MakeDefault {
		// Only when set, so the keys of charges made before the field keep their hashes.
		h.Write([]byte("\x00default"))
	}
	return h.Sum(nil)
}

// ErrKeyReused is the answer to a key reused with a different request.
var ErrKeyReused = errs.E(errs.Conflict, "This idempotency key was already used with a different request.")

// Charge is one charge and its state.
type Charge struct {
	ID             string
	IdempotencyKey string
	RequestHash    []byte
	Status         Status
	Amount         int64
	Currency       string
	Captured       int64
	Refunded       int64
	CustomerID     string
	Method         MethodSummary
	FailureCode    string
	FailureMessage string
	ProcessorTxID  string
	Reference      string
	Description    string
	AuthorizeOnly  bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
	// Fence is the fencing token of the request that made or advances it (0: none), kept
	// per key apart from the charge (the newest one wins).
	Fence int64
}

// NewCharge starts a pending charge for r.
func NewCharge(id string, r ChargeRequest, now time.Time) Charge {
	return Charge{ID: id, IdempotencyKey: r.IdempotencyKey, RequestHash: r.Hash(), Status: Pending, Amount: r.Amount,
		Currency: r.Currency, CustomerID: r.CustomerID, Reference: r.Reference, Description: r.Description,
		AuthorizeOnly: r.AuthorizeOnly, CreatedAt: now, UpdatedAt: now, Fence: r.Fence}
}

// FencedReason is ErrFenced's reason (callers tell it from other refusals by it).
const FencedReason = "FENCED"

// ErrFenced refuses a charge whose fencing token is older than the newest recorded for its
// key: the caller's claim on the key was taken over, and nothing was charged.
var ErrFenced = &errs.Error{Code: errs.Precondition, Reason: FencedReason,
	Message: "This charge's claim was taken over by a newer attempt; nothing was charged."}

// Failure codes of a failed charge.
const (
	FailDeclined           = "declined"
	FailInsufficientFunds  = "insufficient_funds"
	FailExpiredCard        = "expired_card"
	FailCVV                = "cvv_failed"
	FailProcessorTimeout   = "processor_unavailable"
	FailInvalidNonce       = "invalid_nonce"
	FailNonceExpired       = "nonce_expired"
	FailInvalidMethod      = "invalid_payment_method"
	MsgProcessorNoAnswer   = "The payment processor did not answer. Retry with the same idempotency key."
	MsgRefundAboveCaptured = "Refund amount exceeds the captured amount left to refund."
)

func (c *Charge) transition(to Status, now time.Time, from ...Status) error {
	for _, f := range from {
		if c.Status == f {
			c.Status, c.UpdatedAt = to, now
			return nil
		}
	}
	return errs.E(errs.Precondition, "A %s charge cannot become %s.", strings.ReplaceAll(string(c.Status), "_", " "), to)
}

// Authorized records the processor's authorization.
func (c *Charge) Authorized(txID string, m MethodSummary, now time.Time) error {
	c.ProcessorTxID, c.Method, c.FailureCode, c.FailureMessage = txID, m, "", ""
	return c.transition(Authorized, now, Pending)
}

// MarkCaptured records the capture of the authorized amount (or a sale from pending).
func (c *Charge) MarkCaptured(txID string, m MethodSummary, now time.Time) error {
	if c.Status == Pending {
		c.ProcessorTxID, c.Method, c.FailureCode, c.FailureMessage = txID, m, "", ""
	}
	if err := c.transition(Captured, now, Pending, Authorized); err != nil {
		return err
	}
	c.Captured = c.Amount
	return nil
}

// Fail records a processor refusal: its code, and the buyer's words for it (DeclineMessage),
// not the processor's.
func (c *Charge) Fail(code string, now time.Time) error {
	c.FailureCode, c.FailureMessage = code, DeclineMessage(code)
	return c.transition(Failed, now, Pending)
}

// Unknown records that the processor did not answer: the charge stays pending.
func (c *Charge) Unknown(now time.Time) error {
	if c.Status != Pending {
		return errs.E(errs.Precondition, "only a pending charge can have an unknown outcome")
	}
	c.FailureCode, c.FailureMessage, c.UpdatedAt = FailProcessorTimeout, MsgProcessorNoAnswer, now
	return nil
}

// Void cancels an authorization.
func (c *Charge) Void(now time.Time) error { return c.transition(Voided, now, Authorized) }

// CanCapture reports whether Capture may be asked of the processor.
func (c *Charge) CanCapture() error {
	if c.Status != Authorized {
		return errs.E(errs.Precondition, "Only an authorized charge can be captured; this one is %s.", c.Status)
	}
	return nil
}

// RefundAmount answers what a refund of amount (0: everything left) would refund.
func (c *Charge) RefundAmount(amount int64) (int64, error) {
	if c.Status != Captured && c.Status != PartiallyRefunded {
		return 0, errs.E(errs.Precondition, "Only a captured charge can be refunded; this one is %s.", strings.ReplaceAll(string(c.Status), "_", " "))
	}
	left := c.Captured - c.Refunded
	switch {
	case amount < 0:
		return 0, errs.Field("amount", "refund amount must not be negative")
	case amount == 0:
		return left, nil
	case amount > left:
		return 0, errs.Field("amount", MsgRefundAboveCaptured)
	}
	return amount, nil
}

// Refund applies a refund of amount (already checked with RefundAmount).
func (c *Charge) Refund(amount int64, now time.Time) error {
	if _, err := c.RefundAmount(amount); err != nil || amount == 0 {
		if err == nil {
			err = errs.Field("amount", "refund amount must be positive")
		}
		return err
	}
	c.Refunded += amount
	if c.Refunded == c.Captured {
		c.Status = Refunded
	} else {
		c.Status = PartiallyRefunded
	}
	c.UpdatedAt = now
	return nil
}

// Refund is one refund of a charge.
type Refund struct {
	ID             string
	ChargeID       string
	IdempotencyKey string
	Amount         int64
	Reason         string
	ProcessorID    string
	CreatedAt      time.Time
}
