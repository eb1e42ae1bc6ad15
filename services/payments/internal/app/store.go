package app

import (
	"context"
	"errors"
	"time"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/payments/internal/domain"
)

// Store is payments' database as the use cases need it (adapters.Store implements it).
// Each call is one transaction: a call that takes a step runs it inside its transaction,
// with the row the step advances locked, and commits what the step answers (the row, its
// events through the outbox, the method it adopts) together, or nothing.
type Store interface {
	Charges
	Reconciler
	Vaults
	Methods
	Profiles
	Velocities
	ReaderSessions
}

// Charges are the idempotent charges and their refunds.
type Charges interface {
	// Charge runs the idempotent charge protocol: a fenced charge (c.Fence not 0) records
	// its fence as the key's newest in its transaction, and is refused (domain.ErrFenced,
	// nothing written) when a newer one is recorded; c is inserted unless its key holds a
	// charge (a different request under the key is domain.ErrKeyReused; one past pending
	// is answered as stored, replayed); a pending one is advanced by step with its row
	// locked. A stored method's charge (payer not nil) is recorded only when the payer may
	// pay with it, else ErrRefused and nothing written. The card-testing rule v (nil: none)
	// refuses a new charge past it (a *LimitedError, nothing written) and counts a decline
	// with the commit (v.Reached).
	Charge(ctx context.Context, c domain.Charge, payer *Payer, v *Velocity, step PendingStep) (out domain.Charge, replayed bool, err error)
	// UpdateCharge locks charge id and applies step (capture, void).
	UpdateCharge(ctx context.Context, id string, step ChargeStep) (domain.Charge, error)
	// Refund locks the charge; a refund already made under (charge, key) is answered as it
	// was (replayed), otherwise step refunds and the refund is stored with its events.
	Refund(ctx context.Context, chargeID, key string, step RefundStep) (r domain.Refund, c domain.Charge, replayed bool, err error)
	GetCharge(ctx context.Context, id string) (domain.Charge, error)
	// GetChargeByKey answers the charge of an idempotency key (NotFound: payments has none),
	// after recording fence (not 0) as the key's newest: it waits for a charge of the key in
	// flight, and refuses any charge under an older fence from then on.
	GetChargeByKey(ctx context.Context, key string, fence int64) (domain.Charge, error)
}

// ChargeStep advances a charge with its row locked and answers the events to publish with
// the change. It may call the processor.
type ChargeStep func(ctx context.Context, c *domain.Charge) ([]kafka.Event, error)

// PendingStep advances a pending charge with its key's row locked: it asks the processor
// and records the answer in c, and answers the events to publish and the method the charge
// vaulted that becomes the customer's (nil: none), both committed with the charge.
type PendingStep func(ctx context.Context, c *domain.Charge) ([]kafka.Event, *Adoption, error)

// RefundStep refunds a locked charge and answers the refund and its events.
type RefundStep func(ctx context.Context, c *domain.Charge) (domain.Refund, []kafka.Event, error)

// Reconciler settles the processor's transactions payments has no charge of (reconcile.go).
type Reconciler interface {
	// Resolve answers the charge of key, recording it from step's answer (the processor's
	// side) when payments has no row of it, with the key claimed as Charge claims it. Step
	// answering nil leaves nothing behind: NotFound. A sweep token (not 0) is checked
	// where the record is written, in its transaction: ErrSweepLost once it lost the lease.
	Resolve(ctx context.Context, id, key string, now time.Time, sweep int64, step ResolveStep) (domain.Charge, error)
	// ChargedTransactions answers which of the processor transaction ids have a charge.
	ChargedTransactions(ctx context.Context, txIDs []string) (map[string]bool, error)
	// The sweep's lease (one sweeper at a time, internal/platform/lease): TakeSweep takes
	// it when free, with a new fencing token; RenewSweep is its heartbeat; SweepHeld says
	// whether a token still holds it; EndSweep gives it up.
	TakeSweep(ctx context.Context, d time.Duration) (fence int64, ok bool, err error)
	RenewSweep(ctx context.Context, fence int64, d time.Duration) error
	SweepHeld(ctx context.Context, fence int64) (bool, error)
	EndSweep(ctx context.Context, fence int64) error
}

// ResolveStep asks the processor about a key that has no charge row, with the key claimed:
// the charge to record (nil: the processor holds nothing to record under the key), its
// events and the method it makes the customer's.
type ResolveStep func(ctx context.Context) (*domain.Charge, []kafka.Event, *Adoption, error)

