package order

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Reconcile finishes submissions whose request died between claiming and writing (their
// lease ran out): it asks payments for the charge made with the submission's key and
// completes the order when the money was taken (refunding it if the order can no longer
// be written), records a decline, or closes the key as abandoned when nothing was
// charged. Orders are written exactly once (see write). It answers how many it settled.
func (p *Pipeline) Reconcile(ctx context.Context) (int, error) {
	claims, err := p.stale.ClaimStale(ctx, p.lease, 20)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range claims {
		if c.Err != nil {
			p.log.ErrorContext(ctx, "reconcile: bad stored purchase", "key", c.Key, "err", c.Err.Error())
			continue
		}
		h := Held{Key: c.Key, Fence: c.Stored.Fence}
		if err := p.settle(ctx, h, c.Stored.ChargeKey, &c.Stored); err != nil {
			// Payments unreachable (or the write failed): the claim is given back, so the
			// buyer's retry or the next pass takes the key at once instead of a lease later.
			p.log.WarnContext(ctx, "reconcile: submission not settled yet", "key", c.Key, "err", err.Error())
			p.release(h)
			continue
		}
		n++
	}
	return n, nil
}

func (p *Pipeline) settle(ctx context.Context, h Held, chargeKey string, st *Stored) error {
	key := h.Key
	var ch Charge
	if st.Purchase.TotalInCents == 0 {
		// Nothing was charged; the vault is keyed, so asking again answers the vault the
		// request made (or makes it, with the buyer's still-valid nonce): the order is then
		// written with the stored card, or the key declined. Either way no subscription is
		// left without the card its renewal charges.
		var err error
		if ch, err = p.vault(ctx, h, chargeKey, &st.Purchase, st.Payment); err != nil {
			if _, declined := AsDeclined(err); declined {
				return nil
			}
			return err
		}
	} else {
		var err error
		// Payments answers NotFound only after asking the card processor for the key (it
		// adopts a capture whose charge row died with payments' transaction), so "not
		// found" means not charged. The look-up records this pass's fence with payments
		// first, so the request that held the key before cannot charge it afterwards: a
		// charge is either found here (and written below: adopted) or never made.
		ch, err = p.payments.ChargeByKey(ctx, chargeKey, h.Fence)
		switch {
		case errs.CodeOf(err) == errs.NotFound:
			return p.stale.Abandon(ctx, h)
		case err != nil:
			return err
		case ch.Status == "FAILED":
			_ = p.decline(ctx, h, &DeclinedError{Code: ch.FailureCode, Message: ch.FailureMessage})
			return nil
		case ch.Status == "PENDING":
			// The processor's answer is still unknown: ask again with the same key.
			if ch, err = p.charge(ctx, h, chargeKey, &st.Purchase, st.Payment); err != nil {
				return err
			}
		case !ch.Paid():
			return fmt.Errorf("charge %s is %s", ch.ID, ch.Status)
		}
	}
	_, err := p.write(ctx, h, &st.Purchase, ch)
	if errors.Is(err, ErrUnfulfillable) {
		err = p.refund(ctx, h, ch, err)
		if errs.CodeOf(err) == errs.Conflict {
			return nil // refunded and closed
		}
	}
	if err == nil {
		p.log.InfoContext(ctx, "reconcile: order completed after an interrupted submit", "key", key, "charge", ch.ID)
	}
	return err
}

// RunReconciler reconciles every interval until ctx ends.
func (p *Pipeline) RunReconciler(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := p.Reconcile(ctx); err != nil && ctx.Err() == nil {
				p.log.ErrorContext(ctx, "reconcile failed; will retry", "err", err.Error())
			}
		}
	}
}
