package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
)

// schedulerLock is the PostgreSQL advisory lock (transaction-scoped) that decides which
// replica's scheduler enqueues: every replica runs the scheduler; the one that gets the
// lock does a batch, the others skip that batch. The batch itself is idempotent (ON
// CONFLICT, conditional updates), so the lock spares work rather than guarding
// correctness.
const schedulerLock = 0x68616e6761723137 // "hangar17"

// ScheduleResult counts what one scheduler tick did.
type ScheduleResult struct {
	// Recorded terms (due renewals), Ending (auto-renew off, told), Ended (lapsed at the
	// end of a term not renewed), Jobs published, Reminders and CardNotices sent.
	Recorded, Ending, Ended, Jobs, Reminders, CardNotices int
	// Skipped: another replica held the scheduler lock.
	Skipped bool
}

// batchStep does one batch of a scheduler step in tx and answers how many rows it handled
// (0: the step is done for this tick).
type batchStep func(ctx context.Context, tx pgx.Tx, now time.Time) (int, error)

// Schedule is one tick of the scheduled pass: it records the terms ending within the
// window, tells auto-renew-off subscribers, ends terms that were not renewed, publishes a
// renewal-due job (keyed by subscription) for every due attempt not in flight, and sends
// the annual renewal reminders and card-expiry notices. Every replica may call it; the
// advisory lock lets one enqueue at a time.
func (r *Renewer) Schedule(ctx context.Context) (ScheduleResult, error) {
	var out ScheduleResult
	var res RenewalResult
	steps := []struct {
		n    *int
		step batchStep
	}{
		{&out.Recorded, r.recordDue},
		{&out.Ending, func(ctx context.Context, tx pgx.Tx, now time.Time) (int, error) {
			return r.recordEnding(ctx, tx, now, &res)
		}},
		{&out.Ended, r.endTerms},
		{&out.Jobs, r.publishJobs},
		{&out.Reminders, r.remind},
		{&out.CardNotices, r.cardNotices},
	}
	for _, s := range steps {
		for {
			var n int
			locked := true
			err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
				if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, int64(schedulerLock)).Scan(&locked); err != nil || !locked {
					return err
				}
				var err error
				n, err = s.step(ctx, tx, r.svc.now())
				return err
			})
			if err != nil {
				return out, err
			}
			if !locked {
				out.Skipped = true
				return out, nil
			}
			*s.n += n
			if n < r.o.Batch {
				break
			}
		}
	}
	return out, nil
}

// record runs the recording steps without the lock (the direct pass).
func (r *Renewer) record(ctx context.Context, res *RenewalResult) (int, error) {
	total := 0
	for _, step := range []batchStep{r.recordDue, func(ctx context.Context, tx pgx.Tx, now time.Time) (int, error) {
		return r.recordEnding(ctx, tx, now, res)
	}} {
		for {
			var n int
			err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
				var err error
				n, err = step(ctx, tx, r.svc.now())
				return err
			})
			if err != nil {
				return total, err
			}
			total += n
			if n < r.o.Batch {
				break
			}
		}
	}
	return total, nil
}

// expireEnded runs endTerms without the lock (the direct pass).
func (r *Renewer) expireEnded(ctx context.Context, res *RenewalResult) error {
	for {
		var n int
		err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
			var err error
			n, err = r.endTerms(ctx, tx, r.svc.now())
			return err
		})
		if err != nil {
			return err
		}
		res.Lapsed += n
		if n < r.o.Batch {
			return nil
		}
	}
}

