package app

import (
	"context"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/lease"
	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// Metadata keys payments sends with every processor transaction: enough to record the
// charge from the processor's record alone when payments' own row was lost (it commits
// after the processor answered). No card data, no e-mail.
const (
	metaChargeKey    = "charge_key"
	metaRequestHash  = "request_hash"
	metaCustomer     = "customer_id"
	metaReference    = "reference"
	metaDescription  = "description"
	metaStoreInVault = "store_in_vault"
	metaMakeDefault  = "make_default"
)

func chargeMetadata(c domain.Charge, r domain.ChargeRequest) map[string]string {
	return map[string]string{metaChargeKey: c.IdempotencyKey, metaRequestHash: hex.EncodeToString(c.RequestHash),
		metaCustomer: c.CustomerID, metaReference: c.Reference, metaDescription: c.Description,
		metaStoreInVault: strconv.FormatBool(r.StoreInVault), metaMakeDefault: strconv.FormatBool(r.MakeDefault)}
}

// GetChargeByKey answers the charge made with an idempotency key (a caller that crashed
// mid-charge finds it this way). Payments' table is not the whole truth: when it has no row
// the processor is asked (ResolveByKey), so "not found" means the card was not charged.
// A fence (not 0) is recorded as the key's newest before the look-up (a charge under an
// older one is refused from then on), so "not found" stays true afterwards.
func (s *Service) GetChargeByKey(ctx context.Context, key string, fence int64) (domain.Charge, error) {
	c, err := s.store.GetChargeByKey(ctx, key, fence)
	if errs.CodeOf(err) != errs.NotFound {
		return c, err
	}
	return s.ResolveByKey(ctx, key)
}

// ResolveByKey settles a key with the processor: a capture (or authorization) it made
// under the key that payments has no charge of is adopted — the charge, its
// payment-captured event and the card on file written as the charge would have written
// them — or, when its metadata cannot say which charge it was, given back. NotFound when
// the processor holds no money under the key.
func (s *Service) ResolveByKey(ctx context.Context, key string) (domain.Charge, error) {
	return s.resolve(ctx, key, 0)
}

// resolve is ResolveByKey for the sweeper holding the sweep's lease under the token sweep
// (0: a caller that is no sweeper): its token is checked where it acts.
func (s *Service) resolve(ctx context.Context, key string, sweep int64) (domain.Charge, error) {
	id := NewID()
	return s.store.Resolve(ctx, id, key, s.now(), sweep, func(ctx context.Context) (*domain.Charge, []kafka.Event, *Adoption, error) {
		rec, err := s.gw.FindByKey(ctx, ProcessorKey(key))
		if errs.CodeOf(err) == errs.NotFound {
			return nil, nil, nil, nil
		}
		if err != nil {
			return nil, nil, nil, s.gatewayErr(ctx, "look up processor transaction", err)
		}
		if !rec.Kept() {
			return nil, nil, nil, nil // refused, voided or refunded: no money held
		}
		c, adopt, ok := s.adoptable(rec, id, key)
		if !ok {
			return nil, nil, nil, s.giveBack(ctx, rec, sweep)
		}
		var events []kafka.Event
		if c.Status == domain.Captured {
			if events, err = capturedEvent(*c, s.now()); err != nil {
				return nil, nil, nil, err
			}
		}
		s.log.WarnContext(ctx, "charge adopted from the processor", "charge", c.ID, "processor_tx", rec.ID, "status", string(c.Status),
			"amount", c.Amount, "currency", c.Currency, "reference", c.Reference)
		return c, events, adopt, nil
	})
}

// adoptable builds the charge a processor record stands for, from the metadata the charge
// sent with it; ok false when the record is not one of key's charges.
func (s *Service) adoptable(rec gateway.Record, id, key string) (*domain.Charge, *Adoption, bool) {
	m := rec.Metadata
	hash, err := hex.DecodeString(m[metaRequestHash])
	if m[metaChargeKey] != key || err != nil || len(hash) == 0 || rec.Amount <= 0 {
		return nil, nil, false
	}
	now := s.now()
	c := domain.Charge{ID: id, IdempotencyKey: key, RequestHash: hash, Status: domain.Pending, Amount: rec.Amount, Currency: rec.Currency,
		CustomerID: m[metaCustomer], Reference: m[metaReference], Description: m[metaDescription], CreatedAt: rec.CreatedAt, UpdatedAt: now}
	var err2 error
	if rec.Status == "captured" {
		err2 = c.MarkCaptured(rec.ID, rec.Method, now)
		if rec.Refunded > 0 { // refunded in part at the processor meanwhile
			c.Refunded, c.Status = rec.Refunded, domain.PartiallyRefunded
		}
	} else {
		c.AuthorizeOnly = true
		err2 = c.Authorized(rec.ID, rec.Method, now)
	}
	if err2 != nil {
		return nil, nil, false
	}
	var adopt *Adoption
	if m[metaStoreInVault] == "true" && rec.Method.Token != "" {
		// The order's card, not announced (as Charge's).
		adopt = &Adoption{Customer: c.CustomerID, Method: rec.Method, MakeDefault: m[metaMakeDefault] == "true", Now: now}
	}
	return &c, adopt, true
}

// giveBack returns the money of a processor transaction no charge can be recorded for
// (no order can be completed from it): a void of an authorization, a refund of what is
// left of a capture, keyed by the transaction so replicas sweeping at once refund once.
// The sweeper (sweep not 0) gives back only while its token still holds the sweep's lease:
// one paused past it leaves what it listed to its successor.
func (s *Service) giveBack(ctx context.Context, rec gateway.Record, sweep int64) error {
	if sweep != 0 {
		held, err := s.store.SweepHeld(ctx, sweep)
		if err != nil {
			return err
		}
		if !held {
			return ErrSweepLost
		}
	}
	var err error
	if rec.Status == "authorized" {
		_, err = s.gw.Void(ctx, rec.ID)
	} else {
		_, err = s.gw.Refund(ctx, rec.ID, rec.Amount-rec.Refunded, "orphan:"+rec.ID)
	}
	if err != nil {
		return s.gatewayErr(ctx, "give back an orphan processor transaction", err)
	}
	s.log.WarnContext(ctx, "orphan processor transaction given back", "processor_tx", rec.ID, "status", rec.Status,
		"amount", rec.Amount-rec.Refunded, "currency", rec.Currency)
	return nil
}

// SweepResult counts what a sweep found.
type SweepResult struct {
	Seen, Adopted, GivenBack int
	// Busy: another replica holds the sweep's lease; nothing was swept.
	Busy bool
}

// ErrSweepLost is a sweep whose lease was taken over while it ran (its process was paused
// or starved past the lease): it stopped without acting on what it had listed.
var ErrSweepLost = errs.E(errs.Unavailable, "the processor sweep's lease was taken over; another replica sweeps")

// DefaultSweepLease is the sweep's lease when Policies.SweepLease is not set.
const DefaultSweepLease = 30 * time.Second

// Sweep reconciles the processor's transactions created in [from, to) with payments'
// charges: each that holds money and has no charge is adopted (ResolveByKey) or, when its
// metadata names no charge of ours, given back. Every replica runs the sweeper; one sweeps
// at a time, under the sweep's lease (internal/platform/lease: the database's clock, a
// fencing token, a heartbeat while it sweeps), so a sweep finding another's running
// answers Busy. The token is checked where the sweep acts (before a refund or void, and
// in the transaction recording an adoption); the key's claim and the processor's refund
// key keep a charge still in flight safe.
func (s *Service) Sweep(ctx context.Context, from, to time.Time) (SweepResult, error) {
	d := s.pol.SweepLease
	if d <= 0 {
		d = DefaultSweepLease
	}
	fence, ok, err := s.store.TakeSweep(ctx, d)
	if err != nil || !ok {
		return SweepResult{Busy: !ok}, err
	}
	stop := lease.Keeper{Every: d / 3, Timeout: d / 3, Log: s.log, What: "processor sweep",
		Renew: func(ctx context.Context) error { return s.store.RenewSweep(ctx, fence, d) }}.Keep()
	defer func() {
		stop()
		ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d/3)
		defer cancel()
		if err := s.store.EndSweep(ectx, fence); err != nil {
			s.log.WarnContext(ctx, "could not give the sweep's lease up; it runs out", "err", err.Error())
		}
	}()
	return s.sweep(ctx, fence, from, to)
}

