package order

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
)

// write is the checkout transaction (Store.Write): it closes the key, writes the order and
// its lines, redeems promotions (their limits hold), debits gift certificates and the
// account balance (never below zero), credits the account, runs the kind's Fulfiller and
// enqueues the events. Exactly once per key: the key's pending status under the fence
// this request holds it with is the guard, checked by the statement that closes it.
func (p *Pipeline) write(ctx context.Context, h Held, pu *Purchase, ch Charge) (*Placed, error) {
	placed := p.placedOf(pu, ch, p.now().UTC().Truncate(time.Second))
	var fulfilled []kafka.Event
	done, err := p.subs.Write(ctx, h, placed, func(ctx context.Context, tx Tx) ([]kafka.Event, error) {
		evs, err := p.fulfillers[pu.Kind].Fulfil(ctx, tx, placed)
		if err != nil {
			return nil, err
		}
		completed, err := orderCompleted(placed, ch, p.receiptURL(placed.InvoiceID))
		if err != nil {
			return nil, err
		}
		fulfilled = evs
		return append([]kafka.Event{completed}, evs...), nil
	})
	if err != nil {
		if errors.Is(err, ErrUnfulfillable) {
			return nil, err
		}
		return nil, errs.Wrap(errs.Unavailable, err, "Your payment was taken but the order is not written yet; it will be completed shortly. Please check your receipt in a moment.")
	}
	if done != nil {
		// Someone else (the reconciler, a retry) finished or took over this key meanwhile:
		// its state is the answer, never this order (it was not written).
		return p.answerOf(ctx, done)
	}
	p.metrics.completed(placed, fulfilled)
	return placed, nil
}

// placedOf is the order a paid purchase becomes, before the store numbers it.
func (p *Pipeline) placedOf(pu *Purchase, ch Charge, created time.Time) *Placed {
	return &Placed{Purchase: *pu, InvoiceID: newInvoiceID(), ChargeID: ch.ID, CardBrand: ch.CardBrand, CardLast4: ch.CardLast4,
		PaymentMethodToken: ch.MethodToken, CardExpires: ch.CardExpires, CreatedAt: created}
}

func orderCompleted(o *Placed, ch Charge, receiptURL string) (kafka.Event, error) {
	ev := &eventsv1.OrderCompleted{OrderId: o.InvoiceID, InvoiceId: o.InvoiceID, InvoiceNumber: o.InvoiceNumber, AccountId: o.AccountID,
		Email: o.Email, OrderKind: o.Kind, BuyerKind: o.BuyerKind, Currency: o.Currency, SubtotalInCents: o.SubtotalInCents,
		TaxInCents: o.TaxInCents, TotalInCents: o.TotalInCents, CardBrand: ch.CardBrand, CardLast4: ch.CardLast4, ChargeId: ch.ID,
		CompletedAt: timestamppb.New(o.CreatedAt), ReceiptUrl: receiptURL, TaxLabel: o.TaxLabel, ReverseCharge: o.ReverseCharge}
	for _, l := range o.Lines {
		ev.Lines = append(ev.Lines, &eventsv1.InvoiceLine{AddOnCode: l.AddOnCode, Description: l.Description, Type: l.Type,
			Quantity: int32(l.Quantity), AmountInCents: l.AmountInCents, Reason: l.Reason, PostTax: l.PostTax})
	}
	b, err := proto.Marshal(ev)
	if err != nil {
		return kafka.Event{}, fmt.Errorf("encode order completed: %w", err)
	}
	return kafka.Event{Topic: events.TopicOrderCompleted, Key: firstNonEmpty(o.AccountID, o.Email), Payload: b}, nil
}

// ReceiptURL is the success page showing an order's receipt.
func ReceiptURL(invoiceID string) string { return "/buy/success?invoiceId=" + invoiceID }

// GiftTotal is what gift certificates pay of the order.
func (o *Purchase) GiftTotal() int64 {
	var n int64
	for _, g := range o.Gifts {
		n += g.AmountInCents
	}
	return n
}

// PaymentMethodOrCard is the order's payment method, CREDIT_CARD when it names none.
func (o *Purchase) PaymentMethodOrCard() string {
	if o.PaymentMethod == "" {
		return "CREDIT_CARD"
	}
	return o.PaymentMethod
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}