// recordDue records the auto-renewing terms ending within the window, once each (the
// renewals primary key). One statement, not batches: the anti-join over the due set is
// one hash join, where LIMIT batches would scan the recorded rows again each time.
func (r *Renewer) recordDue(ctx context.Context, tx pgx.Tx, now time.Time) (int, error) {
	tag, err := tx.Exec(ctx, `INSERT INTO renewals (subscription_id, term_end, next_attempt_at)
		SELECT s.id, s.term_end, $2 FROM subscriptions s WHERE `+dueFilter+` AND s.auto_renew
			AND NOT EXISTS (SELECT 1 FROM renewals rn WHERE rn.subscription_id = s.id AND rn.term_end = s.term_end)
		ON CONFLICT DO NOTHING`, now.Add(r.o.Window), now)
	if err != nil {
		return 0, fmt.Errorf("record due renewals: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// recordEnding records the terms with auto-renew off ending within the window ('ending':
// never charged) and tells each subscriber once, in the same transaction, that the
// subscription ends on its date.
func (r *Renewer) recordEnding(ctx context.Context, tx pgx.Tx, now time.Time, res *RenewalResult) (int, error) {
	rows, err := tx.Query(ctx, `WITH ins AS (
			INSERT INTO renewals (subscription_id, term_end, next_attempt_at, status)
			SELECT s.id, s.term_end, $2, 'ending' FROM subscriptions s WHERE `+dueFilter+` AND NOT s.auto_renew
				AND NOT EXISTS (SELECT 1 FROM renewals rn WHERE rn.subscription_id = s.id AND rn.term_end = s.term_end)
			LIMIT $3
			ON CONFLICT DO NOTHING RETURNING subscription_id)
		SELECT s.id::text, s.account_id::text, s.email, s.currency, s.price_in_cents, s.term_end FROM ins JOIN subscriptions s ON s.id = ins.subscription_id`,
		now.Add(r.o.Window), now, r.o.Batch)
	if err != nil {
		return 0, fmt.Errorf("record ending subscriptions: %w", err)
	}
	var evs []kafka.Event
	for rows.Next() {
		var id, acct, email, cur string
		var price int64
		var end time.Time
		if err := rows.Scan(&id, &acct, &email, &cur, &price, &end); err != nil {
			rows.Close()
			return 0, fmt.Errorf("read ending subscription: %w", err)
		}
		ev, err := dunning(&eventsv1.DunningNotice{AccountId: acct, Email: email, Kind: "auto-renew-off", SubscriptionId: id,
			Amount: &eventsv1.Money{AmountInCents: price, Currency: cur}, Date: timestamppb.New(end), ActionUrl: r.o.ActionURL})
		if err != nil {
			rows.Close()
			return 0, err
		}
		evs = append(evs, ev)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read ending subscriptions: %w", err)
	}
	if len(evs) > 0 {
		if err := kafka.Enqueue(ctx, tx, r.prop, evs...); err != nil {
			return 0, fmt.Errorf("publish auto-renew-off: %w", err)
		}
	}
	res.Ending += len(evs)
	return len(evs), nil
}

// endTerms lapses the subscriptions whose term ended without a renewal because auto-renew
// was off ('ending' rows): subscription-changed (status lapsed) lets their entitlements
// and allocations expire. The row turns 'ended', so each term ends once.
func (r *Renewer) endTerms(ctx context.Context, tx pgx.Tx, now time.Time) (int, error) {
	rows, err := tx.Query(ctx, `UPDATE renewals rn SET status = 'ended', updated_at = now()
		FROM subscriptions s WHERE rn.status = 'ending' AND rn.term_end <= $1 AND s.id = rn.subscription_id
			AND (rn.subscription_id, rn.term_end) IN (SELECT subscription_id, term_end FROM renewals
				WHERE status = 'ending' AND term_end <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
		RETURNING rn.subscription_id::text, s.term_end = rn.term_end AND s.valid AND s.lapsed_at IS NULL AND NOT s.auto_renew`, now, r.o.Batch)
	if err != nil {
		return 0, fmt.Errorf("end terms: %w", err)
	}
	type ended struct {
		id    string
		lapse bool
	}
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ended, error) {
		var e ended
		return e, row.Scan(&e.id, &e.lapse)
	})
	if err != nil {
		return 0, fmt.Errorf("end terms: %w", err)
	}
	for _, e := range list {
		if !e.lapse {
			continue // renewed by a checkout meanwhile, or auto-renew turned back on
		}
		sub, err := r.svc.store.Subscription(ctx, e.id)
		if err != nil || sub == nil {
			return 0, fmt.Errorf("read ended subscription: %w", errors.Join(err, errors.New("gone")))
		}
		if err := r.lapse(ctx, tx, sub, now, "term-ended"); err != nil {
			return 0, err
		}
		r.m.lapsed("auto_renew_off")
	}
	return len(list), nil
}

// publishJobs publishes a renewal-due job (key: the subscription id) for every due attempt
// that is not in flight, through the outbox in the transaction that marks it in flight.
// The consumer group spreads the jobs over the replicas by partition.
func (r *Renewer) publishJobs(ctx context.Context, tx pgx.Tx, now time.Time) (int, error) {
	// Two index scans (renewals_unpublished, renewals_in_flight): never-published rows by
	// due time, then jobs whose flight expired; a published row leaves the first index.
	rows, err := tx.Query(ctx, `WITH fresh AS (SELECT subscription_id, term_end FROM renewals
			WHERE status = 'due' AND enqueued_until IS NULL AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < clock_timestamp())
			ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED),
		expired AS (SELECT subscription_id, term_end FROM renewals
			WHERE status = 'due' AND enqueued_until IS NOT NULL AND enqueued_until < $1 AND next_attempt_at <= $1
				AND (lease_until IS NULL OR lease_until < clock_timestamp())
			ORDER BY enqueued_until LIMIT $3 FOR UPDATE SKIP LOCKED)
		UPDATE renewals SET enqueued_until = $2
		WHERE (subscription_id, term_end) IN (SELECT * FROM fresh UNION ALL SELECT * FROM expired)
		RETURNING subscription_id::text, term_end, attempt`, now, now.Add(r.o.JobLease), r.o.Batch)
	if err != nil {
		return 0, fmt.Errorf("claim renewal jobs: %w", err)
	}
	evs, err := renewalDueEvents(rows)
	if err != nil {
		return 0, fmt.Errorf("read renewal jobs: %w", err)
	}
	if len(evs) > 0 {
		if err := kafka.Enqueue(ctx, tx, r.prop, evs...); err != nil {
			return 0, fmt.Errorf("publish renewal jobs: %w", err)
		}
	}
	return len(evs), nil
}

func renewalDue(subID string, termEnd time.Time, attempt int32) (kafka.Event, error) {
	b, err := proto.Marshal(&eventsv1.RenewalDue{SubscriptionId: subID, TermEnd: timestamppb.New(termEnd), Attempt: attempt})
	if err != nil {
		return kafka.Event{}, fmt.Errorf("encode renewal job: %w", err)
	}
	return kafka.Event{Topic: events.TopicRenewalDue, Key: subID, Payload: b}, nil
}

// renewableFilter: card-paid, valid, auto-renewing subscriptions (the ones a renewal
// will charge), whatever their term end.
const renewableFilter = `s.valid AND s.lapsed_at IS NULL AND s.payment_method = 'CREDIT_CARD' AND s.payment_source = 'CREDIT_CARD'
	AND s.auto_renew`

// remind sends the reminder before an annual renewal (a term of 11 months or more), once
// per term, ReminderBefore ahead, with the renewal's amount and date (the disclosure shown
// at checkout: the renewal price as the pass will charge it).
func (r *Renewer) remind(ctx context.Context, tx pgx.Tx, now time.Time) (int, error) {
	if r.o.ReminderBefore < 0 {
		return 0, nil
	}
	rows, err := tx.Query(ctx, `INSERT INTO renewal_notices (subscription_id, term_end, kind)
		SELECT s.id, s.term_end, 'renewal-reminder' FROM subscriptions s
		WHERE `+renewableFilter+` AND s.term_end > $1 AND s.term_end <= $2 AND s.term_end >= s.term_start + interval '11 months'
			AND NOT EXISTS (SELECT 1 FROM renewal_notices n WHERE n.subscription_id = s.id AND n.term_end = s.term_end AND n.kind = 'renewal-reminder')
		LIMIT $3
		ON CONFLICT DO NOTHING RETURNING subscription_id::text`, now, now.Add(r.o.ReminderBefore), r.o.Batch)
	if err != nil {
		return 0, fmt.Errorf("record renewal reminders: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, fmt.Errorf("record renewal reminders: %w", err)
	}
	evs := make([]kafka.Event, 0, len(ids))
	for _, id := range ids {
		sub, err := r.svc.store.Subscription(ctx, id)
		if err != nil || sub == nil {
			return 0, fmt.Errorf("read subscription to remind: %w", errors.Join(err, errors.New("gone")))
		}
		pv, err := r.svc.RenewalPrice(ctx, id)
		if err != nil {
			return 0, fmt.Errorf("price renewal reminder of %s: %w", id, err)
		}
		ev, err := dunning(&eventsv1.DunningNotice{AccountId: sub.AccountID, Email: sub.Email, Kind: "renewal-reminder", SubscriptionId: id,
			Amount: &eventsv1.Money{AmountInCents: pv.Invoice.TotalInCents, Currency: pv.Invoice.Currency}, Date: timestamppb.New(sub.TermEnd),
			ActionUrl: r.o.ActionURL})
		if err != nil {
			return 0, err
		}
		evs = append(evs, ev)
	}
	if len(evs) > 0 {
		if err := kafka.Enqueue(ctx, tx, r.prop, evs...); err != nil {
			return 0, fmt.Errorf("publish renewal reminders: %w", err)
		}
	}
	r.m.notices("renewal-reminder", len(evs))
	return len(ids), nil
}

// cardNotices tells, once per term and CardNoticeBefore ahead, the subscribers whose
// stored card expires before (or on) the renewal date.
func (r *Renewer) cardNotices(ctx context.Context, tx pgx.Tx, now time.Time) (int, error) {
	if r.o.CardNoticeBefore < 0 {
		return 0, nil
	}
	rows, err := tx.Query(ctx, `WITH ins AS (
			INSERT INTO renewal_notices (subscription_id, term_end, kind)
			SELECT s.id, s.term_end, 'card-expiring' FROM subscriptions s
			WHERE `+renewableFilter+` AND s.term_end > $1 AND s.term_end <= $2 AND s.card_expires_at IS NOT NULL AND s.card_expires_at <= s.term_end
				AND NOT EXISTS (SELECT 1 FROM renewal_notices n WHERE n.subscription_id = s.id AND n.term_end = s.term_end AND n.kind = 'card-expiring')
			LIMIT $3
			ON CONFLICT DO NOTHING RETURNING subscription_id)
		SELECT s.id::text, s.account_id::text, s.email, s.term_end FROM ins JOIN subscriptions s ON s.id = ins.subscription_id`,
		now, now.Add(r.o.CardNoticeBefore), r.o.Batch)
	if err != nil {
		return 0, fmt.Errorf("record card notices: %w", err)
	}
	var evs []kafka.Event
	for rows.Next() {
		var id, acct, email string
		var end time.Time
		if err := rows.Scan(&id, &acct, &email, &end); err != nil {
			rows.Close()
			return 0, fmt.Errorf("read card notice: %w", err)
		}
		ev, err := dunning(&eventsv1.DunningNotice{AccountId: acct, Email: email, Kind: "card-expiring", SubscriptionId: id,
			Date: timestamppb.New(end), ActionUrl: r.o.ActionURL})
		if err != nil {
			rows.Close()
			return 0, err
		}
		evs = append(evs, ev)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read card notices: %w", err)
	}
	if len(evs) > 0 {
		if err := kafka.Enqueue(ctx, tx, r.prop, evs...); err != nil {
			return 0, fmt.Errorf("publish card notices: %w", err)
		}
	}
	r.m.notices("card-expiring", len(evs))
	return len(evs), nil
}

// RunScheduler runs Schedule every interval until ctx ends (every replica runs it).
func (r *Renewer) RunScheduler(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if res, err := r.Schedule(ctx); err != nil && ctx.Err() == nil {
			r.log.ErrorContext(ctx, "renewal scheduler failed; will retry", "err", err.Error())
		} else if res.Jobs+res.Recorded+res.Ending+res.Ended+res.Reminders+res.CardNotices > 0 {
			r.log.InfoContext(ctx, "renewal scheduler", "recorded", res.Recorded, "jobs", res.Jobs, "ending", res.Ending,
				"ended", res.Ended, "reminders", res.Reminders, "card_notices", res.CardNotices)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RenewalGroup is the consumer group of the renewal workers: every replica joins it, so
// the renewal-due partitions (and a dead replica's) are shared among the live ones.
const RenewalGroup = "checkout-renewals"

// HandleJobs is the renewal workers' handler of renewal-due jobs (an InboxBatchHandler):
// the batch's jobs are claimed in one statement and renewed together as the direct pass
// renews a claimed batch (renewBatch: one read of their subscriptions and accounts,
// order.PlaceBatch, one statement recording them renewed). The renewals run outside tx
// (they call payments; their own guards make them exactly once per term: the renewals
// row's lease and attempt, the order key); a stale job (renewed, declined meanwhile, in
// another worker's hands) is acknowledged and nothing done. Failures other than the
// database's are recorded on the rows and retried by the scheduler, so only those make
// the inbox retry the events. The workers run it with EffectsOutsideTx (tx is nil): a
// worker holds no connection while its batch takes the ones it needs.
func (r *Renewer) HandleJobs(ctx context.Context, _ pgx.Tx, envs []kafka.Envelope) error {
	want := make([]*eventsv1.RenewalDue, 0, len(envs))
	for _, env := range envs {
		var job eventsv1.RenewalDue
		if err := env.Decode(&job); err != nil {
			return err
		}
		want = append(want, &job)
	}
	jobs, err := r.claimJobs(ctx, want)
	if err != nil || len(jobs) == 0 {
		return err
	}
	r.renewBatch(ctx, jobs)
	return nil
}

// Consumers builds n renewal workers (members of RenewalGroup; n > 1 works several
// partitions of this replica at once), each taking its jobs ClaimBatch at a time. cfg's
// Group and Inbox are set here.
func (r *Renewer) Consumers(cfg kafka.ConsumerConfig, n int) []*kafka.InboxBatchConsumer {
	cfg.Group, cfg.Inbox = RenewalGroup, RenewalGroup
	out := make([]*kafka.InboxBatchConsumer, 0, max(n, 1))
	for range max(n, 1) {
		out = append(out, kafka.NewInboxBatchConsumer(cfg, events.TopicRenewalDue, r.HandleJobs, kafka.BatchOptions{Max: r.o.ClaimBatch, EffectsOutsideTx: true}))
	}
	return out
}

// PaymentMethodsGroup is checkout's consumer group of payments' payment-method-updated.
const PaymentMethodsGroup = "checkout-payment-methods"

// PaymentMethodsConsumer builds the consumer of payments' payment-method-updated (group and
// inbox PaymentMethodsGroup; cfg's Group and Inbox are set here), which hands the events
// to HandlePaymentMethodUpdates in batches: every order's card vaulting emits one, so one
// transaction per batch instead of one per event.
func (r *Renewer) PaymentMethodsConsumer(cfg kafka.ConsumerConfig) *kafka.InboxBatchConsumer {
	cfg.Group, cfg.Inbox = PaymentMethodsGroup, PaymentMethodsGroup
	return kafka.NewInboxBatchConsumer(cfg, events.TopicPaymentMethodUpdated, r.HandlePaymentMethodUpdates, kafka.BatchOptions{})
}

// HandlePaymentMethodUpdates keeps the accounts' card subscriptions' stored method (token
// and card expiry) in step with payments, and retries at once a renewal in its grace period
// (a declined renewal still due): a job is published for it (an InboxBatchHandler). The
// events are payments', keyed by account, so an account's events arrive in their order
// and its last one in envs is its method on file: applying only that one leaves what
// applying each in turn would (a check-billing event, with no token, changes nothing and
// does not count as the last). The whole batch costs two statements in one round trip,
// plus the outbox insert when a renewal is retried.
func (r *Renewer) HandlePaymentMethodUpdates(ctx context.Context, tx pgx.Tx, envs []kafka.Envelope) error {
	at := map[string]int{}
	var accounts, tokens []string
	var expiries []*time.Time
	for _, env := range envs {
		var ev eventsv1.PaymentMethodUpdated
		if err := env.Decode(&ev); err != nil {
			return err
		}
		if ev.GetAccountId() == "" || ev.GetPaymentMethodToken() == "" {
			continue // check billing (no token): nothing a card renewal can use
		}
		exp := CardExpiry(ev.GetExpirationDate())
		if i, ok := at[ev.GetAccountId()]; ok {
			tokens[i], expiries[i] = ev.GetPaymentMethodToken(), exp
			continue
		}
		at[ev.GetAccountId()] = len(accounts)
		accounts, tokens, expiries = append(accounts, ev.GetAccountId()), append(tokens, ev.GetPaymentMethodToken()), append(expiries, exp)
	}
	if len(accounts) == 0 {
		return nil
	}
	// The accounts also as ANY($1): the planner then finds their subscriptions by the
	// account index whatever it guesses of unnest's rows (a join alone, with statistics
	// older than the table's growth, became a nested loop over every subscription). A
	// subscription already holding the method is left alone: an order's own event (its card
	// vaulted with the charge) names the token and expiry the order wrote, and rewriting
	// the row would only leave a dead version for every order.
	now := r.svc.now()
	var retried []retry
	b := &pgx.Batch{}
	b.Queue(`UPDATE subscriptions s SET payment_method_token = u.token, card_expires_at = u.expires, updated_at = now()
		FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS u(account_id, token, expires)
		WHERE s.account_id = ANY($1) AND s.account_id = u.account_id AND s.payment_method = 'CREDIT_CARD' AND s.payment_source = 'CREDIT_CARD'
		  AND (s.payment_method_token IS DISTINCT FROM u.token OR s.card_expires_at IS DISTINCT FROM u.expires)`,
		accounts, tokens, expiries)
	b.Queue(`UPDATE renewals rn SET next_attempt_at = $2, enqueued_until = $3, updated_at = now()
		FROM subscriptions s WHERE s.id = rn.subscription_id AND s.account_id = ANY($1::uuid[]) AND rn.status = 'due' AND rn.declines > 0
		RETURNING s.account_id::text, rn.subscription_id::text, rn.term_end, rn.attempt`, accounts, now, now.Add(r.o.JobLease)).
		Query(func(rows pgx.Rows) error {
			var err error
			retried, err = pgx.CollectRows(rows, pgx.RowToStructByPos[retry])
			return err
		})
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("store updated payment methods and retry renewals now: %w", err)
	}
	if len(retried) == 0 {
		return nil
	}
	evs := make([]kafka.Event, len(retried))
	perAccount := map[string]int{}
	for i, rt := range retried {
		ev, err := renewalDue(rt.SubscriptionID, rt.TermEnd, rt.Attempt)
		if err != nil {
			return err
		}
		evs[i] = ev
		perAccount[rt.AccountID]++
	}
	if err := kafka.Enqueue(ctx, tx, r.prop, evs...); err != nil {
		return fmt.Errorf("publish renewal retries: %w", err)
	}
	for _, acct := range accounts {
		if n := perAccount[acct]; n > 0 {
			r.log.InfoContext(ctx, "payment method updated in grace period: renewal retried now", "account", acct, "renewals", n)
		}
	}
	return nil
}

// retry is a renewal in its grace period that a payment-method update retries now.
type retry struct {
	AccountID, SubscriptionID string
	TermEnd                   time.Time
	Attempt                   int32
}

// renewalDueEvents turns rows of (subscription id, term end, attempt) into renewal-due jobs:
// what the scheduler's claim's UPDATE ... RETURNING gave back.
func renewalDueEvents(rows pgx.Rows) ([]kafka.Event, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (kafka.Event, error) {
		var id string
		var end time.Time
		var attempt int32
		if err := row.Scan(&id, &end, &attempt); err != nil {
			return kafka.Event{}, err
		}
		return renewalDue(id, end, attempt)
	})
}
