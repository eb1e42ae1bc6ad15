package order

import (
	"context"
	"time"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/gift"
)

// Store is the pipeline's repository: the submissions (one per idempotency key) and the
// orders. Each method owns its statement or transaction; internal/adapters implements it
// on PostgreSQL (adapters.OrderStore). Errors are errs.Unavailable unless said otherwise.
type Store interface {
	// Lookup answers the submission of a key, or nil when the key is new.
	Lookup(ctx context.Context, key string) (*Submission, error)
	// Claim stores a new pending submission; false when the key exists already.
	Claim(ctx context.Context, c Claim) (bool, error)
	// ClaimMany is Claim for many keys in one statement; it answers the keys it stored.
	ClaimMany(ctx context.Context, cs []Claim) ([]string, error)
	// TakeOver leases to the caller until leaseUntil a pending submission whose lease ran
	// out before now, and answers what it stored; ok is false when there is none such.
	TakeOver(ctx context.Context, key string, now, leaseUntil time.Time) (st Stored, ok bool, err error)
	// Reopen turns a declined submission back to pending, paid with pay under chargeKey and
	// leased until leaseUntil, unless pay is the payment already declined; ok is false then
	// (or when another request reopened it first).
	Reopen(ctx context.Context, key string, pay Payment, chargeKey string, now, leaseUntil time.Time) (st Stored, ok bool, err error)
	// RenewLease extends a lease still held (not given back, not run out at now).
	RenewLease(ctx context.Context, key string, now, leaseUntil time.Time) error
	// Release sets a pending submission's lease to end at until.
	Release(ctx context.Context, key string, until time.Time) error
	// Forget deletes a pending submission (nothing was charged).
	Forget(ctx context.Context, key string) error
	// Decline closes a pending submission as declined; false when it was not pending.
	Decline(ctx context.Context, key string, d *DeclinedError) (bool, error)
	// Refunded closes a pending submission whose charge was refunded.
	Refunded(ctx context.Context, key, chargeID, cause string) error
	// Abandon closes a pending submission nothing was charged for.
	Abandon(ctx context.Context, key string) error
	// ClaimStale leases up to limit pending submissions whose lease ran out before now.
	ClaimStale(ctx context.Context, now, leaseUntil time.Time, limit int) ([]StaleClaim, error)
	// LookupMany answers the submissions of those of keys that have one, by key (one
	// statement).
	LookupMany(ctx context.Context, keys []string) (map[string]*Submission, error)

	// Write is the order's transaction: it completes key's pending submission, draws o's
	// invoice number, writes o and its lines, redeems promotions and moves gift and account
	// balances (an ErrUnfulfillable when they no longer allow it), runs fulfil and enqueues
	// the events it answers, and commits. When key was not pending (finished elsewhere) it
	// writes nothing and answers that order's invoice id as done.
	Write(ctx context.Context, key string, o *Placed, fulfil WriteFunc) (done string, err error)
	// WriteMany is Write for orders that move no balances, all in one transaction: fulfil
	// gets the indexes of the orders whose keys it completed; done answers the invoice of
	// each key finished elsewhere.
	WriteMany(ctx context.Context, keys []string, os []*Placed, fulfil BatchWriteFunc) (done map[string]string, err error)
	// Load answers a written order with its lines, or nil when there is none.
	Load(ctx context.Context, invoiceID string) (*Placed, error)
	// SaveContact keeps the billing contact of an order's invoice; false when there is no such order.
	SaveContact(ctx context.Context, invoiceID string, c Contact) (bool, error)
}

// WriteFunc runs inside the order's transaction once the order is numbered and written,
// and answers the events to enqueue with it.
type WriteFunc func(ctx context.Context, tx Tx) ([]kafka.Event, error)

// BatchWriteFunc is WriteFunc for the orders (by index) a WriteMany wrote.
type BatchWriteFunc func(ctx context.Context, tx Tx, written []int) ([]kafka.Event, error)

// Tx is the order's transaction as a Fulfiller writes a kind's own state in it.
type Tx interface {
	// WriteSubscriptions inserts or updates the subscriptions of subscription orders (one
	// round trip) and sets each one's Version and AutoRenew as stored.
	WriteSubscriptions(ctx context.Context, subs []*SubscriptionWrite) error
	// IssueGifts writes issued gift certificates.
	IssueGifts(ctx context.Context, certs []gift.Certificate) error
}

// SubscriptionWrite is the subscription an order leaves, as written.
type SubscriptionWrite struct {
	domain.Subscription
	IsEU               bool
	InvoiceID          string
	PaymentMethodToken string
	// CardExpiresAt is the paying card's first day of no use (nil: unknown).
	CardExpiresAt *time.Time
}

// Claim is a new submission: its key, the hash of the request that made it, the stored
// purchase and payment, the payments key to charge with and the lease's end.
type Claim struct {
	Key, RequestHash, Kind string
	Stored                 Stored
	ChargeKey              string
	LeaseUntil             time.Time
}

// Stored is what a submission keeps to finish its order after a crash.
type Stored struct {
	Purchase Purchase `json:"purchase"`
	Payment  Payment  `json:"payment"`
	// ChargeKey is the payments key the submission charges with (not in the JSON: a column).
	ChargeKey string `json:"-"`
}

// StaleClaim is a submission the reconciler leased: its key and what it stored.
type StaleClaim struct {
	Key    string
	Stored Stored
	// Err is set when what it stored cannot be read.
	Err error
}
