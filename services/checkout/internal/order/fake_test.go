package order_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/domain/gift"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// fakeStore is order.Store in memory, with the semantics the adapter's SQL gives it: one
// row per key, a fence moved on by each takeover, leases on the store's own clock (clock,
// advanced by the test; the pipeline's clock is not the store's).
type fakeStore struct {
	mu      sync.Mutex
	clock   time.Time
	subs    map[string]*fakeSub
	orders  map[string]*order.Placed
	renewed []order.Held // every lease renewal, in order
	calls   map[string]int
	// writeErr, when set, is what Write answers for a key (after running nothing).
	writeErr func(key string) error
}

type fakeSub struct {
	order.Submission
	stored     order.Stored
	fence      int64
	leaseUntil time.Time
	chargeID   string
	cause      string
}

func newFakeStore() *fakeStore {
	return &fakeStore{clock: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC), subs: map[string]*fakeSub{}, orders: map[string]*order.Placed{},
		calls: map[string]int{}}
}

func (s *fakeStore) called(name string) { s.calls[name]++ }

// advance moves the store's clock on.
func (s *fakeStore) advance(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock = s.clock.Add(d)
}

func (s *fakeStore) sub(key string) *fakeSub {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.subs[key]; f != nil {
		c := *f
		return &c
	}
	return nil
}

func (s *fakeStore) count(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[name]
}

// held reports whether key is pending under fence h and its lease has not run out.
func (s *fakeStore) heldLocked(h order.Held) (*fakeSub, bool) {
	f := s.subs[h.Key]
	return f, f != nil && f.Status == "pending" && f.fence == h.Fence
}

func (s *fakeStore) Lookup(_ context.Context, key string) (*order.Submission, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.called("Lookup")
	if f := s.subs[key]; f != nil {
		c := f.Submission
		return &c, nil
	}
	return nil, nil
}

func (s *fakeStore) claimLocked(c order.Claim) bool {
	if s.subs[c.Key] != nil {
		return false
	}
	st := c.Stored
	st.ChargeKey, st.Fence = c.ChargeKey, order.FirstFence
	s.subs[c.Key] = &fakeSub{Submission: order.Submission{Key: c.Key, RequestHash: c.RequestHash, Kind: c.Kind, Status: "pending"},
		stored: st, fence: order.FirstFence, leaseUntil: s.clock.Add(c.Lease)}
	return true
}

func (s *fakeStore) Claim(_ context.Context, c order.Claim) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.called("Claim")
	return s.claimLocked(c), nil
}

func (s *fakeStore) ClaimMany(_ context.Context, cs []order.Claim) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.called("ClaimMany")
	var got []string
	for _, c := range cs {
		if s.claimLocked(c) {
			got = append(got, c.Key)
		}
	}
	return got, nil
}

func (s *fakeStore) takeLocked(f *fakeSub, lease time.Duration) order.Stored {
	f.fence++
	f.leaseUntil = s.clock.Add(lease)
	st := f.stored
	st.Fence = f.fence
	return st
}

func (s *fakeStore) TakeOver(_ context.Context, key string, lease time.Duration) (order.Stored, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.called("TakeOver")
	f := s.subs[key]
	if f == nil || f.Status != "pending" || s.clock.Before(f.leaseUntil) {
		return order.Stored{}, false, nil
	}
	return s.takeLocked(f, lease), true, nil
}

func (s *fakeStore) Reopen(_ context.Context, key string, pay order.Payment, chargeKey string, lease time.Duration) (order.Stored, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.called("Reopen")
	f := s.subs[key]
	if f == nil || f.Status != "declined" || f.stored.Payment == pay {
		return order.Stored{}, false, nil
	}
	f.Status, f.FailureCode, f.FailureMessage = "pending", "", ""
	f.stored.Payment, f.stored.ChargeKey = pay, chargeKey
	st := s.takeLocked(f, lease)
	return st, true, nil
}

func (s *fakeStore) RenewLeases(_ context.Context, held []order.Held, lease time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.called("RenewLeases")
	for _, h := range held {
		if f, ok := s.heldLocked(h); ok && s.clock.Before(f.leaseUntil) {
			f.leaseUntil = s.clock.Add(lease)
			s.renewed = append(s.renewed, h)
		}
	}
	return nil
}

