package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// GiftCaps bound what gift certificates one order and one buyer in a day may buy, in minor
// units of the order's currency (issue 26: twenty $1,000 certificates in one order were a
// cash-out path for stolen cards). Zero: no cap.
type GiftCaps struct {
	Order int64
	Day   int64
	Spend GiftSpend
}

// GiftSpend keeps what each buyer bought per day (adapters.Store).
type GiftSpend interface {
	ReserveGiftSpend(ctx context.Context, buyer, currency string, day time.Time, amount, dayCap int64) (bool, error)
	ReleaseGiftSpend(ctx context.Context, buyer, currency string, day time.Time, amount int64) error
}

// Messages of the caps (the spec words none).
const (
	MsgGiftOrderCap = "A gift certificate order may total at most %s. Please buy fewer or smaller certificates."
	MsgGiftDayCap   = "You can buy at most %s in gift certificates per day. Please try again tomorrow or buy less."
)

// reserveGift checks the order cap and reserves the total against the buyer's day: it
// answers the release to run if the order is not placed (nil when nothing was reserved),
// or the refusal (400 with the message).
func (p *Purchases) reserveGift(ctx context.Context, email string, cur domain.Currency, total int64) (func(error), error) {
	caps := p.svc.giftCaps
	if caps.Order > 0 && total > caps.Order {
		return nil, invalid([]string{fmt.Sprintf(MsgGiftOrderCap, domain.FormatMoney(caps.Order, cur))})
	}
	if caps.Day <= 0 || caps.Spend == nil {
		return nil, nil
	}
	day := p.svc.now()
	ok, err := caps.Spend.ReserveGiftSpend(ctx, email, cur.Code, day, total, caps.Day)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, invalid([]string{fmt.Sprintf(MsgGiftDayCap, domain.FormatMoney(caps.Day, cur))})
	}
	return func(placeErr error) {
		if !notPlaced(placeErr) {
			return // placed, or its outcome unknown (the reconciler may complete it): kept
		}
		if err := caps.Spend.ReleaseGiftSpend(context.WithoutCancel(ctx), email, cur.Code, day, total); err != nil {
			p.svc.log.WarnContext(ctx, "release gift spend", "err", err.Error())
		}
	}, nil
}

// notPlaced reports whether a submit's error means no order was placed nor may be later:
// a decline or a refusal, not an outage.
func notPlaced(err error) bool {
	if err == nil {
		return false
	}
	var d *order.DeclinedError
	if errors.As(err, &d) {
		return true
	}
	var se *SubmitError
	if errors.As(err, &se) {
		return se.Code != errs.Internal && se.Code != errs.Unavailable // a refusal, not an outage
	}
	switch errs.CodeOf(err) {
	case errs.Invalid, errs.Forbidden, errs.Precondition, errs.Exhausted, errs.Unauthorized:
		return true
	}
	return false
}
