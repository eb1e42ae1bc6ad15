package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// GiftCaps bound what gift certificates may buy (issue 26: twenty $1,000 certificates in one
// order were a cash-out path for stolen cards), in one currency-neutral amount: USD minor
// units, an order in another currency converted with the catalogue's rate (issue 41: caps
// per currency let one buyer take $9,000 + €2,000 + A$2,000 in a minute). Order bounds one
// order; Day bounds, per UTC day, each subject the money follows — the paying card (its
// source: payments' card reference), the buyer's e-mail, the recipient's, the session, the
// client address (IPv6 by its /64) — reserved for all of them at once before the charge.
// Zero: no cap.
type GiftCaps struct {
	Order int64
	Day   int64
	Spend GiftSpend
	// Cards names the card behind a payment (payments; nil: the card is no subject).
	Cards Cards
}

// Cards answers the opaque reference of the card behind a payment ("" when unknown).
type Cards interface {
	CardReference(ctx context.Context, pay order.Payment) (string, error)
}

// GiftSpend keeps what each subject bought per day, in USD minor units (adapters.Store).
type GiftSpend interface {
	// ReserveGiftSpend adds amount to every subject's day unless that would take any past
	// dayCap: all or none, whatever other submits run at the same time.
	ReserveGiftSpend(ctx context.Context, subjects []string, day time.Time, amount, dayCap int64) (bool, error)
	ReleaseGiftSpend(ctx context.Context, subjects []string, day time.Time, amount int64) error
}

// Messages of the caps (the spec words none).
const (
	MsgGiftOrderCap = "A gift certificate order may total at most %s. Please buy fewer or smaller certificates."
	MsgGiftDayCap   = "You can buy at most %s in gift certificates per day. Please try again tomorrow or buy less."
)

// giftSubjects are who a gift order's money is counted against per day: the paying card,
// the buyer's and the recipient's e-mails, the session and the client's address key.
func giftSubjects(card, buyer, recipient, session, client string) []string {
	var out []string
	add := func(kind, v string) {
		if v = strings.ToLower(strings.TrimSpace(v)); v != "" && v != unlimited && v != "unknown" {
			out = append(out, kind+":"+v)
		}
	}
	add("card", card)
	add("buyer", buyer)
	add("recipient", recipient)
	add("session", session)
	add("addr", client)
	return out
}

// giftCard answers the reference of the card paying for a gift order ("" when none is
// known: the charge then fails or pays with a card payments cannot name).
func (p *Purchases) giftCard(ctx context.Context, pay order.Payment) (string, error) {
	caps := p.svc.giftCaps
	if caps.Day <= 0 || caps.Cards == nil {
		return "", nil
	}
	return caps.Cards.CardReference(ctx, pay)
}

// reserveGift checks the order cap and reserves the total against each subject's day: it
// answers the release to run if the order is not placed (nil when nothing was reserved),
// or the refusal (400 with the message, the cap shown in the order's currency).
func (p *Purchases) reserveGift(ctx context.Context, subjects []string, cur domain.Currency, total int64) (func(error), error) {
	caps := p.svc.giftCaps
	usd := cur.ToUSD(total)
	if caps.Order > 0 && usd > caps.Order {
		return nil, invalid([]string{fmt.Sprintf(MsgGiftOrderCap, domain.FormatMoney(cur.FromUSD(caps.Order), cur))})
	}
	if caps.Day <= 0 || caps.Spend == nil || len(subjects) == 0 {
		return nil, nil
	}
	day := p.svc.now()
	ok, err := caps.Spend.ReserveGiftSpend(ctx, subjects, day, usd, caps.Day)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, invalid([]string{fmt.Sprintf(MsgGiftDayCap, domain.FormatMoney(cur.FromUSD(caps.Day), cur))})
	}
	return func(placeErr error) {
		if !notPlaced(placeErr) {
			return // placed, or its outcome unknown (the reconciler may complete it): kept
		}
		if err := caps.Spend.ReleaseGiftSpend(context.WithoutCancel(ctx), subjects, day, usd); err != nil {
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
