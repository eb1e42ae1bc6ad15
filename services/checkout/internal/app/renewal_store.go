package app

import (
	"context"
	"time"

	"github.com/hangar/hangar/internal/platform/kafka"
)

// RenewalStore is what the renewals keep in checkout's database (adapters.Renewals): the
// engine's work queue and the /account page's reads.
type RenewalStore interface {
	RenewalQueue
	RenewalHistory
}

// RenewalQueue is the renewal engine's part of the store: the renewals rows are the work
// queue (one row per subscription and term, claimed with a lease), plus the notices. Writes
// that belong together run in InTx's closure, one transaction.
type RenewalQueue interface {
	// InTx runs fn in one transaction, committed when fn answers nil. With lock, the
	// scheduler's advisory lock is taken first; when another replica holds it fn is not run
	// and locked is false.
	InTx(ctx context.Context, lock bool, fn func(tx RenewalTx) error) (locked bool, err error)
	// Due lists the card-paid terms ending before until, with auto-renew on or off, whose
	// renewal is not recorded yet or due by now (the dry run).
	Due(ctx context.Context, until, now time.Time) ([]DueTerm, error)
	// Skipped counts the due renewals ending before until that no claim can take now:
	// leased (on the database's clock), or whose retry is after now.
	Skipped(ctx context.Context, until, now time.Time) ([]Skipped, error)
	// Claim leases up to n renewals due by now (FOR UPDATE SKIP LOCKED), with their stored
	// method: the one lease a renewal has, on the database's clock.
	Claim(ctx context.Context, now time.Time, lease time.Duration, n int) ([]*RenewalJob, error)
	// KeepLeases renews the leases still held of the given terms.
	KeepLeases(ctx context.Context, jobs []*RenewalJob, lease time.Duration) error
	// Outage records an attempt met by an outage: the same attempt after next. Like
	// NextAttempt it writes nothing once j's claim was taken over (j.Fence is not the row's).
	Outage(ctx context.Context, j *RenewalJob, next time.Time, code, msg string) error
	// NextAttempt moves a due renewal to a fresh attempt (key) at next (zero: due as it
	// was, at once).
	NextAttempt(ctx context.Context, j *RenewalJob, next time.Time, code string) error
	// Finish records a due renewal's end (renewed, superseded, ending) and gives its lease
	// back; answers whether the row was due and still j's claim (each term is finished
	// once, by the claim that holds it).
	Finish(ctx context.Context, j *RenewalJob, status, invoiceID string) (bool, error)
	// FinishRenewed records many renewals renewed in one statement and answers those that
	// were still due under their claims' fences.
	FinishRenewed(ctx context.Context, done []Renewed) ([]Renewed, error)
	// OrderTotal answers the currency and total of an invoice's order.
	OrderTotal(ctx context.Context, invoiceID string) (string, int64, error)
}

// RenewalHistory is what the /account page reads of the renewals (AccountRenewals).
type RenewalHistory interface {
	// Status reads a subscription's renewal row for the /account page (nil: no subscription).
	Status(ctx context.Context, subscriptionID string) (*RenewalRow, error)
	// Invoices lists an account's (by id, else e-mail) invoices, newest first, at most 100.
	Invoices(ctx context.Context, accountID, email string) ([]InvoiceRow, error)
}

// RenewalTx is the renewal engine's writes inside one transaction of RenewalStore.InTx (or
// of a consumer's inbox transaction). Each step answers what it recorded so that the app
// builds the events, which Enqueue puts in the outbox of the same transaction.
type RenewalTx interface {
	// RecordDue records the auto-renewing terms ending before until (due at now).
	RecordDue(ctx context.Context, until, now time.Time) (int, error)
	// RecordEnding records up to limit terms with auto-renew off ending before until.
	RecordEnding(ctx context.Context, until, now time.Time, limit int) ([]EndingTerm, error)
	// EndTerms marks up to limit ended 'ending' terms ended.
	EndTerms(ctx context.Context, now time.Time, limit int) ([]EndedTerm, error)
	// RecordReminders records up to limit renewal reminders of terms ending in (from, to].
	RecordReminders(ctx context.Context, from, to time.Time, limit int) ([]string, error)
	// RecordCardNotices records up to limit card-expiring notices of terms ending in (from, to].
	RecordCardNotices(ctx context.Context, from, to time.Time, limit int) ([]EndingTerm, error)
	// Retry records a decline of j's attempt: the next attempt at next (first: the first
	// decline). LapseRenewal records the last one. Both answer false when j's attempt is no
	// longer the row's (recorded already) or j's claim was taken over (j.Fence is not the
	// row's): the holder records its own outcome.
	Retry(ctx context.Context, j *RenewalJob, next, first time.Time, code, msg string) (bool, error)
	LapseRenewal(ctx context.Context, j *RenewalJob, code, msg string) (bool, error)
	// LapseSubscription ends a subscription (not valid, lapsed at now) and answers its new
	// version.
	LapseSubscription(ctx context.Context, subscriptionID string, now time.Time) (int64, error)
	// UpdateMethods stores the accounts' card method on their card subscriptions (a
	// subscription already holding it is not written) and makes their renewals in the
	// grace period due at now; answers those renewals.
	UpdateMethods(ctx context.Context, ups []MethodUpdate, now time.Time) ([]GraceRetry, error)
	// Enqueue puts events in the transaction's outbox.
	Enqueue(ctx context.Context, evs ...kafka.Event) error
}

// RenewalJob is one claimed attempt at renewing a term.
type RenewalJob struct {
	SubID    string
	TermEnd  time.Time
	Declines int
	Attempt  int
	FirstAt  *time.Time
	// Token is the subscription's stored payments method, read with the claim.
	Token string
	// Fence is the renewal's fence as this claim took it: its lease is renewed only while
	// no other worker has taken the renewal over.
	Fence int64
}

// DueTerm is a row of the dry run.
type DueTerm struct {
	SubscriptionID string
	AutoRenew      bool
	TermEnd        time.Time
	Attempt        int
}

// EndingTerm is a subscription told about its term (auto-renew off, card expiring).
type EndingTerm struct {
	SubscriptionID, AccountID, Email, Currency string
	PriceInCents                               int64
	TermEnd                                    time.Time
}

// EndedTerm is a term marked ended; Lapse: the subscription still stands on it (not
// renewed meanwhile, auto-renew still off), so it lapses.
type EndedTerm struct {
	SubscriptionID string
	Lapse          bool
}

// Renewed is a renewal whose order was written.
type Renewed struct {
	Job       *RenewalJob
	InvoiceID string
	Currency  string
	Total     int64
}

// RenewalRow is a subscription's renewal as stored (the /account page's status).
type RenewalRow struct {
	Status, LastFailure string
	Declines            int
	NextAttempt         time.Time
	FirstDeclined       *time.Time
	CardExpires         *time.Time
	Lapsed              *time.Time
}

// MethodUpdate is an account's card method changed elsewhere (payments' update page, a card
// reader): the token renewals charge and the card's expiry.
type MethodUpdate struct {
	AccountID, Token string
	Expires          *time.Time
}

// GraceRetry is a renewal in its grace period that a method update made due now.
type GraceRetry struct {
	AccountID, SubscriptionID string
	TermEnd                   time.Time
	Attempt                   int32
}

// InvoiceRow is an invoice of the account's history as stored.
type InvoiceRow struct {
	InvoiceSummary
	EU, Business   bool
	BillingCountry string
}