func (s *fakeStore) Release(_ context.Context, h order.Held) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.called("Release")
	if f, ok := s.heldLocked(h); ok {
		f.leaseUntil = s.clock
	}
	return nil
}

func (s *fakeStore) Forget(_ context.Context, h order.Held) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.called("Forget")
	if _, ok := s.heldLocked(h); ok {
		delete(s.subs, h.Key)
	}
	return nil
}

func (s *fakeStore) close(h order.Held, status string, edit func(f *fakeSub)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.called(status)
	f, ok := s.heldLocked(h)
	if !ok {
		return false
	}
	f.Status = status
	if edit != nil {
		edit(f)
	}
	return true
}

func (s *fakeStore) Decline(_ context.Context, h order.Held, d *order.DeclinedError) (bool, error) {
	return s.close(h, "declined", func(f *fakeSub) { f.FailureCode, f.FailureMessage = d.Code, d.Message }), nil
}

func (s *fakeStore) Refunded(_ context.Context, h order.Held, chargeID, cause string) error {
	s.close(h, "refunded", func(f *fakeSub) { f.chargeID, f.cause = chargeID, cause })
	return nil
}

func (s *fakeStore) Abandon(_ context.Context, h order.Held) error {
	s.close(h, "abandoned", nil)
	return nil
}

func (s *fakeStore) ClaimStale(_ context.Context, lease time.Duration, limit int) ([]order.StaleClaim, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.called("ClaimStale")
	var out []order.StaleClaim
	for key, f := range s.subs {
		if len(out) == limit {
			break
		}
		if f.Status == "pending" && !s.clock.Before(f.leaseUntil) {
			out = append(out, order.StaleClaim{Key: key, Stored: s.takeLocked(f, lease)})
		}
	}
	return out, nil
}

func (s *fakeStore) LookupMany(ctx context.Context, keys []string) (map[string]*order.Submission, error) {
	out := map[string]*order.Submission{}
	for _, k := range keys {
		if sub, _ := s.Lookup(ctx, k); sub != nil {
			out[k] = sub
		}
	}
	return out, nil
}

type fakeTx struct{}

func (fakeTx) WriteSubscriptions(context.Context, []*order.SubscriptionWrite) error { return nil }
func (fakeTx) IssueGifts(context.Context, []gift.Certificate) error                 { return nil }

// writeLocked completes h with o unless the key is no longer pending under h's fence; it
// answers the submission as it is then.
func (s *fakeStore) writeLocked(h order.Held, o *order.Placed) *order.Submission {
	f, ok := s.heldLocked(h)
	if !ok {
		if f == nil {
			return &order.Submission{Key: h.Key}
		}
		c := f.Submission
		return &c
	}
	f.Status, f.InvoiceID = "completed", o.InvoiceID
	o.InvoiceNumber = fmt.Sprintf("HGR-TEST-%06d", len(s.orders)+1)
	s.orders[o.InvoiceID] = o
	return nil
}

func (s *fakeStore) Write(ctx context.Context, h order.Held, o *order.Placed, fulfil order.WriteFunc) (*order.Submission, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.called("Write")
	if s.writeErr != nil {
		if err := s.writeErr(h.Key); err != nil {
			return nil, err
		}
	}
	if _, ok := s.heldLocked(h); ok {
		if _, err := fulfil(ctx, fakeTx{}); err != nil {
			return nil, err
		}
	}
	return s.writeLocked(h, o), nil
}

func (s *fakeStore) WriteMany(ctx context.Context, held []order.Held, os []*order.Placed, fulfil order.BatchWriteFunc) (map[string]*order.Submission, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.called("WriteMany")
	var mine []int
	for n, h := range held {
		if _, ok := s.heldLocked(h); ok {
			mine = append(mine, n)
		}
	}
	if _, err := fulfil(ctx, fakeTx{}, mine); err != nil {
		return nil, err
	}
	done := map[string]*order.Submission{}
	for n, h := range held {
		if d := s.writeLocked(h, os[n]); d != nil {
			done[h.Key] = d
		}
	}
	return done, nil
}

func (s *fakeStore) Load(_ context.Context, invoiceID string) (*order.Placed, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.orders[invoiceID]; o != nil {
		c := *o
		return &c, nil
	}
	return nil, nil
}

