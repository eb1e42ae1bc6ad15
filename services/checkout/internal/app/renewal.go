package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/lease"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/domain/promotion"
	"github.com/hangar/hangar/services/checkout/internal/order"
	"github.com/hangar/hangar/services/checkout/internal/subscription"
)

// DefaultRetrySchedule is when a declined renewal is tried again, counted from the first
// decline (Stripe's and Recurly's schedules are of this shape). After the last retry the
// subscription lapses.
var DefaultRetrySchedule = []time.Duration{24 * time.Hour, 3 * 24 * time.Hour, 5 * 24 * time.Hour, 7 * 24 * time.Hour}

// RenewalOptions configure the renewal pass.
type RenewalOptions struct {
	// Window: subscriptions whose term ends before now + Window are renewed by a pass.
	Window time.Duration
	// Retries after a decline, from the first decline (default DefaultRetrySchedule).
	Retries []time.Duration
	// Lease: how long a claimed renewal belongs to the worker that claimed it without a
	// sign of life (default 15 s). The worker renews it every Heartbeat while it works on
	// the renewal, so a worker that dies leaves it to another within a lease, and a slow
	// live one keeps it. It should exceed the order pipeline's lease (also renewed while its
	// request lives), so the attempt's key is free again when another worker takes over.
	// Leases run on the database's clock, not the pass's: a rerun "as of" the same time
	// takes over a dead pass's renewals.
	Lease time.Duration
	// Heartbeat: how often a worker renews the leases of the renewals it works on (default
	// a third of Lease).
	Heartbeat time.Duration
	// OnHeartbeat, when set, runs after each renewal of the leases (tests).
	OnHeartbeat func()
	// OutageRetry: how long after a processor outage or timeout (not a decline) the same
	// attempt is tried again (default 10 minutes).
	OutageRetry time.Duration
	// ReminderBefore: annual subscriptions get a reminder with the amount and date this
	// long before they renew (default 30 days; 0 keeps the default, negative disables).
	ReminderBefore time.Duration
	// CardNoticeBefore: a stored card expiring before the renewal gets a notice this long
	// before it (default 30 days; negative disables).
	CardNoticeBefore time.Duration
	// Reader, when set, reads each batch's subscriptions and accounts in one statement each
	// (else one by one, through the service's store).
	Reader RenewalReader
	// Batch: rows per scheduler transaction (default 1000).
	Batch int
	// ClaimBatch: renewals a worker (of the direct pass or of RunWorkers) claims, charges
	// and writes together (default 100): one claim, one read of their subscriptions and
	// accounts, one order transaction (order.PlaceBatch); the charges run concurrently.
	ClaimBatch int
	// ActionURL is where the dunning e-mails send the subscriber (payment-method update).
	ActionURL string
	// Metrics, when set, counts the pass's outcomes.
	Metrics *RenewalMetrics
}

// Renewer runs the renewal pass of issue 17 against checkout's database, through the
// order pipeline (charge with a stored method, then one transaction writing the order,
// invoice lines, the extended subscription and the order-completed and
// subscription-changed events).
type Renewer struct {
	svc     *Service
	store   RenewalQueue
	log     *slog.Logger
	o       RenewalOptions
	m       *RenewalMetrics
	account *AccountRenewals
	due     wakeup // fired when this process made renewals due now (RunWorkers)
}

// wakeup wakes every renewal worker waiting for due rows at once.
type wakeup struct {
	mu sync.Mutex
	ch chan struct{}
}

// wait answers a channel that closes at the next fire.
func (w *wakeup) wait() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch == nil {
		w.ch = make(chan struct{})
	}
	return w.ch
}

func (w *wakeup) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch != nil {
		close(w.ch)
		w.ch = nil
	}
}

