package order

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
)

// BatchFulfiller is a Fulfiller that writes many orders of its kind in one round trip
// (the renewal pass writes its renewals in batches). FulfilBatch answers each order's
// events, in the orders' order; an error rolls the whole batch back.
type BatchFulfiller interface {
	Fulfiller
	FulfilBatch(ctx context.Context, tx Tx, orders []*Placed) ([][]kafka.Event, error)
}

// BatchItem is one purchase of PlaceBatch, with its idempotency key.
type BatchItem struct {
	Key, RequestHash string
	Purchase         *Purchase
	Payment          Payment
}

// BatchResult is PlaceBatch's answer for one item: the order, or the error Place would
// have answered (a DeclinedError, an outage, ErrInProgress).
type BatchResult struct {
	Placed *Placed
	Err    error
}

// chargeConcurrency bounds the payments calls of one batch in flight at once.
const chargeConcurrency = 16

// PlaceBatch places many purchases with the guarantees of Place, each once per key: the
// new keys are claimed in one statement, charged concurrently (each with its own charge
// key, as Place does) and the paid ones written in one transaction. A key seen before, a
// purchase moving balances (promotions, gift certificates, account balance or credit) or
// a kind without a BatchFulfiller goes through Place; when the batch's write fails (an
// unfulfillable order among them), each order is written on its own, so one order cannot
// hold the others back. The answers are in the items' order.
func (p *Pipeline) PlaceBatch(ctx context.Context, items []BatchItem) []BatchResult {
	ctx = context.WithoutCancel(ctx)
	out := make([]BatchResult, len(items))
	var batch []int
	for i, it := range items {
		if p.batchable(it.Purchase) {
			batch = append(batch, i)
		}
	}
	claimed, err := p.claimBatch(ctx, items, batch)
	if err != nil {
		for _, i := range batch {
			out[i].Err = err
		}
		claimed = map[int]bool{}
	}
	for i, it := range items {
		if !claimed[i] && out[i].Err == nil {
			out[i].Placed, out[i].Err = p.Place(ctx, it.Key, it.RequestHash, it.Purchase, it.Payment)
		}
	}
	// The batch's claims are renewed while it charges and writes, as Place renews its one
	// claim: a batch slower than a lease (a slow processor, 16 charges at a time) keeps
	// its keys instead of seeing the reconciler close them under it.
	held := make([]Held, 0, len(claimed))
	for i := range claimed {
		held = append(held, Held{Key: items[i].Key, Fence: FirstFence})
	}
	defer p.keepLeases(held...)()
	charges := p.chargeBatch(ctx, items, claimed, out)
	p.writeBatch(ctx, items, charges, out)
	return out
}

// batchable: a purchase PlaceBatch writes in its batch transaction.
func (p *Pipeline) batchable(pu *Purchase) bool {
	if _, ok := p.fulfillers[pu.Kind].(BatchFulfiller); !ok {
		return false
	}
	return len(pu.PromoCodes) == 0 && len(pu.Gifts) == 0 && pu.AccountBalanceInCents == 0 && pu.CreditToAccountInCents == 0
}

// claimBatch claims the new keys of the batch in one statement and answers which items
// it claimed (the others' keys exist: Place handles them).
func (p *Pipeline) claimBatch(ctx context.Context, items []BatchItem, batch []int) (map[int]bool, error) {
	claimed := map[int]bool{}
	if len(batch) == 0 {
		return claimed, nil
	}
	cs := make([]Claim, len(batch))
	index := make(map[string]int, len(batch))
	for n, i := range batch {
		it := items[i]
		cs[n] = Claim{Key: it.Key, RequestHash: it.RequestHash, Kind: it.Purchase.Kind, Stored: Stored{Purchase: *it.Purchase, Payment: it.Payment},
			ChargeKey: ChargeKey(it.Purchase.Kind, it.Key), Lease: p.lease}
		index[it.Key] = i
	}
	got, err := p.batch.ClaimMany(ctx, cs)
	if err != nil {
		return nil, err
	}
	for _, k := range got {
		claimed[index[k]] = true
	}
	return claimed, nil
}

