package order_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// pipeline is a Pipeline over a fake store and fake payments, with a subscription fulfiller.
func pipeline(t *testing.T, o order.Options) (*order.Pipeline, *fakeStore, *fakePayments, *fulfiller) {
	t.Helper()
	store, pay, f := newFakeStore(), newFakePayments(), &fulfiller{}
	if o.Lease == 0 {
		o.Lease = time.Minute // no heartbeat fires in a test that does not ask for one
	}
	p := order.NewPipeline(store, pay, discard(), o)
	p.Register(order.KindSubscription, f)
	return p, store, pay, f
}

var card = order.Payment{Nonce: "nonce-1", CardholderName: "Amelia Earhart"}

// A key is claimed once, charged once and written once; its retry answers the same order
// without charging, and the key with another request is refused.
func TestPlaceClaimsChargesAndWritesOnce(t *testing.T) {
	t.Parallel()
	p, store, pay, f := pipeline(t, order.Options{})
	ctx := context.Background()
	first, err := p.Place(ctx, "k1", "hash-1", purchase(47000), card)
	if err != nil || first.Replayed || first.ChargeID == "" || first.InvoiceNumber == "" {
		t.Fatalf("Place = %+v, %v", first, err)
	}
	if s := store.sub("k1"); s.Status != "completed" || s.InvoiceID != first.InvoiceID {
		t.Errorf("submission %+v, want completed with %s", s, first.InvoiceID)
	}
	seen, _ := p.Lookup(ctx, "k1")
	again, err := p.Resume(ctx, seen, "hash-1", card)
	if err != nil || !again.Replayed || again.InvoiceID != first.InvoiceID {
		t.Errorf("Resume of the completed key = %+v, %v; want the first order, replayed", again, err)
	}
	if _, err := p.Resume(ctx, seen, "hash-2", card); !errors.Is(err, order.ErrKeyReused) {
		t.Errorf("another request with the key: %v, want ErrKeyReused", err)
	}
	if n := pay.madeCount(); n != 1 || len(f.orders) != 1 {
		t.Errorf("%d charges and %d orders fulfilled, want 1 and 1", n, len(f.orders))
	}
	if got := pay.made[0]; got.Amount != 47000 || got.Currency != "USD" || got.Fence != order.FirstFence ||
		got.Key != order.ChargeKey(order.KindSubscription, "k1") {
		t.Errorf("charge request %+v", got)
	}
}

// A decline closes the key as declined; the same payment again answers the decline without
// charging, another payment reopens the key and charges it under a charge key of its own.
func TestResumeOfADeclinedKey(t *testing.T) {
	t.Parallel()
	p, store, pay, _ := pipeline(t, order.Options{})
	pay.decline["nonce-1"] = true
	ctx := context.Background()
	_, err := p.Place(ctx, "k1", "h", purchase(1000), card)
	if d, ok := order.AsDeclined(err); !ok || d.Message != "Do Not Honor" {
		t.Fatalf("Place = %v, want the decline", err)
	}
	if s := store.sub("k1"); s.Status != "declined" || s.FailureCode != "2000" {
		t.Errorf("submission %+v, want declined 2000", s)
	}
	seen, _ := p.Lookup(ctx, "k1")
	if _, err := p.Resume(ctx, seen, "h", card); err == nil || pay.madeCount() != 1 {
		t.Errorf("the same card again: %v after %d charges, want the decline and no new charge", err, pay.madeCount())
	}
	other := order.Payment{Nonce: "nonce-2", CardholderName: "Amelia Earhart"}
	placed, err := p.Resume(ctx, seen, "h", other)
	if err != nil || placed.Replayed {
		t.Fatalf("another card: %+v, %v", placed, err)
	}
	if got := pay.made[1]; got.Key != order.AttemptChargeKey(order.KindSubscription, "k1", other) || got.Fence != 2 {
		t.Errorf("second attempt charged %+v, want its own charge key under fence 2", got)
	}
}

// A pending key whose lease is held answers 'in progress'; once the lease ran out (on the
// store's clock) a retry takes it over, moves its fence on and pays the purchase first
// stored, not the one it brought.
func TestResumeTakesOverARunOutLease(t *testing.T) {
	t.Parallel()
	p, store, pay, _ := pipeline(t, order.Options{Lease: time.Minute})
	ctx := context.Background()
	if ok, _ := store.Claim(ctx, order.Claim{Key: "k1", RequestHash: "h", Kind: order.KindSubscription,
		Stored: order.Stored{Purchase: *purchase(2500), Payment: card}, ChargeKey: order.ChargeKey(order.KindSubscription, "k1"),
		Lease: time.Minute}); !ok {
		t.Fatal("claim")
	}
	seen, _ := p.Lookup(ctx, "k1")
	if _, err := p.Resume(ctx, seen, "h", card); !errors.Is(err, order.ErrInProgress) {
		t.Fatalf("held key: %v, want ErrInProgress", err)
	}
	store.advance(time.Minute)
	placed, err := p.Resume(ctx, seen, "h", card)
	if err != nil || placed.TotalInCents != 2500 {
		t.Fatalf("takeover: %+v, %v; want the stored 2500", placed, err)
	}
	if s := store.sub("k1"); s.fence != 2 || s.Status != "completed" {
		t.Errorf("submission %+v, want completed under fence 2", s)
	}
	if got := pay.made[0].Fence; got != 2 {
		t.Errorf("charged under fence %d, want 2", got)
	}
}

