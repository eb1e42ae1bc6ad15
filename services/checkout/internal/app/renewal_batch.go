package app

import (
	"context"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// RenewalReader reads a batch's subscriptions and accounts in one statement each
// (adapters.Store; RenewalOptions.Reader). Without one a batch reads them one by one.
type RenewalReader interface {
	Subscriptions(ctx context.Context, ids []string) (map[string]*domain.Subscription, error)
	Accounts(ctx context.Context, subs []*domain.Subscription) (map[string]domain.Account, error)
}

// renewBatch renews claimed jobs together (renewal season: every claim has work). The
// guarantees are renew's, job by job: the jobs' keys are looked up once, in one
// statement; an attempt whose key was used before (a crash, an outage) goes renew's way
// with the submission found; the others are read in one
// statement each for subscriptions and accounts, their licences asked of the allocation
// service in one call, priced as the renewal price shows them,
// placed with order.PlaceBatch (one claim of their keys, concurrent charges, one order
// transaction) and recorded renewed in one statement.
func (r *Renewer) renewBatch(ctx context.Context, jobs []*RenewalJob) RenewalResult {
	defer r.keepLeases(jobs)()
	res := RenewalResult{Due: len(jobs)}
	keys := make([]string, len(jobs))
	for i, j := range jobs {
		r.m.due()
		if j.Declines > 0 {
			r.m.retried()
		}
		keys[i] = RenewalKey(j.SubID, j.TermEnd, j.Attempt)
	}
	seen, err := r.svc.orders.LookupMany(ctx, keys)
	if err != nil {
		for _, j := range jobs {
			r.failed(ctx, j, err, &res)
		}
		return res
	}
	var fresh []*RenewalJob
	for i, j := range jobs {
		if prev := seen[keys[i]]; prev == nil {
			fresh = append(fresh, j)
		} else if err := r.renew(ctx, j, prev, &res); err != nil {
			r.failed(ctx, j, err, &res)
		}
	}
	if len(fresh) > 0 {
		r.placeBatch(ctx, fresh, &res)
	}
	return res
}

// placeBatch prices and places fresh attempts (no key yet) and records their outcomes.
func (r *Renewer) placeBatch(ctx context.Context, jobs []*RenewalJob, res *RenewalResult) {
	subs, accts, err := r.readBatch(ctx, jobs)
	if err != nil {
		for _, j := range jobs {
			r.failed(ctx, j, err, res)
		}
		return
	}
	// The allocation service is asked once for the whole batch, not once per renewal.
	alloc := r.svc.allocationsOf(ctx, subs)
	var items []order.BatchItem
	var ready []*RenewalJob
	for _, j := range jobs {
		sub := subs[j.SubID]
		var acct *domain.Account
		if a, ok := accts[accountOf(sub)]; ok {
			acct = &a
		}
		pu, settled, err := r.prepare(ctx, j, sub, acct, alloc, res)
		if err != nil {
			r.failed(ctx, j, err, res)
			continue
		}
		if settled {
			continue
		}
		key := RenewalKey(j.SubID, j.TermEnd, j.Attempt)
		items = append(items, order.BatchItem{Key: key, RequestHash: key, Purchase: pu, Payment: order.Payment{Token: j.Token}})
		ready = append(ready, j)
	}
	var renewed []Renewed
	for n, out := range r.svc.orders.PlaceBatch(ctx, items) {
		j := ready[n]
		if out.Err == nil {
			renewed = append(renewed, Renewed{Job: j, InvoiceID: out.Placed.InvoiceID, Currency: out.Placed.Currency, Total: out.Placed.TotalInCents})
			continue
		}
		if err := r.outcome(ctx, j, subs[j.SubID], items[n].Purchase, out.Placed, out.Err, res); err != nil {
			r.failed(ctx, j, err, res)
		}
	}
	if err := r.finishBatch(ctx, renewed, res); err != nil {
		for _, x := range renewed {
			r.failed(ctx, x.Job, err, res)
		}
	}
}

func accountOf(sub *domain.Subscription) string {
	if sub == nil {
		return ""
	}
	return sub.AccountID
}

// readBatch reads the jobs' subscriptions and their accounts (nil accounts: price reads
// each itself).
func (r *Renewer) readBatch(ctx context.Context, jobs []*RenewalJob) (map[string]*domain.Subscription, map[string]domain.Account, error) {
	br := r.o.Reader
	if br == nil {
		subs := make(map[string]*domain.Subscription, len(jobs))
		for _, j := range jobs {
			sub, err := r.svc.store.Subscription(ctx, j.SubID)
			if err != nil {
				return nil, nil, err
			}
			subs[j.SubID] = sub
		}
		return subs, nil, nil
	}
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.SubID
	}
	subs, err := br.Subscriptions(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	list := make([]*domain.Subscription, 0, len(subs))
	for _, s := range subs {
		list = append(list, s)
	}
	accts, err := br.Accounts(ctx, list)
	if err != nil {
		return nil, nil, err
	}
	return subs, accts, nil
}

// finishBatch is finish("renewed") for many jobs in one statement; each term is counted
// once, when its row turns renewed.
func (r *Renewer) finishBatch(ctx context.Context, done []Renewed, res *RenewalResult) error {
	if len(done) == 0 {
		return nil
	}
	turned, err := r.store.FinishRenewed(ctx, done)
	if err != nil {
		return err
	}
	for _, x := range turned {
		res.Renewed++
		r.m.renewed(x.Currency, x.Total)
	}
	return nil
}