// sweep is Sweep under the lease's token fence.
func (s *Service) sweep(ctx context.Context, fence int64, from, to time.Time) (SweepResult, error) {
	const page = 500
	var res SweepResult
	for {
		recs, err := s.gw.Search(ctx, from, to, page)
		if err != nil {
			return res, s.gatewayErr(ctx, "search processor transactions", err)
		}
		var ids []string
		for _, r := range recs {
			if r.Kept() {
				ids = append(ids, r.ID)
			}
		}
		charged, err := s.store.ChargedTransactions(ctx, ids)
		if err != nil {
			return res, err
		}
		for _, r := range recs {
			res.Seen++
			if !r.Kept() || charged[r.ID] {
				continue
			}
			key := r.Metadata[metaChargeKey]
			if key == "" || ProcessorKey(key) != r.Key {
				if err := s.giveBack(ctx, r, fence); err != nil {
					return res, err
				}
				res.GivenBack++
				continue
			}
			c, err := s.resolve(ctx, key, fence)
			switch {
			case errs.CodeOf(err) == errs.NotFound:
				res.GivenBack++ // its metadata did not hold: given back
			case err != nil:
				return res, err
			case c.ProcessorTxID == r.ID:
				res.Adopted++
			}
		}
		if len(recs) < page || !recs[len(recs)-1].CreatedAt.After(from) {
			return res, nil
		}
		from = recs[len(recs)-1].CreatedAt
	}
}