// A request keeps renewing its lease while it works (the heartbeat), under the fence it
// holds, so a slow charge does not see its key taken over.
func TestHeartbeatRenewsTheLeaseWhileTheRequestRuns(t *testing.T) {
	t.Parallel()
	beats := make(chan string, 16)
	release := make(chan struct{})
	p, store, _, _ := pipeline(t, order.Options{Lease: 30 * time.Millisecond, Heartbeat: time.Millisecond,
		OnHeartbeat: func(key string) { beats <- key },
		AfterCharge: func(string) error { <-release; return nil }})
	done := make(chan error, 1)
	go func() {
		_, err := p.Place(context.Background(), "k1", "h", purchase(1000), card)
		done <- err
	}()
	for range 3 {
		if key := <-beats; key != "k1" {
			t.Errorf("beat for %q", key)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if len(store.renewed) < 3 || store.renewed[0] != (order.Held{Key: "k1", Fence: order.FirstFence}) {
		t.Errorf("renewals %v, want at least 3 of k1 under fence 1", store.renewed)
	}
}

// A request paused past its lease whose key was taken over cannot charge under its old
// fence: the key's state is its answer.
func TestAFencedChargeAnswersTheKeysState(t *testing.T) {
	t.Parallel()
	p, store, pay, _ := pipeline(t, order.Options{})
	pay.chargeFn = func(r order.ChargeRequest) (order.Charge, error) {
		return order.Charge{}, &errs.Error{Code: errs.Conflict, Reason: order.FencedReason, Message: "fenced"}
	}
	_, err := p.Place(context.Background(), "k1", "h", purchase(1000), card)
	if !errors.Is(err, order.ErrInProgress) {
		t.Errorf("fenced charge: %v, want ErrInProgress (the key is still pending elsewhere)", err)
	}
	if s := store.sub("k1"); s.Status != "pending" {
		t.Errorf("submission %+v, want left pending", s)
	}
}

// An order that can no longer be written after its charge is refunded, its key closed as
// refunded, and the buyer told the money came back (never 'not charged').
func TestAnUnfulfillableOrderIsRefunded(t *testing.T) {
	t.Parallel()
	p, store, pay, f := pipeline(t, order.Options{})
	f.fail = func(*order.Placed) error { return order.Unfulfillable("The promotion ran out.") }
	_, err := p.Place(context.Background(), "k1", "h", purchase(1000), card)
	if errs.CodeOf(err) != errs.Conflict || !strings.Contains(err.Error(), "refunded in full") || !strings.Contains(err.Error(), "promotion ran out") {
		t.Errorf("Place = %v, want the refund told", err)
	}
	if len(pay.refunds) != 1 || pay.refunds[0] != "ch-1" {
		t.Errorf("refunds %v, want ch-1", pay.refunds)
	}
	if s := store.sub("k1"); s.Status != "refunded" || s.chargeID != "ch-1" {
		t.Errorf("submission %+v, want refunded ch-1", s)
	}
	seen, _ := p.Lookup(context.Background(), "k1")
	if _, err := p.Resume(context.Background(), seen, "h", card); !errors.Is(err, order.ErrAttemptRefunded) {
		t.Errorf("retry of the refunded key: %v, want ErrAttemptRefunded", err)
	}
}

// The answer of an order refunded (or, at a zero total, closed uncharged) because it could
// not be written carries reason ATTEMPT_CLOSED with the message of how it ended, as a
// retry of its closed key does: the page then starts a new attempt instead of a plain 409.
func TestARefundedOrderAnswersAttemptClosed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		total int64
		want  string
	}{
		{"charged and refunded", 1000, "refunded in full"},
		{"zero total, nothing charged", 0, "you were not charged"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, _, _, f := pipeline(t, order.Options{})
			f.fail = func(*order.Placed) error { return order.Unfulfillable("The promotion ran out.") }
			_, err := p.Place(context.Background(), "k1", "h", purchase(c.total), card)
			var e *errs.Error
			if !errors.As(err, &e) || e.Code != errs.Conflict || e.Reason != order.ErrAttemptClosed.Reason {
				t.Fatalf("Place = %#v, want a conflict with reason %s", err, order.ErrAttemptClosed.Reason)
			}
			if !strings.Contains(strings.ToLower(e.Message), c.want) || !strings.Contains(e.Message, "promotion ran out") {
				t.Errorf("message %q, want the cause and %q", e.Message, c.want)
			}
		})
	}
}