// NewRenewer builds a Renewer; svc must have been built with the order pipeline and its
// clock (Options.Now) is the pass's clock.
func NewRenewer(svc *Service, store RenewalStore, log *slog.Logger, o RenewalOptions) *Renewer {
	if o.Retries == nil {
		o.Retries = DefaultRetrySchedule
	}
	if o.Lease == 0 {
		o.Lease = DefaultRenewalLease
	}
	if o.Heartbeat == 0 {
		o.Heartbeat = o.Lease / 3
	}
	if o.OutageRetry == 0 {
		o.OutageRetry = 10 * time.Minute
	}
	if o.ReminderBefore == 0 {
		o.ReminderBefore = 30 * 24 * time.Hour
	}
	if o.CardNoticeBefore == 0 {
		o.CardNoticeBefore = 30 * 24 * time.Hour
	}
	if o.Batch <= 0 {
		o.Batch = 1000
	}
	if o.ClaimBatch <= 0 {
		o.ClaimBatch = 100
	}
	if o.ActionURL == "" {
		o.ActionURL = "/account"
	}
	return &Renewer{svc: svc, store: store, log: log, o: o, m: o.Metrics,
		account: &AccountRenewals{svc: svc, store: store, retries: o.Retries}}
}

// Account is the /account page's view of the renewals this Renewer makes.
func (r *Renewer) Account() *AccountRenewals { return r.account }

// DefaultRenewalLease is a renewal's lease without a sign of life: longer than the order
// pipeline's (order.DefaultLease), so a dead worker's attempt key is free when its
// renewal is taken over.
const DefaultRenewalLease = 15 * time.Second

// RenewalResult counts what one pass did.
type RenewalResult struct {
	Due, Renewed, Declined, Lapsed, Ending, Failed, Outages int
	// Skipped is what Run left due in its window, by reason (a rerun of a pass that
	// renews nothing says why).
	Skipped []Skipped
}

// Skipped is a count of due renewals a pass did not attempt, and why.
type Skipped struct {
	// Reason: SkipLeased (another worker holds them: a live pass, or a dead one's until
	// its lease runs out) or SkipRetryLater (a decline's or an outage's retry is not due).
	Reason string
	Count  int
	// Next is when the first of them may be attempted: the earliest lease end (on the
	// database's clock) or retry time.
	Next time.Time
}

// Reasons of Skipped.
const (
	SkipLeased     = "leased by another worker"
	SkipRetryLater = "retry not due yet"
)

func (r *RenewalResult) add(o RenewalResult) {
	r.Due += o.Due
	r.Renewed += o.Renewed
	r.Declined += o.Declined
	r.Lapsed += o.Lapsed
	r.Ending += o.Ending
	r.Failed += o.Failed
	r.Outages += o.Outages
}

// DueRenewal is a subscription a pass would renew, with the renewal's price.
type DueRenewal struct {
	SubscriptionID string
	AccountID      string
	Email          string
	TermEnd        time.Time
	PlanCode       string
	Currency       string
	TotalInCents   int64
	Attempt        int
	AutoRenew      bool
}

// DryRun lists the renewals a pass as of now would attempt, priced, without writing
// anything (subscriptions with auto-renew off are listed with AutoRenew false, nothing due).
func (r *Renewer) DryRun(ctx context.Context) ([]DueRenewal, error) {
	now := r.svc.now()
	list, err := r.store.Due(ctx, now.Add(r.o.Window), now)
	if err != nil {
		return nil, err
	}
	out := make([]DueRenewal, 0, len(list))
	for _, d := range list {
		pv, err := r.svc.RenewalPrice(ctx, d.SubscriptionID)
		if err != nil {
			return nil, fmt.Errorf("price renewal of %s: %w", d.SubscriptionID, err)
		}
		x := DueRenewal{SubscriptionID: d.SubscriptionID, TermEnd: d.TermEnd, Currency: pv.Invoice.Currency, TotalInCents: pv.Invoice.TotalInCents,
			Attempt: d.Attempt, AutoRenew: d.AutoRenew}
		if ex := pv.Cart.Existing; ex != nil {
			x.AccountID, x.Email = ex.AccountID, ex.Email
		}
		if pv.Cart.Plan != nil {
			x.PlanCode = pv.Cart.Plan.Code
		}
		if !d.AutoRenew {
			x.TotalInCents = 0
		}
		out = append(out, x)
	}
	return out, nil
}

