// Package order is checkout's purchase pipeline, shared by every kind of order
// (subscriptions, gift certificates, one-off carts): a priced Purchase is claimed by its
// idempotency key, charged through payments, then written — order, invoice lines, promotion
// redemptions, gift and account balance movements, the kind's own state (a Fulfiller) and
// the outbox events — in one transaction. A crash between the charge and the write is
// finished (or refunded) by the Reconciler. services/checkout/README.md documents the API.
package order

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
)

// Kinds of order.
const (
	KindSubscription = "subscription"
	KindGift         = "gift"
	KindOneOff       = "oneoff"
)

// Line is one priced invoice line, stored as priced.
type Line struct {
	Type              string `json:"type"`
	AddOnCode         string `json:"addOnCode,omitempty"`
	PlanType          string `json:"planType,omitempty"`
	Description       string `json:"description,omitempty"`
	Reason            string `json:"reason,omitempty"`
	UnitAmountInCents int64  `json:"unitAmountInCents"`
	Quantity          int64  `json:"quantity"`
	AmountInCents     int64  `json:"amountInCents"`
	Key               string `json:"key,omitempty"`
	BundleAddOnCode   string `json:"bundleAddOnCode,omitempty"`
	BundleItemType    string `json:"bundleItemType,omitempty"`
	PostTax           bool   `json:"postTax,omitempty"`
}

// GiftDebit is an amount paid from a gift certificate.
type GiftDebit struct {
	// Ref is the certificate's promotion.GiftRef (the hash of its code), never the code.
	Ref string `json:"ref,omitempty"`
	// Code is the plain code of a debit priced before Ref (a submission still pending
	// across the upgrade); it is hashed when applied.
	Code          string `json:"code,omitempty"`
	AmountInCents int64  `json:"amountInCents"`
}

// Purchase is a priced order ready to be paid and written. Amounts are minor units of
// Currency. Detail is the kind's own data, handed to its Fulfiller (JSON, so that the
// reconciler can finish an order after a crash).
type Purchase struct {
	Kind           string `json:"kind"`
	AccountID      string `json:"accountId"`
	OrganizationID string `json:"organizationId,omitempty"`
	Email          string `json:"email"`
	// BuyerKind: individual, business, military or bundle (subscription orders).
	BuyerKind string `json:"buyerKind,omitempty"`
	Currency  string `json:"currency"`
	Lines     []Line `json:"lines"`

	SubtotalInCents        int64 `json:"subtotalInCents"`
	TaxInCents             int64 `json:"taxInCents"`
	TotalInCents           int64 `json:"totalInCents"`
	CreditToAccountInCents int64 `json:"creditToAccountInCents,omitempty"`
	// Paid before the card: gift certificates and the account balance.
	Gifts                 []GiftDebit `json:"gifts,omitempty"`
	AccountBalanceInCents int64       `json:"accountBalanceInCents,omitempty"`
	// Promotion codes redeemed by this order (their limits are enforced at write).
	PromoCodes []string `json:"promoCodes,omitempty"`

	TaxLabel        string `json:"taxLabel,omitempty"`
	TaxJurisdiction string `json:"taxJurisdiction,omitempty"`
	ReverseCharge   bool   `json:"reverseCharge,omitempty"`
	// TaxRatePPM is the rate the tax was charged at (tax.Rule.ChargedPPM), printed beside it.
	TaxRatePPM int64 `json:"taxRatePpm,omitempty"`
	// ThirdParty: paid by a third party (receipt prices read N/A).
	ThirdParty     bool   `json:"thirdParty,omitempty"`
	PaymentMethod  string `json:"paymentMethod,omitempty"`
	BillingName    string `json:"billingName,omitempty"`
	BillingCountry string `json:"billingCountry,omitempty"`
	BillingZip     string `json:"billingZip,omitempty"`
	BusinessID     string `json:"businessId,omitempty"`
	IsEU           bool   `json:"isEu,omitempty"`

	Detail json.RawMessage `json:"detail,omitempty"`
	// SellerAccountID is the credit-card admin who sold the purchase in sales mode (audit).
	SellerAccountID string `json:"sellerAccountId,omitempty"`
}

// Payment is how the buyer pays: a nonce (card or wallet, single use) or a stored method.
type Payment struct {
	Nonce          string `json:"nonce,omitempty"`
	Token          string `json:"token,omitempty"`
	CardholderName string `json:"cardholderName,omitempty"`
}

