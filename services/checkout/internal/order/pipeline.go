package order

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/lease"
)

// Pipeline places orders. It is safe for concurrent use.
type Pipeline struct {
	// Each path reaches the store through the interface of what it calls.
	subs       Submissions
	batch      BatchSubmissions
	stale      StaleSubmissions
	invoices   Invoices
	payments   Payments
	fulfillers map[string]Fulfiller
	log        *slog.Logger
	now        func() time.Time
	lease      time.Duration
	heartbeat  time.Duration
	onBeat     func(key string)
	// afterCharge, when set, runs between the charge and the write: tests inject a crash.
	afterCharge func(key string) error
	metrics     *Metrics
	receiptLink func(invoiceID string) string
}

// LinkReceipts sets how an order's receipt link (the order-completed event's, which the
// receipt e-mail carries) is made: the signed link that opens it in any browser. Without
// it the link is the success page's, which opens only where the buyer's cookie or session
// is. Set once, before serving.
func (p *Pipeline) LinkReceipts(f func(invoiceID string) string) { p.receiptLink = f }

func (p *Pipeline) receiptURL(invoiceID string) string {
	if p.receiptLink != nil {
		return p.receiptLink(invoiceID)
	}
	return ReceiptURL(invoiceID)
}

// Options configure a Pipeline.
type Options struct {
	Now func() time.Time
	// Lease is how long a claimed submission belongs to the request that claimed it without
	// a sign of life; the request renews it (Heartbeat) while it runs, so when it dies the
	// reconciler or a retry of the key takes over within the lease. Default DefaultLease.
	Lease time.Duration
	// Heartbeat is how often a running request renews its lease. Default a third of Lease.
	Heartbeat time.Duration
	// OnHeartbeat, when set, runs after each renewal (tests).
	OnHeartbeat func(key string)
	// AfterCharge runs between the charge and the write (tests: crash injection).
	AfterCharge func(key string) error
	// Metrics, when set, counts completed orders, revenue, declines and gift certificates.
	Metrics *Metrics
}

// NewPipeline builds a pipeline keeping its submissions and orders in store (one value
// serving every path's interface).
func NewPipeline(store Store, payments Payments, log *slog.Logger, o Options) *Pipeline {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Lease == 0 {
		o.Lease = DefaultLease
	}
	if o.Heartbeat == 0 && o.Lease >= 3*time.Millisecond {
		o.Heartbeat = o.Lease / 3 // shorter leases (tests taking keys over at once) are not renewed
	}
	return &Pipeline{subs: store, batch: store, stale: store, invoices: store, payments: payments, fulfillers: map[string]Fulfiller{}, log: log,
		now: o.Now, lease: o.Lease, heartbeat: o.Heartbeat, onBeat: o.OnHeartbeat, afterCharge: o.AfterCharge, metrics: o.Metrics}
}

// DefaultLease is how long a submit keeps its key without renewing it: long enough for a
// few missed renewals (a busy database), short enough that a buyer whose request died with
// its process completes the order with a retry within seconds (it was 2 minutes, renewed
// never: the buyer waited out the whole lease with the card charged; issue 30).
const DefaultLease = 10 * time.Second

// Register installs the Fulfiller of a kind of order (once, before serving).
func (p *Pipeline) Register(kind string, f Fulfiller) { p.fulfillers[kind] = f }

// Submission is the state of an idempotency key.
type Submission struct {
	Key, RequestHash, Kind, Status string
	InvoiceID                      string
	FailureCode, FailureMessage    string
}

// Lookup answers the submission of a key, or nil when the key is new. A use case looks a
// key up once, before it validates, and hands what it found to Resume.
func (p *Pipeline) Lookup(ctx context.Context, key string) (*Submission, error) {
	return p.subs.Lookup(ctx, key)
}

// ChargeKey is the payments idempotency key derived from a submit's key: stable, so every
// retry of the submit (and the reconciler) reaches the same charge.
func ChargeKey(kind, key string) string {
	sum := sha256.Sum256([]byte(key))
	return "checkout:" + kind + ":" + hex.EncodeToString(sum[:16])
}