// Run runs one whole pass in this process as of the service's clock, without Kafka (the
// operator command and tests): records every due term once (auto-renew off: an
// "auto-renew-off" notice, no charge), then renews the due ones ClaimBatch at a time until
// none is left. Safe to run from several processes at once, and beside the scheduled pass.
func (r *Renewer) Run(ctx context.Context) (RenewalResult, error) {
	var res RenewalResult
	if _, err := r.record(ctx, &res); err != nil {
		return res, err
	}
	if err := r.expireEnded(ctx, &res); err != nil {
		return res, err
	}
	for {
		jobs, err := r.store.Claim(ctx, r.svc.now(), r.o.Lease, r.o.ClaimBatch)
		if err != nil {
			return res, err
		}
		if len(jobs) == 0 {
			res.Skipped, err = r.skipped(ctx)
			return res, err
		}
		res.add(r.renewBatch(ctx, jobs))
	}
}

// skipped answers the due renewals of the pass's window that no claim could take, by
// reason.
func (r *Renewer) skipped(ctx context.Context) ([]Skipped, error) {
	now := r.svc.now()
	out, err := r.store.Skipped(ctx, now.Add(r.o.Window), now)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return out, nil
}

// keepLeases renews the leases of jobs every Heartbeat while this worker works on them,
// and answers the function that stops renewing. Only a lease still held is renewed: one
// given back (the renewal recorded, lease_until NULL) stays so.
func (r *Renewer) keepLeases(jobs []*RenewalJob) (stop func()) {
	if len(jobs) == 0 {
		return func() {}
	}
	return lease.Keeper{Every: r.o.Heartbeat, Timeout: r.o.Lease, Log: r.log, What: "renewals",
		Renew:  func(ctx context.Context) error { return r.store.KeepLeases(ctx, jobs, r.o.Lease) },
		OnBeat: r.o.OnHeartbeat}.Keep()
}

// failed records a renewal that failed for a reason other than a decline (payments or the
// database unavailable): the attempt is tried again later.
func (r *Renewer) failed(ctx context.Context, j *RenewalJob, err error, res *RenewalResult) {
	res.Failed++
	r.log.ErrorContext(ctx, "renewal failed; retried later", "subscription", j.SubID, "term_end", j.TermEnd, "err", err.Error())
	if oerr := r.outage(ctx, j, "error", err); oerr != nil {
		r.log.ErrorContext(ctx, "record renewal outage", "subscription", j.SubID, "err", oerr.Error())
	}
}

// RenewalKey is the order (and, derived, the payments) idempotency key of one attempt at
// renewing a subscription's term: subscription + term + attempt. The same attempt after a
// crash or an outage reaches the same charge; the attempt number moves on only once the
// previous attempt's key is closed without a payment (declined, or abandoned: no charge
// was made), so a term is paid at most once. The renewals row, one per subscription and
// term (its primary key), is the unique record of the term's renewal.
func RenewalKey(subscriptionID string, termEnd time.Time, attempt int) string {
	return fmt.Sprintf("renewal:%s:%s:%d", subscriptionID, termEnd.UTC().Format(time.RFC3339), attempt)
}

// outageCodes are payments' failure codes of a processor that did not answer: retried
// later, not declines (the subscriber is not told, the retry schedule does not move).
var outageCodes = map[string]bool{"processor_unavailable": true, "timeout": true, "processor_timeout": true}

