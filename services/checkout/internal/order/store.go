package order

import (
	"context"
	"time"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/gift"
)

// The pipeline's repository is split by the path that calls it: Submissions for one order
// (Place, Resume), BatchSubmissions for PlaceBatch, StaleSubmissions for Reconcile and
// Invoices for the receipt. Each method owns its statement or transaction;
// internal/adapters implements them all on PostgreSQL (adapters.OrderStore). Errors are
// errs.Unavailable unless said otherwise.

// Submissions keeps one idempotency key's submission from its claim to its close, and
// writes its order.
type Submissions interface {
	// Lookup answers the submission of a key, or nil when the key is new.
	Lookup(ctx context.Context, key string) (*Submission, error)
	// Claim stores a new pending submission, its fence FirstFence, leased for c.Lease on
	// the database's clock; false when the key exists already.
	Claim(ctx context.Context, c Claim) (bool, error)
	// TakeOver leases to the caller for lease a pending submission whose lease ran out (on
	// the database's clock), moving its fence on, and answers what it stored with the new
	// fence; ok is false when there is none such.
	TakeOver(ctx context.Context, key string, lease time.Duration) (st Stored, ok bool, err error)
	// Reopen turns a declined submission back to pending, paid with pay under chargeKey and
	// leased for lease (its fence moved on), unless pay is the payment already declined; ok
	// is false then (or when another request reopened it first).
	Reopen(ctx context.Context, key string, pay Payment, chargeKey string, lease time.Duration) (st Stored, ok bool, err error)
	// RenewLeases extends for lease the leases still held (pending, not run out, the fence
	// the holder got), in one statement.
	RenewLeases(ctx context.Context, held []Held, lease time.Duration) error
	// Release ends at once the lease of a pending submission held under h.
	Release(ctx context.Context, h Held) error
	// Forget deletes a pending submission held under h (nothing was charged).
	Forget(ctx context.Context, h Held) error
	// Decline closes a pending submission held under h as declined; false when it was not
	// (no longer pending, or taken over).
	Decline(ctx context.Context, h Held, d *DeclinedError) (bool, error)
	// Refunded closes a pending submission held under h whose charge was refunded.
	Refunded(ctx context.Context, h Held, chargeID, cause string) error
	// Write is the order's transaction: it completes the pending submission held under h
	// (the fence checked by the statement that closes it), draws o's invoice number, writes
	// o and its lines, redeems promotions and moves gift and account balances (an
	// ErrUnfulfillable when they no longer allow it), runs fulfil and enqueues the events
	// it answers, and commits. When the submission was not pending under h's fence
	// (finished elsewhere, closed by the reconciler, taken over) it writes nothing and
	// answers the submission as it is (done).
	Write(ctx context.Context, h Held, o *Placed, fulfil WriteFunc) (done *Submission, err error)
}

// BatchSubmissions claims, looks up and writes many keys at once (PlaceBatch).
type BatchSubmissions interface {
	// ClaimMany is Claim for many keys in one statement; it answers the keys it stored.
	ClaimMany(ctx context.Context, cs []Claim) ([]string, error)
	// LookupMany answers the submissions of those of keys that have one, by key (one
	// statement).
	LookupMany(ctx context.Context, keys []string) (map[string]*Submission, error)
	// WriteMany is Write for orders that move no balances, all in one transaction: fulfil
	// gets the indexes of the orders whose submissions it completed; done answers the
	// others' submissions as they are, by key.
	WriteMany(ctx context.Context, held []Held, os []*Placed, fulfil BatchWriteFunc) (done map[string]*Submission, err error)
}

// StaleSubmissions finds the submissions whose request died (Reconcile).
type StaleSubmissions interface {
	// ClaimStale leases for lease up to limit pending submissions whose lease ran out (on
	// the database's clock), moving their fences on.
	ClaimStale(ctx context.Context, lease time.Duration, limit int) ([]StaleClaim, error)
	// Abandon closes a pending submission held under h that nothing was charged for.
	Abandon(ctx context.Context, h Held) error
}

// Invoices reads written orders and keeps their billing contacts (the receipt).
type Invoices interface {
	// Load answers a written order with its lines, or nil when there is none.
	Load(ctx context.Context, invoiceID string) (*Placed, error)
	// SaveContact keeps the billing contact of an order's invoice, under the order's row
	// lock: the first one is the invoice's; a different one later issues a corrected copy
	// (answered), the same one again changes nothing (the latest copy answered, nil if
	// none). found is false when there is no such order.
	SaveContact(ctx context.Context, invoiceID string, c Contact) (found bool, copy *Correction, err error)
}

// Store is all of the pipeline's repository: the submissions (one per idempotency key) and
// the orders.
type Store interface {
	Submissions
	BatchSubmissions
	StaleSubmissions
	Invoices
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
// purchase and payment, the payments key to charge with and the lease's length.
type Claim struct {
	Key, RequestHash, Kind string
	Stored                 Stored
	ChargeKey              string
	Lease                  time.Duration
}

// FirstFence is the fence of a newly claimed submission; each takeover moves it on.
const FirstFence = 1

// Held is a submission as its holder holds it: the key and the fence it claimed it with.
type Held struct {
	Key   string
	Fence int64
}

// Stored is what a submission keeps to finish its order after a crash.
type Stored struct {
	Purchase Purchase `json:"purchase"`
	Payment  Payment  `json:"payment"`
	// ChargeKey is the payments key the submission charges with (not in the JSON: a column).
	ChargeKey string `json:"-"`
	// Fence is the submission's fence as this claim took it (a column).
	Fence int64 `json:"-"`
}

// StaleClaim is a submission the reconciler leased: its key and what it stored.
type StaleClaim struct {
	Key    string
	Stored Stored
	// Err is set when what it stored cannot be read.
	Err error
}
