package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/kafka"
)

// ScheduleResult counts what one scheduler tick did.
type ScheduleResult struct {
	// Recorded terms (due renewals: the workers' queue), Ending (auto-renew off, told),
	// Ended (lapsed at the end of a term not renewed), Reminders and CardNotices sent.
	Recorded, Ending, Ended, Reminders, CardNotices int
	// Skipped: another replica held the scheduler lock.
	Skipped bool
}

// batchStep does one batch of a scheduler step in tx and answers how many rows it handled
// (0: the step is done for this tick).
type batchStep func(ctx context.Context, tx RenewalTx, now time.Time) (int, error)

// Schedule is one tick of the scheduled pass: it records the terms ending within the
// window (the due ones are the renewal workers' queue), tells auto-renew-off subscribers,
// ends terms that were not renewed, and sends the annual renewal reminders and card-expiry
// notices. Every replica may call it; the advisory lock lets one record at a time.
func (r *Renewer) Schedule(ctx context.Context) (ScheduleResult, error) {
	var out ScheduleResult
	var res RenewalResult
	steps := []struct {
		n    *int
		step batchStep
	}{
		{&out.Recorded, r.recordDue},
		{&out.Ending, func(ctx context.Context, tx RenewalTx, now time.Time) (int, error) {
			return r.recordEnding(ctx, tx, now, &res)
		}},
		{&out.Ended, r.endTerms},
		{&out.Reminders, r.remind},
		{&out.CardNotices, r.cardNotices},
	}
	for i, s := range steps {
		n, locked, err := r.batches(ctx, true, s.step)
		*s.n += n
		if i == 0 && n > 0 {
			r.due.fire() // committed: the workers claim what is due now rather than at their poll
		}
		if err != nil {
			return out, err
		}
		if !locked {
			out.Skipped = true
			return out, nil
		}
	}
	return out, nil
}

// batches runs step, one transaction per batch, until a batch is not full; with lock, each
// batch first takes the scheduler's lock (locked false: another replica holds it).
func (r *Renewer) batches(ctx context.Context, lock bool, step batchStep) (total int, locked bool, err error) {
	for {
		var n int
		locked, err = r.store.InTx(ctx, lock, func(tx RenewalTx) error {
			var err error
			n, err = step(ctx, tx, r.svc.now())
			return err
		})
		if err != nil || !locked {
			return total, locked, err
		}
		total += n
		if n < r.o.Batch {
			return total, true, nil
		}
	}
}