// renew finishes an attempt whose key was used before (prev, as renewBatch looked it up:
// the key's one read): a completed one is recorded, one closed without a payment moves to
// the next attempt, and a pending (a dead worker's, once its lease ran out) or declined one
// goes to order.Pipeline.Resume, as a submit's retry does.
func (r *Renewer) renew(ctx context.Context, j *RenewalJob, prev *order.Submission, res *RenewalResult) error {
	switch prev.Status {
	case "completed":
		// Paid and written before (a crash after the write, or the reconciler finished
		// an attempt interrupted between the charge and the write): record it, no charge.
		return r.finish(ctx, j, "renewed", prev.InvoiceID, res)
	case "abandoned", "refunded":
		// Closed without a payment: the next attempt gets a fresh key, at once (a pass
		// paused or killed past its leases leaves its terms to whoever runs next, the
		// service's workers or the same command rerun, not to a retry ten minutes later).
		return r.nextAttempt(ctx, j, "abandoned", r.closedRetry(j))
	}
	sub, err := r.svc.store.Subscription(ctx, j.SubID)
	if err != nil {
		return err
	}
	key := RenewalKey(j.SubID, j.TermEnd, j.Attempt)
	if sub != nil && !sub.TermEnd.Equal(j.TermEnd) {
		// The term moved after the key was looked up: the reconciler may have finished
		// this very attempt meanwhile (a pass killed between its charge and its write). Its
		// order is this term's renewal, not a term superseded by something else.
		if now, err := r.svc.orders.Lookup(ctx, key); err != nil {
			return err
		} else if now != nil && now.Status == "completed" && now.InvoiceID != "" {
			return r.finish(ctx, j, "renewed", now.InvoiceID, res)
		}
	}
	pu, settled, err := r.prepare(ctx, j, sub, nil, nil, res)
	if err != nil || settled {
		return err
	}
	placed, err := r.svc.orders.Resume(ctx, prev, key, order.Payment{Token: j.Token})
	return r.outcome(ctx, j, sub, pu, placed, err, res)
}

// prepare checks a claimed job's subscription (read with the job; acct, when not nil, its
// account; alloc, when not nil, its batch's allocations) and prices its renewal as the
// renewal price shows it. settled: the job needed no charge and was recorded here
// (superseded, auto-renew off, no stored method).
func (r *Renewer) prepare(ctx context.Context, j *RenewalJob, sub *domain.Subscription, acct *domain.Account, alloc *allocationsRead,
	res *RenewalResult) (*order.Purchase, bool, error) {
	if sub == nil || !sub.TermEnd.Equal(j.TermEnd) || !sub.Valid {
		// Renewed or changed meanwhile (a checkout, another pass): nothing to charge.
		return nil, true, r.finish(ctx, j, "superseded", "", res)
	}
	if !sub.AutoRenew {
		// Turned off after the term was recorded: not charged; the subscriber was told when
		// turning it off, and the term ends on its date.
		return nil, true, r.finish(ctx, j, "ending", "", res)
	}
	pv, err := r.svc.renewalPriceOf(ctx, sub, acct, alloc)
	if err != nil {
		return nil, true, err
	}
	graceDates(pv, sub)
	pu, err := r.svc.subscriptionPurchase(pv, sub.AccountID, domain.Input{})
	if err != nil {
		return nil, true, err
	}
	pu.BillingName = sub.BillingName
	if pu.Email == "" {
		pu.Email = sub.Email // the receipt goes to the subscriber (the pass has no session)
	}
	if j.Token == "" && pu.TotalInCents > 0 {
		d := &order.DeclinedError{Code: "no_payment_method", Message: "No payment method is stored for this subscription."}
		return nil, true, r.declined(ctx, j, sub, pu, d, res)
	}
	return pu, false, nil
}

// outcome records the order pipeline's answer for a claimed job: renewed, declined (the
// retry schedule), or an outage (the same attempt later).
func (r *Renewer) outcome(ctx context.Context, j *RenewalJob, sub *domain.Subscription, pu *order.Purchase, placed *order.Placed,
	err error, res *RenewalResult) error {
	if d, ok := order.AsDeclined(err); ok {
		if outageCodes[d.Code] {
			res.Outages++
			return r.nextAttempt(ctx, j, d.Code, r.svc.now().Add(r.o.OutageRetry))
		}
		return r.declined(ctx, j, sub, pu, d, res)
	}
	if order.IsRefused(err) {
		// The stored token is not the subscriber's (payments charges a method only for its
		// owner): nothing was charged; the subscriber is asked for a card like after a decline.
		r.svc.log.WarnContext(ctx, "renewal: stored payment method refused", "subscription", j.SubID, "account", sub.AccountID)
		return r.declined(ctx, j, sub, pu, &order.DeclinedError{Code: MethodRefusedCode, Message: MsgRenewalMethodRefused}, res)
	}
	if closed, lerr := r.closedAttempt(ctx, j, err); lerr != nil {
		return lerr
	} else if closed {
		// The attempt's key was closed with nothing kept: the reconciler abandoned it under
		// a pass paused or slow past its lease, or the order could not be written (an
		// account balance spent meanwhile by another of the account's renewals) and its
		// charge was refunded. The next attempt gets a fresh key at once, as renew does for
		// a key found closed; an outage's retry would leave the term unrenewed for ten
		// minutes.
		res.Outages++
		return r.nextAttempt(ctx, j, "abandoned", r.closedRetry(j))
	}
	if err != nil {
		if isOutage(err) {
			res.Outages++
			return r.outage(ctx, j, "unavailable", err)
		}
		return err
	}
	return r.finish(ctx, j, "renewed", placed.InvoiceID, res)
}