// Placed is a written order, as a Fulfiller and the answer see it.
type Placed struct {
	Purchase
	// InvoiceContact is the billing contact printed on the invoice (nil: none saved): the
	// latest correction's when there is one.
	InvoiceContact *Contact
	// Correction is the latest corrected copy of the invoice (nil: none): the contact of an
	// issued invoice is fixed, and a changed contact issues a corrected copy.
	Correction    *Correction
	InvoiceID     string
	InvoiceNumber string
	ChargeID      string
	CardBrand     string
	CardLast4     string
	// PaymentMethodToken is payments' vaulted method the order was paid with (the stored
	// token, or the one payments vaulted from the nonce): what a renewal charges.
	PaymentMethodToken string
	// CardExpires is the paying card's expiry (MM/YYYY; "" when unknown or not a card).
	CardExpires string
	CreatedAt   time.Time
	// Replayed: the answer of an earlier request with the same key.
	Replayed bool
}

// Fulfiller writes a kind's own state (the subscription change, issued gift certificates)
// inside the order's transaction and answers the events to publish with it. It runs at
// most once per order; an error rolls the order back (the charge is then refunded, and
// the buyer told to review the order: ErrUnfulfillable).
type Fulfiller interface {
	Fulfil(ctx context.Context, tx Tx, o *Placed) ([]kafka.Event, error)
}

// FulfillerFunc adapts a function.
type FulfillerFunc func(ctx context.Context, tx Tx, o *Placed) ([]kafka.Event, error)

// Fulfil calls f.
func (f FulfillerFunc) Fulfil(ctx context.Context, tx Tx, o *Placed) ([]kafka.Event, error) {
	return f(ctx, tx, o)
}

// Charge is what checkout needs to know of a payments charge.
type Charge struct {
	ID             string
	Status         string // PENDING, AUTHORIZED, CAPTURED, FAILED, VOIDED, REFUNDED, PARTIALLY_REFUNDED
	FailureCode    string
	FailureMessage string
	CardBrand      string
	CardLast4      string
	MethodType     string
	// MethodToken is the vaulted method's token (never card data).
	MethodToken string
	// CardExpires is the card's expiry, MM/YYYY ("" for wallets or when unknown).
	CardExpires string
}

// Paid reports whether the charge took the buyer's money.
func (c Charge) Paid() bool { return c.Status == "CAPTURED" || c.Status == "AUTHORIZED" }

// ChargeRequest asks payments to charge once per key.
type ChargeRequest struct {
	Key string
	// Fence is the submission's fence as the charging request holds it: payments refuses a
	// charge under a fence older than the newest it has seen for Key (IsFenced), so a
	// request paused past its lease cannot charge a key taken over meanwhile.
	Fence      int64
	Amount     int64
	Currency   string
	Payment    Payment
	CustomerID string
	Reference  string
	// MakeDefault: a nonce's card becomes the customer's card on file even when one is
	// (a subscription order: its renewals charge it). Without it only when none is.
	MakeDefault bool
	// CustomerEmail is the buyer's e-mail: payments lets a card the sales-mode reader
	// vaulted for it pay (with the seller's session).
	CustomerEmail string
}

// VaultRequest asks payments to store a nonce's card for the customer without charging
// it (a zero total: the renewal charges the card), once per key.
type VaultRequest struct {
	Key           string
	Payment       Payment
	CustomerID    string
	CustomerEmail string
	Reference     string
	MakeDefault   bool
}

// Payments is the payments service as the pipeline uses it.
type Payments interface {
	Charge(ctx context.Context, r ChargeRequest) (Charge, error)
	// ChargeByKey answers the charge made with key; errs.NotFound when none was. It records
	// fence as the key's newest first (in the same transaction as the look-up), so a charge
	// under an older fence is refused from then on: "not found" stays true.
	ChargeByKey(ctx context.Context, key string, fence int64) (Charge, error)
	Refund(ctx context.Context, chargeID, key, reason string) error
	// Vault stores the nonce's method (or checks a stored method's, Payment.Token): a
	// Charge of nothing (no id, no status) carrying the method's token and card; a declined
	// verification is a *DeclinedError.
	Vault(ctx context.Context, r VaultRequest) (Charge, error)
}

// A stored method pays only for its owner (payments decides, in its charge and vault):
// any other use is refused with errs.Forbidden before anything is charged, and the
// pipeline then leaves nothing of the submission behind (IsRefused).