// Place pays and writes a purchase once per key. requestHash identifies the request the
// key was first used with: the same key with another hash is ErrKeyReused. A key already
// completed answers its order (Replayed); a declined one its DeclinedError; a pending one
// whose lease ran out is taken over with the purchase first stored (not pu). A caller that
// has looked the key up already hands the submission to Resume instead. Place does not
// share concurrent calls of one key: the use case's submit does (app.Service.placeOnce), and
// across calls and replicas the key's row decides.
func (p *Pipeline) Place(ctx context.Context, key, requestHash string, pu *Purchase, pay Payment) (*Placed, error) {
	if _, ok := p.fulfillers[pu.Kind]; !ok {
		return nil, errs.E(errs.Internal, "no fulfiller for %s orders", pu.Kind)
	}
	ctx = context.WithoutCancel(ctx)
	chargeKey := ChargeKey(pu.Kind, key)
	claimed, err := p.subs.Claim(ctx, Claim{Key: key, RequestHash: requestHash, Kind: pu.Kind, Stored: Stored{Purchase: *pu, Payment: pay},
		ChargeKey: chargeKey, Lease: p.lease})
	if err != nil {
		return nil, err
	}
	if !claimed {
		// Claimed meanwhile (the caller's look-up found nothing, or there was none).
		s, err := p.subs.Lookup(ctx, key)
		if err != nil {
			return nil, err
		}
		if s == nil {
			return nil, errs.E(errs.Unavailable, "order state changed; try again")
		}
		return p.Resume(ctx, s, requestHash, pay)
	}
	h := Held{Key: key, Fence: FirstFence}
	defer p.keepLeases(h)()
	return p.payAndWrite(ctx, h, chargeKey, pu, pay)
}

// Resume answers a key seen before, from its submission as looked up (read once per
// submit): the finished order (Replayed), the decline, or the order of a pending
// submission whose lease this call takes over (or of a declined one pay attempts again),
// paid and written with the purchase first stored.
func (p *Pipeline) Resume(ctx context.Context, s *Submission, requestHash string, pay Payment) (*Placed, error) {
	if _, ok := p.fulfillers[s.Kind]; !ok {
		return nil, errs.E(errs.Internal, "no fulfiller for %s orders", s.Kind)
	}
	ctx = context.WithoutCancel(ctx)
	st, err := p.claimExisting(ctx, s, requestHash, pay)
	var replay replayErr
	if errors.As(err, &replay) {
		return p.replayed(ctx, replay.invoiceID)
	}
	if err != nil {
		return nil, err
	}
	h := Held{Key: s.Key, Fence: st.Fence}
	defer p.keepLeases(h)()
	return p.payAndWrite(ctx, h, st.ChargeKey, &st.Purchase, st.Payment)
}

// replayed answers the order an earlier request with the key wrote.
func (p *Pipeline) replayed(ctx context.Context, invoiceID string) (*Placed, error) {
	out, err := p.Load(ctx, invoiceID)
	if out != nil {
		out.Replayed = true
	}
	return out, err
}

// keepLeases renews the leases of the submissions this request (or batch) works on, under
// the fences it holds them with, and answers the function that stops renewing. A request
// that dies stops renewing with it, so the key is taken over a lease after its last sign
// of life, not after a fixed time long enough for the slowest live request; one paused
// past its lease finds its fence moved on and renews nothing.
func (p *Pipeline) keepLeases(held ...Held) (stop func()) {
	if len(held) == 0 {
		return func() {}
	}
	return lease.Keeper{Every: p.heartbeat, Timeout: p.lease, Log: p.log, What: "submissions",
		Renew: func(ctx context.Context) error { return p.subs.RenewLeases(ctx, held, p.lease) },
		OnBeat: func() {
			if p.onBeat != nil {
				for _, h := range held {
					p.onBeat(h.Key)
				}
			}
		}}.Keep()
}