// Vaults are the idempotent vaults without a charge (vault.go).
type Vaults interface {
	// Vault runs the idempotent vault protocol, as Charge does: a stored outcome is
	// answered as stored (replayed); otherwise step asks the processor, and the outcome and
	// the method on file it makes are committed together. An error of step leaves nothing.
	Vault(ctx context.Context, v domain.Vault, step VaultStep) (out domain.Vault, replayed bool, err error)
}

// VaultStep asks the processor for a pending vault and records its answer in v; on a
// vaulted method it answers how the method becomes the customer's (nil: it does not).
type VaultStep func(ctx context.Context, v *domain.Vault) (*Adoption, error)

// Methods are the vaulted methods' display data and owners (owner.go).
type Methods interface {
	// MayPay reports whether p may pay with its stored method.
	MayPay(ctx context.Context, p Payer) (bool, error)
	// StoredMethod answers a stored method by token, with its owner.
	StoredMethod(ctx context.Context, token string) (StoredMethod, error)
	// Method answers a stored method by token.
	Method(ctx context.Context, token string) (domain.MethodSummary, error)
	// PutMethod stores (or refreshes) a vaulted method's display data for a customer.
	PutMethod(ctx context.Context, customer string, m domain.MethodSummary, postal, country string, now time.Time) error
}

// Profiles are the billing profiles.
type Profiles interface {
	// BillingProfile answers an account's profile, or the default one when none is stored.
	BillingProfile(ctx context.Context, account string) (domain.BillingProfile, error)
	// PutBillingProfile stores a profile and, in the same transaction, events.
	PutBillingProfile(ctx context.Context, p domain.BillingProfile, events ...kafka.Event) error
}

// Velocities are the card-testing rule's shared counts of attempts that are not a charge
// (a charge's ride in its own statements: Charges.Charge).
type Velocities interface {
	// Velocity answers the refusal of v's attempt (a *LimitedError) or nil.
	Velocity(ctx context.Context, v *Velocity) error
	// RecordDecline counts a declined attempt and answers the subjects it brought to the
	// limit (nil: none).
	RecordDecline(ctx context.Context, v *Velocity) (*LimitedError, error)
}

// ReaderSessions are the card reader's sessions of sales mode (reader.go).
type ReaderSessions interface {
	// StartReaderSession cancels the reader's waiting sessions and stores r.
	StartReaderSession(ctx context.Context, r domain.ReaderSession) error
	ReaderSession(ctx context.Context, id string) (domain.ReaderSession, error)
	// WaitingReaderSession answers the reader's newest waiting session.
	WaitingReaderSession(ctx context.Context, reader string, now time.Time) (domain.ReaderSession, error)
	// FinishReaderSession records the outcome of a waiting session.
	FinishReaderSession(ctx context.Context, r domain.ReaderSession) error
}

// StoredMethod is a stored method with its owner (the customer it was vaulted for: an
// account id, or the e-mail a sales-mode reader vaulted it for) and billing details.
type StoredMethod struct {
	Owner           string
	Method          domain.MethodSummary
	Postal, Country string
}

// Payer is who asks a stored method (Token) to pay: it pays when its owner is one of
// Owners, or when ReaderBy (a credit-card admin) is set and that admin's card reader
// vaulted it for Email since Since (sales mode). Caller is the session's account, for
// the log of a refusal.
type Payer struct {
	Token           string
	Owners          []string
	ReaderBy, Email string
	Since           time.Time
	Caller          string
}

// ErrRefused: the payer may not pay with the stored method (or there is no such method).
var ErrRefused = errors.New("stored payment method refused")

// Adoption is a method vaulted for a customer: its display data is stored, and it becomes
// the customer's method on file (billing profile) when MakeDefault or when none is on
// file — never for a customer whose payment method is locked (quarterly check payers:
// sales bills them). Event announces a changed profile (payment-method-updated); it is
// built before the write, so its profile's Period is not known (the event does not carry it).
// Event nil announces nothing: the method came with checkout's order, which writes it on
// its subscription itself.
type Adoption struct {
	Customer        string
	Method          domain.MethodSummary
	Postal, Country string
	MakeDefault     bool
	Now             time.Time
	Event           func(domain.BillingProfile, *domain.MethodSummary) (kafka.Event, error)
}