// immediateAttempts bounds the attempts of a term that follow a closed one at once: an
// attempt closed for a reason that would close the next too (a refund for a balance held
// in another currency) must not turn a pass into a loop of charges and refunds; past it the
// next attempt waits the outage retry.
const immediateAttempts = 3

// closedRetry is when the attempt after j's closed one is due: at once (zero) for the
// first few, then after the outage retry.
func (r *Renewer) closedRetry(j *RenewalJob) time.Time {
	if j.Attempt < immediateAttempts {
		return time.Time{}
	}
	return r.svc.now().Add(r.o.OutageRetry)
}

// closedAttempt reports whether err (a conflict) left the job's attempt closed without a
// payment kept (abandoned or refunded), asking the key when the error does not say.
func (r *Renewer) closedAttempt(ctx context.Context, j *RenewalJob, err error) (bool, error) {
	if errors.Is(err, order.ErrAttemptClosed) || errors.Is(err, order.ErrAttemptRefunded) {
		return true, nil
	}
	if errs.CodeOf(err) != errs.Conflict {
		return false, nil
	}
	// Refused before any charge because another pending order of the account holds the
	// balance or certificate it was priced with: nothing was claimed, and the next attempt
	// prices what is left.
	var e *errs.Error
	if errors.As(err, &e) && (e.Reason == promotion.CodeBalanceHeld || e.Reason == promotion.CodeGiftSpent) {
		return true, nil
	}
	s, lerr := r.svc.orders.Lookup(ctx, RenewalKey(j.SubID, j.TermEnd, j.Attempt))
	if lerr != nil {
		return false, lerr
	}
	return s != nil && (s.Status == "abandoned" || s.Status == "refunded"), nil
}

// A renewal whose stored method payments refuses (not the subscriber's) is declined with
// this code and message.
const (
	MethodRefusedCode       = "payment_method_refused"
	MsgRenewalMethodRefused = "The stored payment method cannot pay for this subscription. Please update your payment method."
)

// isOutage: payments (or the processor behind it) did not answer, or another worker holds
// the attempt's key; the same attempt is tried again later.
func isOutage(err error) bool {
	switch errs.CodeOf(err) {
	case errs.Unavailable, errs.Conflict:
		return true
	}
	return errors.Is(err, context.DeadlineExceeded)
}

// outage records a failure that is not a decline: the same attempt (same key) is tried
// again after OutageRetry; the subscriber is not told and the retry schedule is unchanged.
func (r *Renewer) outage(ctx context.Context, j *RenewalJob, reason string, cause error) error {
	r.m.outage(reason)
	return r.store.Outage(ctx, j, r.svc.now().Add(r.o.OutageRetry), reason, truncate(cause.Error(), 500))
}

// nextAttempt moves to a fresh key, due at next (zero: due as it was, at once): the
// attempt's key was closed without a payment for a reason that is not the subscriber's
// (an outage answered as a failed charge, retried after OutageRetry; a key abandoned by
// the reconciler, retried at once).
func (r *Renewer) nextAttempt(ctx context.Context, j *RenewalJob, reason string, next time.Time) error {
	r.m.outage(reason)
	return r.store.NextAttempt(ctx, j, next, reason)
}

func (r *Renewer) finish(ctx context.Context, j *RenewalJob, status, invoiceID string, res *RenewalResult) error {
	was, err := r.store.Finish(ctx, j, status, invoiceID)
	if err != nil {
		return err
	}
	if was && status == "renewed" {
		// Counted when the term's row turns renewed: once per term, whoever wrote the order.
		res.Renewed++
		if cur, total, err := r.store.OrderTotal(ctx, invoiceID); err == nil {
			r.m.renewed(cur, total)
		}
	}
	return nil
}