// RunSweeper sweeps the last startWindow at once (a replica starting after a crash finds
// what the crash left) and then, every interval, what came since this replica's last sweep
// (sweepWindows), the whole last window once a window. Transactions younger than settle
// are left to the charges still running them. A sweep another replica is running (Busy)
// is not waited for: this one's next tick tries again, from where its own last sweep
// ended, and the start-up sweep's longer window is kept until one of this replica's sweeps
// ran.
func (s *Service) RunSweeper(ctx context.Context, interval, window, startWindow, settle time.Duration) {
	w := &sweepWindows{window: window, start: startWindow, settle: settle}
	sweep := func() {
		from, to, whole := w.next(s.now())
		res, err := s.Sweep(ctx, from, to)
		if err != nil {
			if ctx.Err() == nil {
				s.log.ErrorContext(ctx, "processor sweep failed; will retry", "err", err.Error())
			}
			return
		}
		if res.Busy {
			return
		}
		w.swept(to, whole)
		if res.Adopted > 0 || res.GivenBack > 0 {
			s.log.WarnContext(ctx, "processor sweep settled captures without a charge", "adopted", res.Adopted, "given_back", res.GivenBack)
		}
	}
	sweep()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			sweep()
		}
	}
}

// sweepWindows chooses a replica's sweep windows. Sweeping the whole last window at every
// interval would read, decode and look up each processor transaction window/interval times
// (sixty), a cost per order that grows with the window, and that a store which had been
// busy keeps paying for a window after. A sweep starts where this replica's last one ended,
// less settle (a transaction created just before that end whose record was not yet
// visible), and the whole window is swept once a window, as the safety net for what
// an incremental sweep can miss (a processor's clock behind ours, a capture recorded late).
type sweepWindows struct {
	window, start, settle time.Duration
	last                  time.Time // where this replica's last sweep ended; zero: none yet
	whole                 time.Time // when it last swept a whole window (the start-up one counts)
}

// next answers the window of a sweep at now, and whether it is a whole one.
func (w *sweepWindows) next(now time.Time) (from, to time.Time, whole bool) {
	to = now.Add(-w.settle)
	switch {
	case w.last.IsZero():
		return now.Add(-w.start), to, true
	case now.Sub(w.whole) >= w.window:
		return now.Add(-w.window), to, true
	default:
		return w.last.Add(-w.settle), to, false
	}
}

// swept records a sweep of next's window that ran to its end.
func (w *sweepWindows) swept(to time.Time, whole bool) {
	w.last = to
	if whole {
		w.whole = to.Add(w.settle)
	}
}