// claimExisting handles a key seen before: the finished answer, or the stored purchase and
// charge key of a pending submission whose lease this call has taken over, or of a declined
// one that pay attempts again.
func (p *Pipeline) claimExisting(ctx context.Context, s *Submission, requestHash string, pay Payment) (*Stored, error) {
	if s.RequestHash != requestHash {
		return nil, ErrKeyReused
	}
	switch s.Status {
	case "completed":
		return nil, replayErr{s.InvoiceID}
	case "declined":
		st, err := p.reattempt(ctx, s.Key, s.Kind, pay)
		if st == nil && err == nil {
			return nil, &DeclinedError{Code: s.FailureCode, Message: s.FailureMessage}
		}
		return st, err
	case "abandoned":
		return nil, ErrAttemptClosed
	case "refunded":
		return nil, ErrAttemptRefunded
	}
	st, ok, err := p.subs.TakeOver(ctx, s.Key, p.lease)
	if err != nil {
		return nil, err
	}
	if !ok {
		// Held by another, or settled since s was read (the reconciler completed, closed
		// or refunded it): answer the key as it is now, not "being processed" for a key
		// that will never be processed again.
		now, err := p.subs.Lookup(ctx, s.Key)
		switch {
		case err != nil:
			return nil, err
		case now == nil:
			return nil, ErrAttemptClosed
		case now.Status == "pending":
			return nil, ErrInProgress
		}
		return p.claimExisting(ctx, now, requestHash, pay)
	}
	return &st, nil
}

// reattempt reopens a declined key for another payment (another card, or the same card
// tokenised again), like a payment intent that returns to "requires payment method" after
// a decline: a decline is not the order's outcome, nothing was charged, and the buyer's next
// click keeps the key. The new attempt gets a charge key of its own (payments replays the
// first attempt's decline for the first key). The same payment again (nil, nil) replays
// the decline. The order is the one first stored; only its payment changes.
func (p *Pipeline) reattempt(ctx context.Context, key, kind string, pay Payment) (*Stored, error) {
	if pay == (Payment{}) {
		return nil, nil
	}
	st, ok, err := p.subs.Reopen(ctx, key, pay, AttemptChargeKey(kind, key, pay), p.lease)
	if err != nil {
		return nil, err
	}
	if !ok {
		// The same payment again (its attempt was the one declined), or a concurrent request
		// reopened the key first.
		s, err := p.subs.Lookup(ctx, key)
		if err != nil {
			return nil, err
		}
		if s != nil && s.Status == "pending" {
			return nil, ErrInProgress
		}
		return nil, nil
	}
	return &st, nil
}

// AttemptChargeKey is the charge key of a later payment attempt of a key: stable for the
// payment (concurrent retries of the attempt reach one charge), different for another.
func AttemptChargeKey(kind, key string, pay Payment) string {
	sum := sha256.Sum256([]byte(pay.Nonce + "\x00" + pay.Token))
	return ChargeKey(kind, key) + ":" + hex.EncodeToString(sum[:8])
}

// replayErr carries a completed key's invoice out of claimExisting.
type replayErr struct{ invoiceID string }

func (replayErr) Error() string { return "replay" }

