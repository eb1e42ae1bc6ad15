package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/propagation"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
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
	// JobLease: how long a published renewal job is in flight before the scheduler
	// publishes it again (default 15 minutes).
	JobLease time.Duration
	// ReminderBefore: annual subscriptions get a reminder with the amount and date this
	// long before they renew (default 30 days; 0 keeps the default, negative disables).
	ReminderBefore time.Duration
	// CardNoticeBefore: a stored card expiring before the renewal gets a notice this long
	// before it (default 30 days; negative disables).
	CardNoticeBefore time.Duration
	// Batch: rows per scheduler transaction (default 1000).
	Batch int
	// ClaimBatch: renewals a worker claims, charges and writes together (default 100): a
	// worker of the direct pass claims that many, a renewal worker on Kafka takes up to that
	// many jobs from its partitions; one claim, one read of their subscriptions and
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
	svc  *Service
	pool *pgxpool.Pool
	prop propagation.TextMapPropagator
	log  *slog.Logger
	o    RenewalOptions
	m    *RenewalMetrics
}

// NewRenewer builds a Renewer; svc must have been built with the order pipeline and its
// clock (Options.Now) is the pass's clock.
func NewRenewer(svc *Service, pool *pgxpool.Pool, prop propagation.TextMapPropagator, log *slog.Logger, o RenewalOptions) *Renewer {
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
	if o.JobLease == 0 {
		o.JobLease = 15 * time.Minute
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
	return &Renewer{svc: svc, pool: pool, prop: prop, log: log, o: o, m: o.Metrics}
}

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

// dueFilter selects the subscriptions a pass looks at: card-paid, valid, not lapsed, term
// ending within the window. Check-paying (INVOICE), third-party and complimentary
// subscriptions are never charged by card: their payment method or source is not
// CREDIT_CARD. (The partial index subscriptions_renewable matches this filter.)
const dueFilter = `s.valid AND s.lapsed_at IS NULL AND s.payment_method = 'CREDIT_CARD' AND s.payment_source = 'CREDIT_CARD'
	AND s.term_end < $1`

// DryRun lists the renewals a pass as of now would attempt, priced, without writing
// anything (subscriptions with auto-renew off are listed with AutoRenew false, nothing due).
func (r *Renewer) DryRun(ctx context.Context) ([]DueRenewal, error) {
	now := r.svc.now()
	rows, err := r.pool.Query(ctx, `SELECT s.id::text, s.auto_renew, s.term_end, coalesce(rn.attempt, 1)
		FROM subscriptions s LEFT JOIN renewals rn ON rn.subscription_id = s.id AND rn.term_end = s.term_end
		WHERE `+dueFilter+` AND (rn.status IS NULL OR (rn.status = 'due' AND rn.next_attempt_at <= $2))
		ORDER BY s.term_end, s.id`, now.Add(r.o.Window), now)
	if err != nil {
		return nil, fmt.Errorf("list due renewals: %w", err)
	}
	type due struct {
		id      string
		auto    bool
		termEnd time.Time
		attempt int
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (due, error) {
		var d due
		return d, row.Scan(&d.id, &d.auto, &d.termEnd, &d.attempt)
	})
	if err != nil {
		return nil, fmt.Errorf("list due renewals: %w", err)
	}
	out := make([]DueRenewal, 0, len(list))
	for _, d := range list {
		pv, err := r.svc.RenewalPrice(ctx, d.id)
		if err != nil {
			return nil, fmt.Errorf("price renewal of %s: %w", d.id, err)
		}
		x := DueRenewal{SubscriptionID: d.id, TermEnd: d.termEnd, Currency: pv.Invoice.Currency, TotalInCents: pv.Invoice.TotalInCents,
			Attempt: d.attempt, AutoRenew: d.auto}
		if ex := pv.Cart.Existing; ex != nil {
			x.AccountID, x.Email = ex.AccountID, ex.Email
		}
		if pv.Cart.Plan != nil {
			x.PlanCode = pv.Cart.Plan.Code
		}
		if !d.auto {
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
		jobs, err := r.claimBatch(ctx, r.o.ClaimBatch)
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
	rows, err := r.pool.Query(ctx, `SELECT CASE WHEN lease_until >= clock_timestamp() THEN $3 ELSE $4 END AS reason, count(*),
			min(CASE WHEN lease_until >= clock_timestamp() THEN lease_until ELSE next_attempt_at END)
		FROM renewals WHERE status = 'due' AND term_end < $1 AND (lease_until >= clock_timestamp() OR next_attempt_at > $2)
		GROUP BY 1 ORDER BY 1`, now.Add(r.o.Window), now, SkipLeased, SkipRetryLater)
	if err != nil {
		return nil, fmt.Errorf("count skipped renewals: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Skipped, error) {
		var s Skipped
		return s, row.Scan(&s.Reason, &s.Count, &s.Next)
	})
	if err != nil {
		err = fmt.Errorf("count skipped renewals: %w", err)
	}
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return out, nil
}

// leaseInterval is d as a PostgreSQL interval parameter.
func leaseInterval(d time.Duration) string { return fmt.Sprintf("%d milliseconds", d.Milliseconds()) }

// keepLeases renews the leases of jobs every Heartbeat while this worker works on them,
// and answers the function that stops renewing. Only a lease still held is renewed: one
// given back (the renewal recorded, lease_until NULL) stays so.
func (r *Renewer) keepLeases(jobs []*renewalJob) (stop func()) {
	if r.o.Heartbeat <= 0 || len(jobs) == 0 {
		return func() {}
	}
	ids, ends := make([]string, len(jobs)), make([]time.Time, len(jobs))
	for i, j := range jobs {
		ids[i], ends[i] = j.subID, j.termEnd
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(r.o.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), r.o.Lease)
				_, err := r.pool.Exec(ctx, `UPDATE renewals rn SET lease_until = clock_timestamp() + $3::interval
					FROM unnest($1::text[], $2::timestamptz[]) AS u(id, te)
					WHERE rn.subscription_id = u.id::uuid AND rn.term_end = u.te AND rn.status = 'due'
						AND rn.lease_until >= clock_timestamp()`, ids, ends, leaseInterval(r.o.Lease))
				cancel()
				if err != nil {
					r.log.Warn("renew renewal leases", "renewals", len(ids), "err", err.Error())
				} else if r.o.OnHeartbeat != nil {
					r.o.OnHeartbeat()
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

// renewalJob is one claimed attempt at renewing a term.
type renewalJob struct {
	subID    string
	termEnd  time.Time
	declines int
	attempt  int
	firstAt  *time.Time
	// token is the subscription's stored payments method, read with the claim.
	token string
}

// claimReturning is what a claim answers of each renewals row it took, with the stored
// method (read in the same statement).
const claimReturning = `RETURNING subscription_id::text, term_end, declines, attempt, first_declined_at,
	coalesce((SELECT s.payment_method_token FROM subscriptions s WHERE s.id = renewals.subscription_id), '')`

func scanJob(row pgx.Row) (*renewalJob, error) {
	var j renewalJob
	return &j, row.Scan(&j.subID, &j.termEnd, &j.declines, &j.attempt, &j.firstAt, &j.token)
}

// claimJobs takes the rows of the given jobs (Kafka jobs) that are still what the jobs say
// (due, this attempt, due now, not leased) for the lease, in one statement; a stale job
// (renewed, declined meanwhile, leased by another worker, not due yet) is left out. A row
// another claim holds locked is skipped too: that claim's lease makes the job stale, and
// should it roll back, the scheduler publishes the job again after JobLease.
func (r *Renewer) claimJobs(ctx context.Context, want []*eventsv1.RenewalDue) ([]*renewalJob, error) {
	now := r.svc.now()
	ids, ends, attempts := make([]string, len(want)), make([]time.Time, len(want)), make([]int32, len(want))
	for i, w := range want {
		ids[i], ends[i], attempts[i] = w.GetSubscriptionId(), w.GetTermEnd().AsTime(), w.GetAttempt()
	}
	rows, err := r.pool.Query(ctx, `UPDATE renewals SET lease_until = clock_timestamp() + $2::interval, updated_at = now()
		WHERE (subscription_id, term_end) IN (SELECT rn.subscription_id, rn.term_end
			FROM renewals rn JOIN unnest($3::text[], $4::timestamptz[], $5::int[]) AS u(id, te, at)
				ON rn.subscription_id = u.id::uuid AND rn.term_end = u.te AND rn.attempt = u.at
			WHERE rn.status = 'due' AND rn.next_attempt_at <= $1 AND (rn.lease_until IS NULL OR rn.lease_until < clock_timestamp())
			FOR UPDATE OF rn SKIP LOCKED) `+claimReturning, now, leaseInterval(r.o.Lease), ids, ends, attempts)
	if err != nil {
		return nil, fmt.Errorf("claim renewal jobs: %w", err)
	}
	jobs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*renewalJob, error) { return scanJob(row) })
	if err != nil {
		return nil, fmt.Errorf("claim renewal jobs: %w", err)
	}
	return jobs, nil
}

// claimBatch takes up to n due renewals (the direct pass) in one statement. The row locks
// (SKIP LOCKED) keep concurrent claims off them, the lease afterwards.
func (r *Renewer) claimBatch(ctx context.Context, n int) ([]*renewalJob, error) {
	now := r.svc.now()
	rows, err := r.pool.Query(ctx, `UPDATE renewals SET lease_until = clock_timestamp() + $2::interval, updated_at = now()
		WHERE (subscription_id, term_end) IN (SELECT subscription_id, term_end FROM renewals
			WHERE status = 'due' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < clock_timestamp())
			ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) `+claimReturning, now, leaseInterval(r.o.Lease), n)
	if err != nil {
		return nil, fmt.Errorf("claim renewals: %w", err)
	}
	jobs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*renewalJob, error) { return scanJob(row) })
	if err != nil {
		return nil, fmt.Errorf("claim renewals: %w", err)
	}
	return jobs, nil
}

// failed records a renewal that failed for a reason other than a decline (payments or the
// database unavailable): the attempt is tried again later.
func (r *Renewer) failed(ctx context.Context, j *renewalJob, err error, res *RenewalResult) {
	res.Failed++
	r.log.ErrorContext(ctx, "renewal failed; retried later", "subscription", j.subID, "term_end", j.termEnd, "err", err.Error())
	if oerr := r.outage(ctx, j, "error", err); oerr != nil {
		r.log.ErrorContext(ctx, "record renewal outage", "subscription", j.subID, "err", oerr.Error())
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

func (r *Renewer) renew(ctx context.Context, j *renewalJob, res *RenewalResult) error {
	key := RenewalKey(j.subID, j.termEnd, j.attempt)
	prev, err := r.svc.orders.Lookup(ctx, key)
	if err != nil {
		return err
	}
	if prev != nil {
		switch prev.Status {
		case "completed":
			// Paid and written before (a crash after the write, or the reconciler finished
			// an attempt interrupted between the charge and the write): record it, no charge.
			return r.finish(ctx, j, "renewed", prev.InvoiceID, res)
		case "abandoned", "refunded":
			// Closed without a payment: the next attempt gets a fresh key, at once.
			return r.nextAttempt(ctx, j, "abandoned")
		}
	}
	sub, err := r.svc.store.Subscription(ctx, j.subID)
	if err != nil {
		return err
	}
	pu, settled, err := r.prepare(ctx, j, sub, nil, res)
	if err != nil || settled {
		return err
	}
	placed, err := r.svc.orders.Place(ctx, key, key, pu, order.Payment{Token: j.token})
	return r.outcome(ctx, j, sub, pu, placed, err, res)
}

// prepare checks a claimed job's subscription (read with the job; acct, when not nil, its
// account) and prices its renewal as the renewal price shows it. settled: the job needed
// no charge and was recorded here (superseded, auto-renew off, no stored method).
func (r *Renewer) prepare(ctx context.Context, j *renewalJob, sub *domain.Subscription, acct *domain.Account,
	res *RenewalResult) (*order.Purchase, bool, error) {
	if sub == nil || !sub.TermEnd.Equal(j.termEnd) || !sub.Valid {
		// Renewed or changed meanwhile (a checkout, another pass): nothing to charge.
		return nil, true, r.finish(ctx, j, "superseded", "", res)
	}
	if !sub.AutoRenew {
		// Turned off after the term was recorded: not charged; the subscriber was told when
		// turning it off, and the term ends on its date.
		return nil, true, r.finish(ctx, j, "ending", "", res)
	}
	pv, err := r.svc.renewalPriceOf(ctx, sub, acct)
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
	if j.token == "" && pu.TotalInCents > 0 {
		d := &order.DeclinedError{Code: "no_payment_method", Message: "No payment method is stored for this subscription."}
		return nil, true, r.declined(ctx, j, sub, pu, d, res)
	}
	return pu, false, nil
}

// outcome records the order pipeline's answer for a claimed job: renewed, declined (the
// retry schedule), or an outage (the same attempt later).
func (r *Renewer) outcome(ctx context.Context, j *renewalJob, sub *domain.Subscription, pu *order.Purchase, placed *order.Placed,
	err error, res *RenewalResult) error {
	if d, ok := order.AsDeclined(err); ok {
		if outageCodes[d.Code] {
			res.Outages++
			return r.nextAttempt(ctx, j, d.Code)
		}
		return r.declined(ctx, j, sub, pu, d, res)
	}
	if order.IsRefused(err) {
		// The stored token is not the subscriber's (payments charges a method only for its
		// owner): nothing was charged; the subscriber is asked for a card like after a decline.
		r.svc.log.WarnContext(ctx, "renewal: stored payment method refused", "subscription", j.subID, "account", sub.AccountID)
		return r.declined(ctx, j, sub, pu, &order.DeclinedError{Code: MethodRefusedCode, Message: MsgRenewalMethodRefused}, res)
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
func (r *Renewer) outage(ctx context.Context, j *renewalJob, reason string, cause error) error {
	r.m.outage(reason)
	next := r.svc.now().Add(r.o.OutageRetry)
	_, err := r.pool.Exec(ctx, `UPDATE renewals SET outages = outages + 1, next_attempt_at = greatest(next_attempt_at, $4), lease_until = NULL,
		enqueued_until = NULL, last_failure_code = $5, last_failure_msg = $6, updated_at = now()
		WHERE subscription_id = $1 AND term_end = $2 AND attempt = $3 AND status = 'due'`,
		j.subID, j.termEnd, j.attempt, next, reason, truncate(cause.Error(), 500))
	if err != nil {
		return fmt.Errorf("record renewal outage: %w", err)
	}
	return nil
}

// nextAttempt moves to a fresh key at once: the attempt's key was closed without a
// payment for a reason that is not the subscriber's (an outage answered as a failed
// charge, a key abandoned by the reconciler).
func (r *Renewer) nextAttempt(ctx context.Context, j *renewalJob, reason string) error {
	r.m.outage(reason)
	_, err := r.pool.Exec(ctx, `UPDATE renewals SET attempt = attempt + 1, outages = outages + 1, next_attempt_at = $4,
		lease_until = NULL, enqueued_until = NULL, last_failure_code = $5, updated_at = now()
		WHERE subscription_id = $1 AND term_end = $2 AND attempt = $3 AND status = 'due'`,
		j.subID, j.termEnd, j.attempt, r.svc.now().Add(r.o.OutageRetry), reason)
	if err != nil {
		return fmt.Errorf("record renewal attempt: %w", err)
	}
	return nil
}

func (r *Renewer) finish(ctx context.Context, j *renewalJob, status, invoiceID string, res *RenewalResult) error {
	tag, err := r.pool.Exec(ctx, `UPDATE renewals SET status = $3, invoice_id = $4, lease_until = NULL, enqueued_until = NULL, updated_at = now()
		WHERE subscription_id = $1 AND term_end = $2 AND status = 'due'`, j.subID, j.termEnd, status, nullable(invoiceID))
	if err != nil {
		return fmt.Errorf("record renewal: %w", err)
	}
	if tag.RowsAffected() == 1 && status == "renewed" {
		// Counted when the term's row turns renewed: once per term, whoever wrote the order.
		res.Renewed++
		var cur string
		var total int64
		if err := r.pool.QueryRow(ctx, `SELECT currency, total_in_cents FROM orders WHERE invoice_id = $1`, invoiceID).Scan(&cur, &total); err == nil {
			r.m.renewed(cur, total)
		}
	}
	return nil
}

// declined records a decline: the next retry of the schedule and a "renewal-declined"
// notice, or after the last retry the lapse (subscription-changed, status lapsed, and a
// "subscription-lapsed" notice). Conditional on the attempt, so recording one attempt's
// decline twice (a worker crashed after recording) changes nothing.
func (r *Renewer) declined(ctx context.Context, j *renewalJob, sub *domain.Subscription, pu *order.Purchase, d *order.DeclinedError,
	res *RenewalResult) error {
	now := r.svc.now()
	first := now
	if j.firstAt != nil {
		first = *j.firstAt
	}
	amount := &eventsv1.Money{AmountInCents: pu.TotalInCents, Currency: pu.Currency}
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if j.declines >= len(r.o.Retries) {
			tag, err := tx.Exec(ctx, `UPDATE renewals SET status = 'lapsed', declines = declines + 1, lease_until = NULL, enqueued_until = NULL,
				last_failure_code = $4, last_failure_msg = $5, updated_at = now()
				WHERE subscription_id = $1 AND term_end = $2 AND status = 'due' AND attempt = $3`, j.subID, j.termEnd, j.attempt, d.Code, d.Message)
			if err != nil || tag.RowsAffected() == 0 {
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
			return kafka.Enqueue(ctx, tx, r.prop, notice)
		}
		next := first.Add(r.o.Retries[j.declines])
		tag, err := tx.Exec(ctx, `UPDATE renewals SET declines = declines + 1, attempt = attempt + 1, next_attempt_at = $4, first_declined_at = $5,
			lease_until = NULL, enqueued_until = NULL, last_failure_code = $6, last_failure_msg = $7, updated_at = now()
			WHERE subscription_id = $1 AND term_end = $2 AND status = 'due' AND attempt = $3`,
			j.subID, j.termEnd, j.attempt, next, first, d.Code, d.Message)
		if err != nil || tag.RowsAffected() == 0 {
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
		return kafka.Enqueue(ctx, tx, r.prop, notice)
	})
}

// lapse ends a subscription in tx: no longer valid, lapsed_at set, and subscription-changed
// (status "lapsed") so that identity and allocation let its entitlements and allocations
// expire.
func (r *Renewer) lapse(ctx context.Context, tx pgx.Tx, sub *domain.Subscription, now time.Time, change string) error {
	var version int64
	if err := tx.QueryRow(ctx, `UPDATE subscriptions SET valid = false, lapsed_at = $2, version = version + 1, updated_at = now()
		WHERE id = $1 RETURNING version`, sub.ID, now).Scan(&version); err != nil {
		return fmt.Errorf("lapse subscription: %w", err)
	}
	lapsed := *sub
	lapsed.Valid, lapsed.Version = false, version
	ev, err := subscription.Changed{Sub: &lapsed, Change: change, At: now, Catalog: catalogOrNil(r.svc.Catalog)}.Event()
	if err != nil {
		return err
	}
	return kafka.Enqueue(ctx, tx, r.prop, ev)
}

func dunning(n *eventsv1.DunningNotice) (kafka.Event, error) {
	b, err := proto.Marshal(n)
	if err != nil {
		return kafka.Event{}, fmt.Errorf("encode dunning notice: %w", err)
	}
	return kafka.Event{Topic: events.TopicDunningNotice, Key: n.AccountId, Payload: b}, nil
}

// CardExpiry reads payments' MM/YYYY (or MM/YY) card expiry as the first instant the card
// no longer works (the first day of the following month, UTC); nil when s is not one.
func CardExpiry(s string) *time.Time {
	m, y, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return nil
	}
	month, err1 := strconv.Atoi(m)
	year, err2 := strconv.Atoi(y)
	if err1 != nil || err2 != nil || month < 1 || month > 12 || year < 0 {
		return nil
	}
	if year < 100 {
		year += 2000
	}
	t := time.Date(year, time.Month(month)+1, 1, 0, 0, 0, 0, time.UTC)
	return &t
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
