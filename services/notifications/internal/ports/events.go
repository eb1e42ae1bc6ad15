// Package ports is how events reach the notifications service: one inbox-consumer handler
// per topic, each converting the event's protobuf payload to the domain and calling the app.
package ports

import (
	"context"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/notifications/internal/app"
	"github.com/hangar/hangar/services/notifications/internal/domain"
)

// Topics are the topics the service consumes.
var Topics = []string{events.TopicOrderCompleted, events.TopicGiftCertificateIssued, events.TopicEligibilityCodeRequested,
	events.TopicAccountCreated, events.TopicDunningNotice}

// Subscribe registers the service's handlers on c.
func Subscribe(c *kafka.InboxConsumer, svc *app.Service) {
	c.Handle(events.TopicOrderCompleted, handle(func(ctx context.Context, tx pgx.Tx, id string, ev *eventsv1.OrderCompleted) error {
		return svc.Receipt(ctx, tx, id, ReceiptOf(ev))
	}))
	c.Handle(events.TopicGiftCertificateIssued, handle(func(ctx context.Context, tx pgx.Tx, id string, ev *eventsv1.GiftCertificateIssued) error {
		return svc.GiftCertificate(ctx, tx, id, domain.GiftCertificate{Code: ev.GetCode(), Amount: ev.GetBalance().GetAmountInCents(),
			Currency: ev.GetBalance().GetCurrency(), BuyerEmail: ev.GetBuyerEmail(), RecipientEmail: ev.GetRecipientEmail(),
			RecipientName: ev.GetRecipientName(), Message: ev.GetMessage(), IssuedAt: ev.GetIssuedAt().AsTime()})
	}))
	c.Handle(events.TopicEligibilityCodeRequested, handle(func(ctx context.Context, tx pgx.Tx, id string, ev *eventsv1.EligibilityCodeRequested) error {
		return svc.VerificationCode(ctx, tx, id, domain.VerificationCode{Email: ev.GetEmail(), Code: ev.GetCode(), Program: ev.GetProgram(),
			ExpiresAt: ev.GetExpiresAt().AsTime()})
	}))
	c.Handle(events.TopicAccountCreated, handle(func(ctx context.Context, tx pgx.Tx, id string, ev *eventsv1.AccountCreated) error {
		return svc.Welcome(ctx, tx, id, domain.Welcome{Email: ev.GetEmail(), AccountKind: ev.GetAccountKind()})
	}))
	c.Handle(events.TopicDunningNotice, handle(func(ctx context.Context, tx pgx.Tx, id string, ev *eventsv1.DunningNotice) error {
		d := domain.Dunning{Email: ev.GetEmail(), Kind: ev.GetKind(), SubscriptionID: ev.GetSubscriptionId(),
			Amount: ev.GetAmount().GetAmountInCents(), Currency: ev.GetAmount().GetCurrency(), Reason: ev.GetReason(), ActionPath: ev.GetActionUrl()}
		if ev.GetDate() != nil {
			d.Date = ev.GetDate().AsTime()
		}
		if ev.GetNextAttempt() != nil {
			d.NextAttempt = ev.GetNextAttempt().AsTime()
		}
		return svc.Dunning(ctx, tx, id, d)
	}))
}

// ReceiptOf is the receipt of an order-completed event.
func ReceiptOf(ev *eventsv1.OrderCompleted) domain.Receipt {
	r := domain.Receipt{OrderID: ev.GetOrderId(), InvoiceID: ev.GetInvoiceId(), InvoiceNumber: ev.GetInvoiceNumber(), Email: ev.GetEmail(),
		OrderKind: ev.GetOrderKind(), Currency: ev.GetCurrency(), Subtotal: ev.GetSubtotalInCents(), Tax: ev.GetTaxInCents(),
		TaxLabel: ev.GetTaxLabel(), Total: ev.GetTotalInCents(), ReverseCharge: ev.GetReverseCharge(), CardBrand: ev.GetCardBrand(),
		CardLast4: ev.GetCardLast4(), CompletedAt: ev.GetCompletedAt().AsTime(), ReceiptPath: ev.GetReceiptUrl()}
	if r.InvoiceNumber == "" {
		r.InvoiceNumber = r.InvoiceID
	}
	for _, l := range ev.GetLines() {
		r.Lines = append(r.Lines, domain.Line{Code: l.GetAddOnCode(), Description: l.GetDescription(), Type: l.GetType(),
			Quantity: l.GetQuantity(), Amount: l.GetAmountInCents(), Reason: l.GetReason()})
	}
	return r
}

// handle decodes the payload as T and calls f. An undecodable payload or an event the
// domain refuses (no address, say) will not improve on a retry: it is dead-lettered.
func handle[T any, P interface {
	*T
	proto.Message
}](f func(ctx context.Context, tx pgx.Tx, eventID string, ev P) error) kafka.InboxHandler {
	return func(ctx context.Context, tx pgx.Tx, env kafka.Envelope) error {
		ev := P(new(T))
		if err := env.Decode(ev); err != nil {
			return err
		}
		err := f(ctx, tx, env.ID, ev)
		if errs.CodeOf(err) == errs.Invalid {
			return kafka.Permanent(err)
		}
		return err
	}
}