func (p *Pipeline) payAndWrite(ctx context.Context, h Held, chargeKey string, pu *Purchase, pay Payment) (*Placed, error) {
	key := h.Key
	ch, err := p.charge(ctx, h, chargeKey, pu, pay)
	if IsFenced(err) {
		// Taken over while this request was slow (the reconciler closed the key, or a retry
		// holds it): payments refused to charge under the old fence. The key's state is the
		// answer.
		return p.lost(ctx, key)
	}
	if err != nil {
		if _, declined := AsDeclined(err); !declined && ch.Status != "PENDING" {
			// Payments failed or could not be reached (restarting, circuit open): this request
			// is over, so it gives up its lease and the buyer's retry with the key takes it over
			// and charges again with the same charge key (payments answers a charge that did
			// happen instead of making a second), rather than being told 'being processed' until
			// the lease runs out and then 'not completed' by the reconciler. (Should the
			// reconciler run first, it finds no charge and closes the key: the buyer is told
			// nothing was charged. Reviving abandoned keys would let a renewal attempt be paid
			// after the renewer moved on to the next attempt's key.)
			p.release(h)
		}
		return nil, err
	}
	if p.afterCharge != nil {
		if err := p.afterCharge(key); err != nil {
			return nil, errs.Wrap(errs.Unavailable, err, "Your order is being completed. Please check your receipt in a moment.")
		}
	}
	placed, err := p.write(ctx, h, pu, ch)
	if errors.Is(err, ErrUnfulfillable) {
		return nil, p.refund(ctx, h, ch, err)
	}
	return placed, err
}

// lost answers a request whose claim was taken over: the order written by whoever took
// it, "being processed" while another holds it, or "not completed" once it was closed
// without an order (nothing was charged under this request's fence: payments refuses it).
func (p *Pipeline) lost(ctx context.Context, key string) (*Placed, error) {
	s, err := p.subs.Lookup(ctx, key)
	if err != nil {
		return nil, err
	}
	return p.answerOf(ctx, s)
}

// answerOf answers a submission this request no longer holds, as it is.
func (p *Pipeline) answerOf(ctx context.Context, s *Submission) (*Placed, error) {
	switch {
	case s == nil:
		// Forgotten (a refused method): nothing was charged or kept.
		return nil, ErrAttemptClosed
	case s.Status == "completed" && s.InvoiceID != "":
		return p.replayed(ctx, s.InvoiceID)
	case s.Status == "declined":
		return nil, &DeclinedError{Code: s.FailureCode, Message: s.FailureMessage}
	case s.Status == "pending":
		return nil, ErrInProgress
	}
	return nil, ErrAttemptClosed
}

// charge charges the total; a zero total is not charged, but its nonce is vaulted (the
// renewal charges the stored card: the nonce is single-use). A decline, of the charge or
// of the vault's verification, is recorded and answered.
func (p *Pipeline) charge(ctx context.Context, h Held, chargeKey string, pu *Purchase, pay Payment) (Charge, error) {
	if pu.TotalInCents == 0 {
		return p.vault(ctx, h, chargeKey, pu, pay)
	}
	ch, err := p.payments.Charge(ctx, ChargeRequest{Key: chargeKey, Fence: h.Fence, Amount: pu.TotalInCents, Currency: pu.Currency,
		Payment: pay, CustomerID: pu.AccountID, CustomerEmail: pu.Email, Reference: h.Key, MakeDefault: pu.Kind == KindSubscription})
	if err != nil {
		if d, ok := AsDeclined(err); ok {
			return Charge{}, p.decline(ctx, h, d)
		}
		if IsRefused(err) || IsThrottled(err) {
			return Charge{}, p.refused(ctx, h, err)
		}
		return Charge{}, err
	}
	if ch.Status == "FAILED" {
		return ch, p.decline(ctx, h, &DeclinedError{Code: ch.FailureCode, Message: ch.FailureMessage})
	}
	if !ch.Paid() {
		// PENDING: the processor's answer is unknown. The reconciler asks again later.
		return ch, errs.E(errs.Unavailable, "The payment processor did not answer. Please check your receipt in a moment before trying again.")
	}
	return ch, nil
}