// The reconciler settles the submissions whose request died: a captured charge is written
// as the order, no charge closes the key as abandoned, a failed one declines it; a key
// whose lease is still held is left alone.
func TestReconcileSettlesRunOutSubmissions(t *testing.T) {
	t.Parallel()
	p, store, pay, f := pipeline(t, order.Options{Lease: time.Minute})
	ctx := context.Background()
	claim := func(key string) {
		if ok, _ := store.Claim(ctx, order.Claim{Key: key, RequestHash: "h", Kind: order.KindSubscription,
			Stored: order.Stored{Purchase: *purchase(1000), Payment: card}, ChargeKey: order.ChargeKey(order.KindSubscription, key),
			Lease: time.Minute}); !ok {
			t.Fatal("claim", key)
		}
	}
	for _, k := range []string{"charged", "never-charged", "failed"} {
		claim(k)
	}
	pay.charges[order.ChargeKey(order.KindSubscription, "charged")] = order.Charge{ID: "ch-9", Status: "CAPTURED"}
	pay.charges[order.ChargeKey(order.KindSubscription, "failed")] = order.Charge{ID: "ch-8", Status: "FAILED", FailureCode: "2001", FailureMessage: "Insufficient Funds"}
	if n, err := p.Reconcile(ctx); err != nil || n != 0 {
		t.Fatalf("Reconcile with every lease held = %d, %v; want 0", n, err)
	}
	store.advance(time.Minute)
	claim("fresh") // claimed now: its lease is held
	if n, err := p.Reconcile(ctx); err != nil || n != 3 {
		t.Fatalf("Reconcile = %d, %v; want 3 settled", n, err)
	}
	for key, want := range map[string]string{"charged": "completed", "never-charged": "abandoned", "failed": "declined", "fresh": "pending"} {
		if s := store.sub(key); s.Status != want {
			t.Errorf("%s: %s, want %s", key, s.Status, want)
		}
	}
	if len(f.orders) != 1 || pay.madeCount() != 0 {
		t.Errorf("%d orders written and %d new charges, want 1 and none (the reconciler charges nothing new)", len(f.orders), pay.madeCount())
	}
	// The fence the reconciler recorded with payments shuts the dead request out.
	if got := pay.fences[order.ChargeKey(order.KindSubscription, "never-charged")]; got != 2 {
		t.Errorf("payments' fence for the abandoned key %d, want 2", got)
	}
}

// A batch claims its new keys in one statement and writes its paid orders in one
// transaction; a declined one is answered on its own, and a key seen before goes through
// Place.
func TestPlaceBatchClaimsAndWritesTogether(t *testing.T) {
	t.Parallel()
	p, store, pay, f := pipeline(t, order.Options{})
	pay.decline["bad"] = true
	ctx := context.Background()
	if _, err := p.Place(ctx, "seen", "h", purchase(700), card); err != nil {
		t.Fatal(err)
	}
	items := []order.BatchItem{
		{Key: "a", RequestHash: "h", Purchase: purchase(100), Payment: order.Payment{Token: "tok-a"}},
		{Key: "b", RequestHash: "h", Purchase: purchase(200), Payment: order.Payment{Nonce: "bad"}},
		{Key: "c", RequestHash: "h", Purchase: purchase(300), Payment: order.Payment{Token: "tok-c"}},
		{Key: "seen", RequestHash: "h", Purchase: purchase(700), Payment: card},
	}
	out := p.PlaceBatch(ctx, items)
	if out[0].Err != nil || out[2].Err != nil || out[0].Placed.TotalInCents != 100 || out[2].Placed.TotalInCents != 300 {
		t.Errorf("paid items: %+v, %+v", out[0], out[2])
	}
	if _, ok := order.AsDeclined(out[1].Err); !ok {
		t.Errorf("declined item: %+v", out[1])
	}
	if out[3].Err != nil || !out[3].Placed.Replayed {
		t.Errorf("a key seen before: %+v, want its order replayed", out[3])
	}
	if store.count("ClaimMany") != 1 || store.count("WriteMany") != 1 || f.batches != 1 {
		t.Errorf("ClaimMany %d, WriteMany %d, batches fulfilled %d; want one each", store.count("ClaimMany"), store.count("WriteMany"), f.batches)
	}
	for key, want := range map[string]string{"a": "completed", "b": "declined", "c": "completed"} {
		if s := store.sub(key); s.Status != want {
			t.Errorf("%s: %s, want %s", key, s.Status, want)
		}
	}
}