// declined records a decline: the next retry of the schedule and a "renewal-declined"
// notice, or after the last retry the lapse (subscription-changed, status lapsed, and a
// "subscription-lapsed" notice). Conditional on the attempt, so recording one attempt's
// decline twice (a worker crashed after recording) changes nothing.
func (r *Renewer) declined(ctx context.Context, j *RenewalJob, sub *domain.Subscription, pu *order.Purchase, d *order.DeclinedError,
	res *RenewalResult) error {
	now := r.svc.now()
	first := now
	if j.FirstAt != nil {
		first = *j.FirstAt
	}
	amount := &eventsv1.Money{AmountInCents: pu.TotalInCents, Currency: pu.Currency}
	_, err := r.store.InTx(ctx, false, func(tx RenewalTx) error {
		if j.Declines >= len(r.o.Retries) {
			ok, err := tx.LapseRenewal(ctx, j, d.Code, d.Message)
			if err != nil || !ok {
				return err
			}
			notice, err := dunning(&eventsv1.DunningNotice{AccountId: sub.AccountID, Email: sub.Email, Kind: "subscription-lapsed",
				SubscriptionId: sub.ID, Amount: amount, Date: timestamppb.New(sub.TermEnd), Reason: d.Message, ActionUrl: r.o.ActionURL})
			if err != nil {
				return err
			}
			if err := r.lapse(ctx, tx, sub, now, "lapse"); err != nil {
				return err
			}
			res.Lapsed++
			r.m.declined(d.Code)
			r.m.lapsed("declined")
			return tx.Enqueue(ctx, notice)
		}
		next := first.Add(r.o.Retries[j.Declines])
		ok, err := tx.Retry(ctx, j, next, first, d.Code, d.Message)
		if err != nil || !ok {
			return err
		}
		notice, err := dunning(&eventsv1.DunningNotice{AccountId: sub.AccountID, Email: sub.Email, Kind: "renewal-declined",
			SubscriptionId: sub.ID, Amount: amount, Date: timestamppb.New(sub.TermEnd), Reason: d.Message, ActionUrl: r.o.ActionURL,
			NextAttempt: timestamppb.New(next)})
		if err != nil {
			return err
		}
		res.Declined++
		r.m.declined(d.Code)
		return tx.Enqueue(ctx, notice)
	})
	return err
}

// lapse ends a subscription in tx: no longer valid, lapsed_at set, and subscription-changed
// (status "lapsed") so that identity and allocation let its entitlements and allocations
// expire.
func (r *Renewer) lapse(ctx context.Context, tx RenewalTx, sub *domain.Subscription, now time.Time, change string) error {
	version, err := tx.LapseSubscription(ctx, sub.ID, now)
	if err != nil {
		return err
	}
	lapsed := *sub
	lapsed.Valid, lapsed.Version = false, version
	ev, err := subscription.Changed{Sub: &lapsed, Change: change, At: now, Catalog: catalogOrNil(r.svc.Catalog)}.Event()
	if err != nil {
		return err
	}
	return tx.Enqueue(ctx, ev)
}

func dunning(n *eventsv1.DunningNotice) (kafka.Event, error) {
	b, err := proto.Marshal(n)
	if err != nil {
		return kafka.Event{}, fmt.Errorf("encode dunning notice: %w", err)
	}
	return kafka.Event{Topic: events.TopicDunningNotice, Key: n.AccountId, Payload: b}, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// graceDates: a renewal paid after its term ended (in the grace period, after declines or
// outages) still starts at the old term's end, so the renewed term is contiguous: the grace
// days are part of it, none lost and none given away. (Pricing alone would start a term
// that has ended today; its unused-days credit is zero then, so only the dates move.)
func graceDates(pv *pricing.Preview, sub *domain.Subscription) {
	end := sub.TermEnd.UTC()
	if pv.TermStart.Before(end) {
		return
	}
	months := 12
	if pv.Cart != nil && pv.Cart.Plan != nil {
		months = pv.Cart.Plan.Months()
	}
	pv.TermStart, pv.RenewalDate = end, end.AddDate(0, months, 0)
}