func (s *fakeStore) SaveContact(_ context.Context, invoiceID string, c order.Contact) (bool, *order.Correction, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.orders[invoiceID]
	if o == nil {
		return false, nil, nil
	}
	o.InvoiceContact = &c
	return true, nil, nil
}

// fakePayments charges once per charge key (a second charge with a key answers the first)
// and refuses a charge under a fence older than the newest it has seen for the key, as
// payments does. decline lists the nonces the processor declines.
type fakePayments struct {
	mu       sync.Mutex
	charges  map[string]order.Charge
	fences   map[string]int64
	made     []order.ChargeRequest
	refunds  []string
	decline  map[string]bool
	chargeFn func(r order.ChargeRequest) (order.Charge, error) // replaces the processor when set
}

func newFakePayments() *fakePayments {
	return &fakePayments{charges: map[string]order.Charge{}, fences: map[string]int64{}, decline: map[string]bool{}}
}

func (p *fakePayments) Charge(_ context.Context, r order.ChargeRequest) (order.Charge, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.Fence < p.fences[r.Key] {
		return order.Charge{}, &errs.Error{Code: errs.Conflict, Reason: order.FencedReason, Message: "fenced"}
	}
	p.fences[r.Key] = r.Fence
	if ch, ok := p.charges[r.Key]; ok {
		return ch, nil
	}
	p.made = append(p.made, r)
	var ch order.Charge
	switch {
	case p.chargeFn != nil:
		var err error
		if ch, err = p.chargeFn(r); err != nil {
			return ch, err
		}
	case p.decline[r.Payment.Nonce]:
		ch = order.Charge{ID: fmt.Sprintf("ch-%d", len(p.made)), Status: "FAILED", FailureCode: "2000", FailureMessage: "Do Not Honor"}
	default:
		ch = order.Charge{ID: fmt.Sprintf("ch-%d", len(p.made)), Status: "CAPTURED", CardBrand: "Visa", CardLast4: "1111", MethodToken: "tok"}
	}
	p.charges[r.Key] = ch
	return ch, nil
}

func (p *fakePayments) ChargeByKey(_ context.Context, key string, fence int64) (order.Charge, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if fence > p.fences[key] {
		p.fences[key] = fence
	}
	if ch, ok := p.charges[key]; ok {
		return ch, nil
	}
	return order.Charge{}, errs.E(errs.NotFound, "no charge")
}

func (p *fakePayments) Refund(_ context.Context, chargeID, _, _ string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refunds = append(p.refunds, chargeID)
	return nil
}

func (p *fakePayments) Vault(_ context.Context, r order.VaultRequest) (order.Charge, error) {
	return order.Charge{MethodToken: "tok-" + r.Key}, nil
}

func (p *fakePayments) madeCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.made)
}

// fulfiller records the orders it fulfils; it writes every order in a batch too. fail,
// when set, makes an order unfulfillable.
type fulfiller struct {
	mu      sync.Mutex
	orders  []string
	batches int
	fail    func(o *order.Placed) error
}

func (f *fulfiller) Fulfil(_ context.Context, _ order.Tx, o *order.Placed) ([]kafka.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		if err := f.fail(o); err != nil {
			return nil, err
		}
	}
	f.orders = append(f.orders, o.InvoiceID)
	return nil, nil
}

func (f *fulfiller) FulfilBatch(ctx context.Context, tx order.Tx, os []*order.Placed) ([][]kafka.Event, error) {
	f.mu.Lock()
	f.batches++
	f.mu.Unlock()
	out := make([][]kafka.Event, len(os))
	for i, o := range os {
		evs, err := f.Fulfil(ctx, tx, o)
		if err != nil {
			return nil, err
		}
		out[i] = evs
	}
	return out, nil
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// purchase is a priced subscription order of total minor units.
func purchase(total int64) *order.Purchase {
	return &order.Purchase{Kind: order.KindSubscription, AccountID: "acct-1", Email: "buyer@example.com", Currency: "USD",
		SubtotalInCents: total, TotalInCents: total, Lines: []order.Line{{Type: "PLAN", AddOnCode: "performance", Quantity: 1,
			UnitAmountInCents: total, AmountInCents: total}}}
}