// vault stores a zero total's nonce for the account under the submission's charge key
// (payments keeps vaults and charges apart; the key is the one the reconciler knows). A
// stored method is vaulted too: payments checks that it may pay for the account, as a
// charge's, and the renewal then charges it. The card becomes the account's card on file
// for a subscription order, whose renewal charges it.
func (p *Pipeline) vault(ctx context.Context, h Held, chargeKey string, pu *Purchase, pay Payment) (Charge, error) {
	if pay.Nonce == "" && pay.Token == "" {
		return Charge{}, nil
	}
	ch, err := p.payments.Vault(ctx, VaultRequest{Key: chargeKey, Payment: pay, CustomerID: pu.AccountID, CustomerEmail: pu.Email,
		Reference: h.Key, MakeDefault: pu.Kind == KindSubscription})
	if d, ok := AsDeclined(err); ok {
		return Charge{}, p.decline(ctx, h, d)
	}
	if IsRefused(err) || IsThrottled(err) {
		return Charge{}, p.refused(ctx, h, err)
	}
	return ch, err
}

// refused forgets the claim of a submission whose stored method payments refused: nothing
// was charged, so nothing of it is kept (the refusal is logged where the caller is known),
// and the key answers like a new one.
func (p *Pipeline) refused(ctx context.Context, h Held, cause error) error {
	if err := p.subs.Forget(ctx, h); err != nil {
		p.log.ErrorContext(ctx, "forget refused submission", "err", err.Error())
	}
	return cause
}

func (p *Pipeline) decline(ctx context.Context, h Held, d *DeclinedError) error {
	closed, err := p.subs.Decline(ctx, h, d)
	if err != nil {
		p.log.ErrorContext(ctx, "record declined submission", "err", err.Error())
	} else if closed {
		p.metrics.declined(d) // once per key, however often the decline is answered
	}
	return d
}

// release ends this request's lease of a pending submission (still held under h).
func (p *Pipeline) release(h Held) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.subs.Release(ctx, h); err != nil {
		p.log.WarnContext(ctx, "release submission lease", "key", h.Key, "err", err.Error())
	}
}

// refund gives the money back for an order that could not be written, and closes the key.
func (p *Pipeline) refund(ctx context.Context, h Held, ch Charge, cause error) error {
	key := h.Key
	if ch.ID != "" {
		if err := p.payments.Refund(ctx, ch.ID, "refund:"+key, "order could not be fulfilled"); err != nil {
			return errs.Wrap(errs.Unavailable, err, "Your order could not be completed; the refund is pending. Please contact support.")
		}
	}
	if err := p.subs.Refunded(ctx, h, ch.ID, cause.Error()); err != nil {
		return err
	}
	p.log.WarnContext(ctx, "order refunded: could not be fulfilled", "key", key, "charge", ch.ID, "cause", cause.Error())
	// The key is closed: the answer carries ATTEMPT_CLOSED, as a retry of the key does, so
	// the page starts a new attempt instead of asking again with this key.
	var u unfulfillable
	isU := errors.As(cause, &u)
	if ch.ID == "" {
		// Nothing was captured (a zero total): there is no refund to speak of.
		if isU {
			return attemptClosed(u.msg + " You were not charged. Please review your order.")
		}
		return attemptClosed("This order could not be completed and you were not charged. Please review your order.")
	}
	if isU {
		return attemptClosed(u.msg + " " + msgRefunded)
	}
	return attemptClosed(msgRefunded)
}

// attemptClosed is ErrAttemptClosed with the message of how this attempt ended.
func attemptClosed(msg string) error {
	return &errs.Error{Code: errs.Conflict, Reason: ErrAttemptClosed.Reason, Message: msg}
}

// msgRefunded answers an order whose payment was captured and then refunded: the buyer was
// charged and the money returned, never "not charged" (issue 42).
const msgRefunded = "This order could not be completed; your payment was refunded in full. Please review your order."

// unfulfillable is ErrUnfulfillable with the reason for the buyer.
type unfulfillable struct{ msg string }

func (u unfulfillable) Error() string { return u.msg }
func (u unfulfillable) Unwrap() error { return ErrUnfulfillable }

// Unfulfillable answers an ErrUnfulfillable with a message for the buyer (Fulfillers use it).
func Unfulfillable(msg string) error { return unfulfillable{msg} }

// newInvoiceID answers a fresh invoice id.
func newInvoiceID() string { return uuid.NewString() }