// record runs the recording steps without the lock (the direct pass).
func (r *Renewer) record(ctx context.Context, res *RenewalResult) (int, error) {
	total := 0
	for _, step := range []batchStep{r.recordDue, func(ctx context.Context, tx RenewalTx, now time.Time) (int, error) {
		return r.recordEnding(ctx, tx, now, res)
	}} {
		n, _, err := r.batches(ctx, false, step)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// expireEnded runs endTerms without the lock (the direct pass).
func (r *Renewer) expireEnded(ctx context.Context, res *RenewalResult) error {
	n, _, err := r.batches(ctx, false, r.endTerms)
	res.Lapsed += n
	return err
}

// recordDue records the auto-renewing terms ending within the window, once each.
func (r *Renewer) recordDue(ctx context.Context, tx RenewalTx, now time.Time) (int, error) {
	return tx.RecordDue(ctx, now.Add(r.o.Window), now)
}

// recordEnding records the terms with auto-renew off ending within the window ('ending':
// never charged) and tells each subscriber once, in the same transaction, that the
// subscription ends on its date.
func (r *Renewer) recordEnding(ctx context.Context, tx RenewalTx, now time.Time, res *RenewalResult) (int, error) {
	list, err := tx.RecordEnding(ctx, now.Add(r.o.Window), now, r.o.Batch)
	if err != nil {
		return 0, err
	}
	evs := make([]kafka.Event, 0, len(list))
	for _, e := range list {
		ev, err := dunning(&eventsv1.DunningNotice{AccountId: e.AccountID, Email: e.Email, Kind: "auto-renew-off", SubscriptionId: e.SubscriptionID,
			Amount: &eventsv1.Money{AmountInCents: e.PriceInCents, Currency: e.Currency}, Date: timestamppb.New(e.TermEnd), ActionUrl: r.o.ActionURL})
		if err != nil {
			return 0, err
		}
		evs = append(evs, ev)
	}
	if err := tx.Enqueue(ctx, evs...); err != nil {
		return 0, fmt.Errorf("publish auto-renew-off: %w", err)
	}
	res.Ending += len(evs)
	return len(evs), nil
}

// endTerms lapses the subscriptions whose term ended without a renewal because auto-renew
// was off ('ending' rows): subscription-changed (status lapsed) lets their entitlements
// and allocations expire. The row turns 'ended', so each term ends once.
func (r *Renewer) endTerms(ctx context.Context, tx RenewalTx, now time.Time) (int, error) {
	list, err := tx.EndTerms(ctx, now, r.o.Batch)
	if err != nil {
		return 0, err
	}
	for _, e := range list {
		if !e.Lapse {
			continue // renewed by a checkout meanwhile, or auto-renew turned back on
		}
		sub, err := r.svc.store.Subscription(ctx, e.SubscriptionID)
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

// remind sends the reminder before an annual renewal (a term of 11 months or more), once
// per term, ReminderBefore ahead, with the renewal's amount and date (the disclosure shown
// at checkout: the renewal price as the pass will charge it).
func (r *Renewer) remind(ctx context.Context, tx RenewalTx, now time.Time) (int, error) {
	if r.o.ReminderBefore < 0 {
		return 0, nil
	}
	ids, err := tx.RecordReminders(ctx, now, now.Add(r.o.ReminderBefore), r.o.Batch)
	if err != nil {
		return 0, err
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
	if err := tx.Enqueue(ctx, evs...); err != nil {
		return 0, fmt.Errorf("publish renewal reminders: %w", err)
	}
	r.m.notices("renewal-reminder", len(evs))
	return len(ids), nil
}

// cardNotices tells, once per term and CardNoticeBefore ahead, the subscribers whose
// stored card expires before (or on) the renewal date.
func (r *Renewer) cardNotices(ctx context.Context, tx RenewalTx, now time.Time) (int, error) {
	if r.o.CardNoticeBefore < 0 {
		return 0, nil
	}
	list, err := tx.RecordCardNotices(ctx, now, now.Add(r.o.CardNoticeBefore), r.o.Batch)
	if err != nil {
		return 0, err
	}
	evs := make([]kafka.Event, 0, len(list))
	for _, e := range list {
		ev, err := dunning(&eventsv1.DunningNotice{AccountId: e.AccountID, Email: e.Email, Kind: "card-expiring", SubscriptionId: e.SubscriptionID,
			Date: timestamppb.New(e.TermEnd), ActionUrl: r.o.ActionURL})
		if err != nil {
			return 0, err
		}
		evs = append(evs, ev)
	}
	if err := tx.Enqueue(ctx, evs...); err != nil {
		return 0, fmt.Errorf("publish card notices: %w", err)
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
		} else if res.Recorded+res.Ending+res.Ended+res.Reminders+res.CardNotices > 0 {
			r.log.InfoContext(ctx, "renewal scheduler", "recorded", res.Recorded, "ending", res.Ending,
				"ended", res.Ended, "reminders", res.Reminders, "card_notices", res.CardNotices)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RunWorkers runs n renewal workers until ctx ends (every replica runs them). The due
// renewals rows are the queue: a worker claims ClaimBatch of them (FOR UPDATE SKIP LOCKED,
// one lease per row), renews them as the direct pass does, and claims again; when none is
// due it waits poll, or less when this process makes renewals due (the scheduler recorded
// some, a payment-method update made a renewal in its grace period due now): those wake
// every worker once committed. What poll is left for: rows that fall due as time passes
// (a retry's date), another replica's, and a dead worker's once their lease ends.
func (r *Renewer) RunWorkers(ctx context.Context, n int, poll time.Duration) {
	var wg sync.WaitGroup
	for range max(n, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work(ctx, poll)
		}()
	}
	wg.Wait()
}

func (r *Renewer) work(ctx context.Context, poll time.Duration) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for ctx.Err() == nil {
		woken := r.due.wait() // before the claim: what is made due after it wakes this worker
		jobs, err := r.store.Claim(ctx, r.svc.now(), r.o.Lease, r.o.ClaimBatch)
		if err != nil && ctx.Err() == nil {
			r.log.ErrorContext(ctx, "claim renewals failed; will retry", "err", err.Error())
		}
		if len(jobs) > 0 {
			r.renewBatch(ctx, jobs)
			continue
		}
		select {
		case <-ctx.Done():
		case <-t.C:
		case <-woken:
		}
	}
}

// ApplyMethodUpdates keeps the accounts' card subscriptions' stored method (token and card
// expiry) in step with a method changed elsewhere, and makes a renewal in its grace period
// (a declined renewal still due) due now, so a worker retries it at once. ups are in their
// order per account (payments' events, keyed by account): an account's last one is its
// method on file, and applying only that one leaves what applying each in turn would.
// Run in tx, the consumer's inbox transaction: the batch costs two statements in one round
// trip.
func (r *Renewer) ApplyMethodUpdates(ctx context.Context, tx RenewalTx, ups []MethodUpdate) error {
	at := map[string]int{}
	var last []MethodUpdate
	for _, u := range ups {
		if u.AccountID == "" || u.Token == "" {
			continue // check billing (no token): nothing a card renewal can use
		}
		if i, ok := at[u.AccountID]; ok {
			last[i] = u
			continue
		}
		at[u.AccountID] = len(last)
		last = append(last, u)
	}
	if len(last) == 0 {
		return nil
	}
	retried, err := tx.UpdateMethods(ctx, last, r.svc.now())
	if err != nil {
		return err
	}
	if len(retried) > 0 && !kafka.AfterCommit(ctx, r.due.fire) {
		r.due.fire() // not in a consumer's transaction (a test's): a worker claims them once it commits
	}
	perAccount := map[string]int{}
	for _, rt := range retried {
		perAccount[rt.AccountID]++
	}
	for _, u := range last {
		if n := perAccount[u.AccountID]; n > 0 {
			r.log.InfoContext(ctx, "payment method updated in grace period: renewal retried now", "account", u.AccountID, "renewals", n)
		}
	}
	return nil
}