// chargeBatch charges the claimed items concurrently; a failed charge is answered in out
// (and its lease given up, as payAndWrite does). It answers the paid charges by item.
func (p *Pipeline) chargeBatch(ctx context.Context, items []BatchItem, claimed map[int]bool, out []BatchResult) map[int]Charge {
	paid := make(map[int]Charge, len(claimed))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, chargeConcurrency)
	for i := range claimed {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			it := items[i]
			h := Held{Key: it.Key, Fence: FirstFence}
			ch, err := p.charge(ctx, h, ChargeKey(it.Purchase.Kind, it.Key), it.Purchase, it.Payment)
			if IsFenced(err) {
				// Taken over meanwhile (see payAndWrite): the key's state is the answer.
				pl, lerr := p.lost(ctx, it.Key)
				mu.Lock()
				out[i] = BatchResult{Placed: pl, Err: lerr}
				mu.Unlock()
				return
			}
			if err == nil && p.afterCharge != nil {
				if aerr := p.afterCharge(it.Key); aerr != nil {
					err = errs.Wrap(errs.Unavailable, aerr, "Your order is being completed. Please check your receipt in a moment.")
					ch.Status = "PENDING" // left to the reconciler, as payAndWrite leaves it
				}
			}
			if err != nil {
				if _, declined := AsDeclined(err); !declined && ch.Status != "PENDING" {
					p.release(h)
				}
				mu.Lock()
				out[i].Err = err
				mu.Unlock()
				return
			}
			if ch.MethodToken == "" {
				ch.MethodToken = it.Payment.Token
			}
			mu.Lock()
			paid[i] = ch
			mu.Unlock()
		}()
	}
	wg.Wait()
	return paid
}

// writeBatch writes the paid orders in one transaction, or each on its own when the batch
// transaction fails.
func (p *Pipeline) writeBatch(ctx context.Context, items []BatchItem, paid map[int]Charge, out []BatchResult) {
	if len(paid) == 0 {
		return
	}
	created := p.now().UTC().Truncate(time.Second)
	var idx []int
	var held []Held
	var charges []Charge
	var placed []*Placed
	for i := range items {
		if ch, ok := paid[i]; ok {
			idx, held, charges = append(idx, i), append(held, Held{Key: items[i].Key, Fence: FirstFence}), append(charges, ch)
			placed = append(placed, p.placedOf(items[i].Purchase, ch, created))
		}
	}
	var written map[*Placed][]kafka.Event
	done, err := p.batch.WriteMany(ctx, held, placed, func(ctx context.Context, tx Tx, mine []int) ([]kafka.Event, error) {
		var err error
		written, err = p.fulfilBatch(ctx, tx, placed, charges, mine)
		if err != nil {
			return nil, err
		}
		all := make([]kafka.Event, 0, 2*len(mine))
		for _, n := range mine {
			completed, err := orderCompleted(placed[n], charges[n], p.receiptURL(placed[n].InvoiceID))
			if err != nil {
				return nil, err
			}
			all = append(append(all, completed), written[placed[n]]...)
		}
		return all, nil
	})
	if err != nil {
		p.log.WarnContext(ctx, "batch write failed; writing its orders one by one", "orders", len(idx), "err", err.Error())
		for n, i := range idx {
			pl, werr := p.write(ctx, held[n], items[i].Purchase, charges[n])
			if errors.Is(werr, ErrUnfulfillable) {
				werr = p.refund(ctx, held[n], charges[n], werr)
			}
			out[i] = BatchResult{Placed: pl, Err: werr}
		}
		return
	}
	for n, i := range idx {
		pl := placed[n]
		if evs, ok := written[pl]; ok {
			p.metrics.completed(pl, evs)
			out[i] = BatchResult{Placed: pl}
			continue
		}
		// Finished or taken over meanwhile by the reconciler or a retry: its state is the
		// answer, never this order (it was not written).
		s, ok := done[held[n].Key]
		if !ok {
			out[i].Err = errs.E(errs.Unavailable, "order state changed; try again")
			continue
		}
		pl, lerr := p.answerOf(ctx, s)
		out[i] = BatchResult{Placed: pl, Err: lerr}
	}
}

// fulfilBatch runs each kind's FulfilBatch for the written orders (placed[n] for n in
// mine) and answers each order's events.
func (p *Pipeline) fulfilBatch(ctx context.Context, tx Tx, placed []*Placed, charges []Charge, mine []int) (map[*Placed][]kafka.Event, error) {
	byKind := map[string][]*Placed{}
	for _, n := range mine {
		byKind[placed[n].Kind] = append(byKind[placed[n].Kind], placed[n])
	}
	written := make(map[*Placed][]kafka.Event, len(mine))
	for kind, os := range byKind {
		evs, err := p.fulfillers[kind].(BatchFulfiller).FulfilBatch(ctx, tx, os)
		if err != nil {
			return nil, err
		}
		if len(evs) != len(os) {
			return nil, fmt.Errorf("fulfil %s orders: %d answers for %d orders", kind, len(evs), len(os))
		}
		for n, o := range os {
			written[o] = evs[n]
		}
	}
	return written, nil
}

// LookupMany answers the submissions of those of keys seen before, by key: Lookup for a
// batch (the renewal pass reads its claimed attempts' keys once, places the new ones
// together and hands each one seen before, after a crash or an outage, to Resume).
func (p *Pipeline) LookupMany(ctx context.Context, keys []string) (map[string]*Submission, error) {
	return p.batch.LookupMany(ctx, keys)
}
