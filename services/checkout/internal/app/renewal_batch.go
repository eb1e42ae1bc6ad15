package app

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// batchReader is the store's batch reads (adapters.Store); without them a batch reads its
// subscriptions and accounts one by one.
type batchReader interface {
	Subscriptions(ctx context.Context, ids []string) (map[string]*domain.Subscription, error)
	Accounts(ctx context.Context, subs []*domain.Subscription) (map[string]domain.Account, error)
}

// renewBatch renews claimed jobs together (renewal season: every claim has work). The
// guarantees are renew's, job by job: an attempt whose key was used before (a crash, an
// outage) goes renew's way, which looks the key up first; the others are read in one
// statement each for subscriptions and accounts, priced as the renewal price shows them,
// placed with order.PlaceBatch (one claim of their keys, concurrent charges, one order
// transaction) and recorded renewed in one statement.
func (r *Renewer) renewBatch(ctx context.Context, jobs []*renewalJob) RenewalResult {
	defer r.keepLeases(jobs)()
	res := RenewalResult{Due: len(jobs)}
	keys := make([]string, len(jobs))
	for i, j := range jobs {
		r.m.due()
		if j.declines > 0 {
			r.m.retried()
		}
		keys[i] = RenewalKey(j.subID, j.termEnd, j.attempt)
	}
	seen, err := r.svc.orders.Seen(ctx, keys)
	if err != nil {
		for _, j := range jobs {
			r.failed(ctx, j, err, &res)
		}
		return res
	}
	var fresh []*renewalJob
	for i, j := range jobs {
		if !seen[keys[i]] {
			fresh = append(fresh, j)
		} else if err := r.renew(ctx, j, &res); err != nil {
			r.failed(ctx, j, err, &res)
		}
	}
	if len(fresh) > 0 {
		r.placeBatch(ctx, fresh, &res)
	}
	return res
}

// placeBatch prices and places fresh attempts (no key yet) and records their outcomes.
func (r *Renewer) placeBatch(ctx context.Context, jobs []*renewalJob, res *RenewalResult) {
	subs, accts, err := r.readBatch(ctx, jobs)
	if err != nil {
		for _, j := range jobs {
			r.failed(ctx, j, err, res)
		}
		return
	}
	var items []order.BatchItem
	var ready []*renewalJob
	for _, j := range jobs {
		sub := subs[j.subID]
		var acct *domain.Account
		if a, ok := accts[accountOf(sub)]; ok {
			acct = &a
		}
		pu, settled, err := r.prepare(ctx, j, sub, acct, res)
		if err != nil {
			r.failed(ctx, j, err, res)
			continue
		}
		if settled {
			continue
		}
		key := RenewalKey(j.subID, j.termEnd, j.attempt)
		items = append(items, order.BatchItem{Key: key, RequestHash: key, Purchase: pu, Payment: order.Payment{Token: j.token}})
		ready = append(ready, j)
	}
	var renewed []renewedJob
	for n, out := range r.svc.orders.PlaceBatch(ctx, items) {
		j := ready[n]
		if out.Err == nil {
			renewed = append(renewed, renewedJob{j: j, placed: out.Placed})
			continue
		}
		if err := r.outcome(ctx, j, subs[j.subID], items[n].Purchase, out.Placed, out.Err, res); err != nil {
			r.failed(ctx, j, err, res)
		}
	}
	if err := r.finishBatch(ctx, renewed, res); err != nil {
		for _, x := range renewed {
			r.failed(ctx, x.j, err, res)
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
func (r *Renewer) readBatch(ctx context.Context, jobs []*renewalJob) (map[string]*domain.Subscription, map[string]domain.Account, error) {
	br, ok := r.svc.store.(batchReader)
	if !ok {
		subs := make(map[string]*domain.Subscription, len(jobs))
		for _, j := range jobs {
			sub, err := r.svc.store.Subscription(ctx, j.subID)
			if err != nil {
				return nil, nil, err
			}
			subs[j.subID] = sub
		}
		return subs, nil, nil
	}
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.subID
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

// renewedJob is a job whose order was written (or found written).
type renewedJob struct {
	j      *renewalJob
	placed *order.Placed
}

// finishBatch is finish("renewed") for many jobs in one statement; each term is counted
// once, when its row turns renewed.
func (r *Renewer) finishBatch(ctx context.Context, done []renewedJob, res *RenewalResult) error {
	if len(done) == 0 {
		return nil
	}
	ids, ends, invoices := make([]string, len(done)), make([]time.Time, len(done)), make([]string, len(done))
	byKey := make(map[string]*order.Placed, len(done))
	for n, x := range done {
		ids[n], ends[n], invoices[n] = x.j.subID, x.j.termEnd, x.placed.InvoiceID
		byKey[x.j.subID+"|"+x.j.termEnd.UTC().Format(time.RFC3339Nano)] = x.placed
	}
	rows, err := r.pool.Query(ctx, `UPDATE renewals rn SET status = 'renewed', invoice_id = u.inv::uuid, lease_until = NULL, enqueued_until = NULL,
			updated_at = now()
		FROM unnest($1::text[], $2::timestamptz[], $3::text[]) AS u(id, te, inv)
		WHERE rn.subscription_id = u.id::uuid AND rn.term_end = u.te AND rn.status = 'due'
		RETURNING rn.subscription_id::text, rn.term_end`, ids, ends, invoices)
	if err != nil {
		return fmt.Errorf("record renewals: %w", err)
	}
	var id string
	var end time.Time
	_, err = pgx.ForEachRow(rows, []any{&id, &end}, func() error {
		res.Renewed++
		if pl := byKey[id+"|"+end.UTC().Format(time.RFC3339Nano)]; pl != nil {
			r.m.renewed(pl.Currency, pl.TotalInCents)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record renewals: %w", err)
	}
	return nil
}
