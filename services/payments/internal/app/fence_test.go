package app_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/payments/internal/domain"
)

// Issue 39: checkout's reconciler closed a key as "not charged" while the request that
// owned it was paused, and the request then charged it. The reconciler's look-up now
// records its newer fence first; a charge under the older one is refused before the
// processor is asked, and the newer holder charges the key as usual.
func TestChargeUnderAnOlderFenceIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, sandbox, _, count := newSweepEnv(t)
	const key = "checkout:subscription:stalled"
	if _, err := svc.GetChargeByKey(ctx, key, 2); errs.CodeOf(err) != errs.NotFound {
		t.Fatalf("fenced look-up of a key never charged: %v, want NotFound", err)
	}
	req := domain.ChargeRequest{IdempotencyKey: key, Amount: 47000, Currency: "USD", Fence: 1,
		CustomerID: "00000000-0000-4000-8000-0000000000ee", Reference: "submit-stalled", Nonce: nonce(t, sandbox, "4111111111111111")}
	_, _, err := svc.Charge(ctx, req)
	var e *errs.Error
	if !errors.As(err, &e) || e.Reason != domain.FencedReason || e.Code != errs.Precondition {
		t.Fatalf("charge under the older fence: %v, want %v", err, domain.ErrFenced)
	}
	if n := count(`SELECT count(*) FROM charges`) + count(`SELECT count(*) FROM sandbox_transactions`); n != 0 {
		t.Fatalf("the refused charge left %d charges and processor transactions", n)
	}
	req.Fence = 2
	c, _, err := svc.Charge(ctx, req)
	if err != nil || c.Status != domain.Captured {
		t.Fatalf("charge under the newest fence: %v %+v", err, c)
	}
	req.Fence = 1
	if _, _, err := svc.Charge(ctx, req); !errors.As(err, &e) || e.Reason != domain.FencedReason {
		t.Fatalf("replay under the older fence: %v, want refused", err)
	}
	if n := count(`SELECT count(*) FROM sandbox_transactions WHERE status = 'captured'`); n != 1 {
		t.Errorf("%d processor captures, want 1", n)
	}
	// Callers without a fence (0) are not fenced.
	req.Fence, req.IdempotencyKey = 0, "checkout:gift:unfenced"
	req.Nonce = nonce(t, sandbox, "4111111111111111")
	if c, _, err := svc.Charge(ctx, req); err != nil || c.Status != domain.Captured {
		t.Fatalf("unfenced charge: %v %+v", err, c)
	}
}