// IsRefused reports whether err is payments refusing the stored method offered.
func IsRefused(err error) bool { return errs.CodeOf(err) == errs.Forbidden }

// IsThrottled reports whether payments refused the card attempt under its card-testing
// rule (429 with the wait): like a refused method, nothing was charged or written there,
// so the submission's claim is forgotten and the key may be tried again after the wait.
func IsThrottled(err error) bool { return errs.CodeOf(err) == errs.Exhausted }

// FencedReason is the reason of payments' refusal of a charge under a fence older than
// the newest it has seen for the key.
const FencedReason = "FENCED"

// IsFenced reports whether err is payments refusing a charge under a superseded fence:
// nothing was charged under it, and the key belongs to whoever took it over.
func IsFenced(err error) bool {
	var e *errs.Error
	return errors.As(err, &e) && e.Reason == FencedReason
}

// DeclinedError is a failed charge (errs.Declined, with the processor's message).
type DeclinedError struct{ Code, Message string }

func (e *DeclinedError) Error() string { return "payment declined: " + e.Code + ": " + e.Message }

// InProgressRetry is the Retry-After of ErrInProgress.
const InProgressRetry = 2 * time.Second

// Errors of the pipeline (the ports map them to statuses and codes).
var (
	// ErrKeyReused: the idempotency key was used with another request (409).
	ErrKeyReused = &errs.Error{Code: errs.Conflict, Reason: "IDEMPOTENCY_KEY_REUSED",
		Message: "This Idempotency-Key was used for a different order. Use a new key for a new order."}
	// ErrInProgress: another replica is processing the same key right now (409; retry).
	// Retry-After tells the client when: a live request renews its lease and ends within a
	// second or two, a dead one's key is taken over within DefaultLease, so a client that
	// retries at this pace gets the order soon after it can be had (issue 30).
	// Its reason, ORDER_IN_PROGRESS, tells the pages to wait and ask again with the same key.
	ErrInProgress = &errs.Error{Code: errs.Conflict, Reason: "ORDER_IN_PROGRESS", RetryAfter: InProgressRetry,
		Message: "This order is being processed. Please wait a moment and check again."}
	// ErrAttemptClosed: the key's attempt ended without an order and without a charge (the
	// reconciler abandoned it, or its charge was refunded); the key never completes, so the
	// reason, ATTEMPT_CLOSED, tells the pages to start a new attempt (a new key and a new
	// card token) instead of asking again with this one (409).
	ErrAttemptClosed = &errs.Error{Code: errs.Conflict, Reason: "ATTEMPT_CLOSED",
		Message: "This order could not be completed and you were not charged. Please review your order and submit it again."}
	// ErrAttemptRefunded: the key's charge was captured and then refunded; the attempt is
	// closed as ErrAttemptClosed is, but its answer never says the buyer was not charged.
	ErrAttemptRefunded = &errs.Error{Code: errs.Conflict, Reason: "ATTEMPT_CLOSED", Message: msgRefunded}
	// ErrUnfulfillable: the order could not be written after the charge (a promotion ran
	// out, a gift certificate was spent meanwhile); the charge was refunded.
	ErrUnfulfillable = errors.New("order cannot be fulfilled")
)

// AsDeclined answers err as a decline.
func AsDeclined(err error) (*DeclinedError, bool) {
	var d *DeclinedError
	ok := errors.As(err, &d)
	return d, ok
}

// Contact is the billing contact printed on an invoice (spec 001 §3's fields).
type Correction struct {
	// Number is the copy's number: the invoice number and a correction suffix (-C1, -C2…).
	Number    string    `json:"number"`
	Contact   Contact   `json:"contact"`
	CreatedAt time.Time `json:"createdAt"`
}

// CopyNumber is the number printed on the invoice: the latest corrected copy's, else the
// invoice's.
func (o *Placed) CopyNumber() string {
	if o.Correction != nil {
		return o.Correction.Number
	}
	return o.InvoiceNumber
}

// Contact is the billing contact printed on an invoice ("Bill to"): single-line fields.
type Contact struct {
	Name             string `json:"name"`
	PhysicalAddress  string `json:"physicalAddress"`
	PhysicalAddress2 string `json:"physicalAddress2,omitempty"`
	City             string `json:"city"`
	StateProvince    string `json:"stateProvince,omitempty"`
	PostalCode       string `json:"postalCode,omitempty"`
	Country          string `json:"country"`
}
