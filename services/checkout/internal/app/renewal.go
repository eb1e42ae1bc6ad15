package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/propagation"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/order"
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
	// Lease: how long a claimed renewal belongs to the pass that claimed it; a pass that
	// dies mid-renewal leaves it to the next pass after that (default 5 minutes).
	Lease time.Duration
	// ActionURL is where the dunning e-mails send the subscriber (payment-method update).
	ActionURL string
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
}

// NewRenewer builds a Renewer; svc must have been built with the order pipeline and its
// clock (Options.Now) is the pass's clock.
func NewRenewer(svc *Service, pool *pgxpool.Pool, prop propagation.TextMapPropagator, log *slog.Logger, o RenewalOptions) *Renewer {
	if o.Retries == nil {
		o.Retries = DefaultRetrySchedule
	}
	if o.Lease == 0 {
		o.Lease = 5 * time.Minute
	}
	if o.ActionURL == "" {
		o.ActionURL = "/account"
	}
	return &Renewer{svc: svc, pool: pool, prop: prop, log: log, o: o}
}

// RenewalResult counts what one pass did.
type RenewalResult struct {
	Due, Renewed, Declined, Lapsed, Ending, Failed int
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
// ending within the window. Check-paying, third-party and complimentary subscriptions are
// not charged by card (their payment method is not CREDIT_CARD or the price is zero).
const dueFilter = `s.valid AND s.lapsed_at IS NULL AND s.payment_method = 'CREDIT_CARD' AND s.payment_source = 'CREDIT_CARD'
	AND s.term_end < $1`

// DryRun lists the renewals a pass as of now would attempt, priced, without writing
// anything (subscriptions with auto-renew off are listed with AutoRenew false, nothing due).
func (r *Renewer) DryRun(ctx context.Context) ([]DueRenewal, error) {
	now := r.svc.now()
	rows, err := r.pool.Query(ctx, `SELECT s.id::text, s.auto_renew, s.term_end, coalesce(rn.declines, 0)
		FROM subscriptions s LEFT JOIN renewals rn ON rn.subscription_id = s.id AND rn.term_end = s.term_end
		WHERE `+dueFilter+` AND (rn.status IS NULL OR (rn.status = 'due' AND rn.next_attempt_at <= $2))
		ORDER BY s.term_end, s.id`, now.Add(r.o.Window), now)
	if err != nil {
		return nil, fmt.Errorf("list due renewals: %w", err)
	}
	type due struct {
		id       string
		auto     bool
		termEnd  time.Time
		declines int
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (due, error) {
		var d due
		return d, row.Scan(&d.id, &d.auto, &d.termEnd, &d.declines)
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
			Attempt: d.declines + 1, AutoRenew: d.auto}
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

// Run runs one pass as of the service's clock: records every due term once (auto-renew
// off: an "auto-renew-off" notice, no charge), then renews the due ones one at a time
// until none is left. Safe to run from several processes at once.
func (r *Renewer) Run(ctx context.Context) (RenewalResult, error) {
	var res RenewalResult
	if err := r.enqueue(ctx, &res); err != nil {
		return res, err
	}
	for {
		job, err := r.claim(ctx)
		if err != nil {
			return res, err
		}
		if job == nil {
			return res, nil
		}
		res.Due++
		if err := r.renew(ctx, job, &res); err != nil {
			// Not a decline (payments or the database unavailable): the lease runs out and
			// a later pass tries the same attempt again with the same key.
			res.Failed++
			r.log.ErrorContext(ctx, "renewal failed", "subscription", job.subID, "term_end", job.termEnd, "err", err.Error())
		}
	}
}

// enqueue records the terms ending within the window, once each; the insert of the
// auto-renew-off row and its notice share a transaction, so the notice goes out once.
func (r *Renewer) enqueue(ctx context.Context, res *RenewalResult) error {
	now := r.svc.now()
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO renewals (subscription_id, term_end, next_attempt_at)
			SELECT s.id, s.term_end, $2 FROM subscriptions s WHERE `+dueFilter+` AND s.auto_renew
			ON CONFLICT DO NOTHING`, now.Add(r.o.Window), now); err != nil {
			return fmt.Errorf("enqueue renewals: %w", err)
		}
		rows, err := tx.Query(ctx, `INSERT INTO renewals (subscription_id, term_end, next_attempt_at, status)
			SELECT s.id, s.term_end, $2, 'ending' FROM subscriptions s WHERE `+dueFilter+` AND NOT s.auto_renew
			ON CONFLICT DO NOTHING RETURNING subscription_id::text`, now.Add(r.o.Window), now)
		if err != nil {
			return fmt.Errorf("enqueue ending subscriptions: %w", err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("enqueue ending subscriptions: %w", err)
		}
		for _, id := range ids {
			var acct, email, cur string
			var price int64
			var end time.Time
			if err := tx.QueryRow(ctx, `SELECT account_id::text, email, currency, price_in_cents, term_end FROM subscriptions WHERE id = $1`, id).
				Scan(&acct, &email, &cur, &price, &end); err != nil {
				return fmt.Errorf("read ending subscription: %w", err)
			}
			ev, err := dunning(&eventsv1.DunningNotice{AccountId: acct, Email: email, Kind: "auto-renew-off", SubscriptionId: id,
				Amount: &eventsv1.Money{AmountInCents: price, Currency: cur}, Date: timestamppb.New(end), ActionUrl: r.o.ActionURL})
			if err != nil {
				return err
			}
			if err := kafka.Enqueue(ctx, tx, r.prop, ev); err != nil {
				return fmt.Errorf("publish auto-renew-off: %w", err)
			}
			res.Ending++
		}
		return nil
	})
}

type renewalJob struct {
	subID    string
	termEnd  time.Time
	declines int
	firstAt  *time.Time
}

// claim takes one due renewal for this pass: the row lock (SKIP LOCKED) keeps concurrent
// passes off it while claiming, the lease afterwards.
func (r *Renewer) claim(ctx context.Context) (*renewalJob, error) {
	now := r.svc.now()
	var j renewalJob
	err := r.pool.QueryRow(ctx, `UPDATE renewals SET lease_until = $2, updated_at = now()
		WHERE (subscription_id, term_end) = (SELECT subscription_id, term_end FROM renewals
			WHERE status = 'due' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
			ORDER BY next_attempt_at LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING subscription_id::text, term_end, declines, first_declined_at`, now, now.Add(r.o.Lease)).
		Scan(&j.subID, &j.termEnd, &j.declines, &j.firstAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("claim renewal: %w", err)
	}
	return &j, nil
}

// RenewalKey is the order (and, derived, the payments) idempotency key of one attempt at
// renewing a subscription's term: the same attempt after a crash reaches the same charge,
// and a retry only follows a recorded decline, so a term is paid at most once.
func RenewalKey(subscriptionID string, termEnd time.Time, attempt int) string {
	return fmt.Sprintf("renewal:%s:%s:%d", subscriptionID, termEnd.UTC().Format(time.RFC3339), attempt)
}

func (r *Renewer) renew(ctx context.Context, j *renewalJob, res *RenewalResult) error {
	sub, err := r.svc.store.Subscription(ctx, j.subID)
	if err != nil {
		return err
	}
	if sub == nil || !sub.TermEnd.Equal(j.termEnd) {
		// Renewed or changed meanwhile (a checkout, another pass): nothing to charge.
		return r.finish(ctx, j, "superseded", "")
	}
	pv, err := r.svc.RenewalPrice(ctx, j.subID)
	if err != nil {
		return err
	}
	pu, err := r.svc.subscriptionPurchase(pv, sub.AccountID, domain.Input{})
	if err != nil {
		return err
	}
	pu.BillingName = sub.BillingName
	var token string
	if err := r.pool.QueryRow(ctx, `SELECT payment_method_token FROM subscriptions WHERE id = $1`, j.subID).Scan(&token); err != nil {
		return fmt.Errorf("read stored method: %w", err)
	}
	key := RenewalKey(j.subID, j.termEnd, j.declines+1)
	var placed *order.Placed
	if token == "" && pu.TotalInCents > 0 {
		err = &order.DeclinedError{Code: "NO_PAYMENT_METHOD", Message: "No payment method is stored for this subscription."}
	} else {
		placed, err = r.svc.orders.Place(ctx, key, key, pu, order.Payment{Token: token})
	}
	if d, ok := order.AsDeclined(err); ok {
		return r.declined(ctx, j, sub, pu, d, res)
	}
	if err != nil {
		return err
	}
	res.Renewed++
	return r.finish(ctx, j, "renewed", placed.InvoiceID)
}

func (r *Renewer) finish(ctx context.Context, j *renewalJob, status, invoiceID string) error {
	if _, err := r.pool.Exec(ctx, `UPDATE renewals SET status = $3, invoice_id = $4, lease_until = NULL, updated_at = now()
		WHERE subscription_id = $1 AND term_end = $2 AND status = 'due'`, j.subID, j.termEnd, status, nullable(invoiceID)); err != nil {
		return fmt.Errorf("record renewal: %w", err)
	}
	return nil
}

// declined records a decline: the next retry of the schedule and a "renewal-declined"
// notice, or after the last retry the lapse (subscription-changed, status lapsed, and a
// "subscription-lapsed" notice). Conditional on the decline count, so recording one
// attempt's decline twice (a pass crashed after recording) changes nothing.
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
			tag, err := tx.Exec(ctx, `UPDATE renewals SET status = 'lapsed', declines = declines + 1, lease_until = NULL,
				last_failure_code = $4, last_failure_msg = $5, updated_at = now()
				WHERE subscription_id = $1 AND term_end = $2 AND status = 'due' AND declines = $3`, j.subID, j.termEnd, j.declines, d.Code, d.Message)
			if err != nil || tag.RowsAffected() == 0 {
				return err
			}
			var version int64
			if err := tx.QueryRow(ctx, `UPDATE subscriptions SET valid = false, lapsed_at = $2, version = version + 1, updated_at = now()
				WHERE id = $1 RETURNING version`, j.subID, now).Scan(&version); err != nil {
				return fmt.Errorf("lapse subscription: %w", err)
			}
			ch := &eventsv1.SubscriptionChanged{SubscriptionId: sub.ID, AccountId: sub.AccountID, OrganizationId: sub.OrganizationID,
				PlanCode: sub.PlanCode, Quantity: int32(sub.Quantity), TermStart: timestamppb.New(sub.TermStart), TermEnd: timestamppb.New(sub.TermEnd),
				Status: "lapsed", AutoRenew: sub.AutoRenew, Change: "lapse", Version: version, ChangedAt: timestamppb.New(now)}
			ch.AddOns = addOnsOf(sub.AddOns, sub.Quantity, sub.LicensingMethod, r.svc.Catalog)
			b, err := proto.Marshal(ch)
			if err != nil {
				return fmt.Errorf("encode subscription changed: %w", err)
			}
			notice, err := dunning(&eventsv1.DunningNotice{AccountId: sub.AccountID, Email: sub.Email, Kind: "subscription-lapsed",
				SubscriptionId: sub.ID, Amount: amount, Date: timestamppb.New(sub.TermEnd), Reason: d.Message, ActionUrl: r.o.ActionURL})
			if err != nil {
				return err
			}
			res.Lapsed++
			return kafka.Enqueue(ctx, tx, r.prop, kafka.Event{Topic: events.TopicSubscriptionChanged, Key: sub.AccountID, Payload: b}, notice)
		}
		next := first.Add(r.o.Retries[j.declines])
		tag, err := tx.Exec(ctx, `UPDATE renewals SET declines = declines + 1, next_attempt_at = $4, first_declined_at = $5, lease_until = NULL,
			last_failure_code = $6, last_failure_msg = $7, updated_at = now()
			WHERE subscription_id = $1 AND term_end = $2 AND status = 'due' AND declines = $3`,
			j.subID, j.termEnd, j.declines, next, first, d.Code, d.Message)
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
		return kafka.Enqueue(ctx, tx, r.prop, notice)
	})
}

func dunning(n *eventsv1.DunningNotice) (kafka.Event, error) {
	b, err := proto.Marshal(n)
	if err != nil {
		return kafka.Event{}, fmt.Errorf("encode dunning notice: %w", err)
	}
	return kafka.Event{Topic: events.TopicDunningNotice, Key: n.AccountId, Payload: b}, nil
}
