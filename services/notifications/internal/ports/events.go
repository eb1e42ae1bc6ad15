// Package ports is how events reach the notifications service: one inbox batch handler
// for its topics, converting the event's protobuf payload to the domain and calling the app.
package ports

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/trace"
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
	events.TopicAccountCreated, events.TopicDunningNotice, events.TopicPasswordLinkIssued, events.TopicPasswordChanged}

// Handler is the batch handler of every topic: it renders each event's e-mails and queues
// them all in the batch's inbox transaction with one statement, to be handed to this
// process's senders once it committed. An event it cannot render fails the batch, whose
// events are then handled one at a time, so only that one is retried or dead-lettered.
// inbox binds the queue's writes to the batch's transaction (adapters' Store.In).
func Handler[I app.Inbox](svc *app.Service, inbox func(pgx.Tx) I) kafka.InboxBatchHandler {
	render := map[string]func(ctx context.Context, b *app.Mails, env kafka.Envelope) error{
		events.TopicOrderCompleted: decode(func(ctx context.Context, b *app.Mails, id string, ev *eventsv1.OrderCompleted) error {
			svc.OrderCompleted(b, ev.GetAccountId()) // releases the account's welcome, held until its first order
			return svc.Receipt(ctx, b, id, ReceiptOf(ev))
		}),
		events.TopicGiftCertificateIssued: decode(func(ctx context.Context, b *app.Mails, id string, ev *eventsv1.GiftCertificateIssued) error {
			return svc.GiftCertificate(ctx, b, id, domain.GiftCertificate{Code: ev.GetCode(), Amount: ev.GetBalance().GetAmountInCents(),
				Currency: ev.GetBalance().GetCurrency(), BuyerEmail: ev.GetBuyerEmail(), RecipientEmail: ev.GetRecipientEmail(),
				RecipientName: ev.GetRecipientName(), Message: ev.GetMessage(), IssuedAt: ev.GetIssuedAt().AsTime()})
		}),
		events.TopicEligibilityCodeRequested: decode(func(ctx context.Context, b *app.Mails, id string, ev *eventsv1.EligibilityCodeRequested) error {
			return svc.VerificationCode(ctx, b, id, domain.VerificationCode{Email: ev.GetEmail(), Code: ev.GetCode(), Program: ev.GetProgram(),
				ExpiresAt: ev.GetExpiresAt().AsTime()})
		}),
		events.TopicAccountCreated: decode(func(ctx context.Context, b *app.Mails, id string, ev *eventsv1.AccountCreated) error {
			if ev.GetPasswordless() {
				return nil // welcomed with its set-password link (password-link-issued, same transaction)
			}
			return svc.Welcome(ctx, b, id, domain.Welcome{Email: ev.GetEmail(), AccountKind: ev.GetAccountKind()})
		}),
		// The link is a credential: it goes into the mail only, never into a log.
		events.TopicPasswordLinkIssued: decode(func(ctx context.Context, b *app.Mails, id string, ev *eventsv1.PasswordLinkIssued) error {
			switch ev.GetPurpose() {
			case "welcome":
				w := domain.Welcome{Email: ev.GetEmail(), AccountKind: ev.GetAccountKind(), Organization: ev.GetOrganizationName(),
					SetPasswordPath: ev.GetLink(), ExpiresAt: ev.GetExpiresAt().AsTime()}
				if ev.GetAfterOrder() || w.Organization != "" {
					// Issued when the account's first order completed (or, before
					// invitations, a member an administrator added): mailed at once, so the
					// link never waits at rest in held_mails.
					return svc.Welcome(ctx, b, id, w)
				}
				// A link identity issued at the account's creation (before it issued them
				// after the first order): held until the first order completes.
				return svc.WelcomeOnFirstOrder(ctx, b, id, ev.GetAccountUuid(), w)
			case "invitation": // an organization's invitation: nobody has an account in its name yet
				return svc.Invitation(ctx, b, id, domain.Invitation{Email: ev.GetEmail(), Organization: ev.GetOrganizationName(), Link: ev.GetLink(),
					ExpiresAt: ev.GetExpiresAt().AsTime()})
			case "reset":
				return svc.PasswordReset(ctx, b, id, domain.PasswordReset{Email: ev.GetEmail(), Link: ev.GetLink(), ExpiresAt: ev.GetExpiresAt().AsTime()})
			}
			return errs.E(errs.Invalid, "password link event of unknown purpose %q", ev.GetPurpose())
		}),
		events.TopicPasswordChanged: decode(func(ctx context.Context, b *app.Mails, id string, ev *eventsv1.PasswordChanged) error {
			return svc.PasswordChanged(ctx, b, id, domain.PasswordChanged{Email: ev.GetEmail(), ChangedAt: ev.GetChangedAt().AsTime()})
		}),
		events.TopicDunningNotice: decode(func(ctx context.Context, b *app.Mails, id string, ev *eventsv1.DunningNotice) error {
			d := domain.Dunning{Email: ev.GetEmail(), Kind: ev.GetKind(), SubscriptionID: ev.GetSubscriptionId(),
				Amount: ev.GetAmount().GetAmountInCents(), Currency: ev.GetAmount().GetCurrency(), Reason: ev.GetReason(), ActionPath: ev.GetActionUrl()}
			if ev.GetDate() != nil {
				d.Date = ev.GetDate().AsTime()
			}
			if ev.GetNextAttempt() != nil {
				d.NextAttempt = ev.GetNextAttempt().AsTime()
			}
			return svc.Dunning(ctx, b, id, d)
		}),
	}
	return func(ctx context.Context, tx pgx.Tx, envs []kafka.Envelope) error {
		var b app.Mails
		for _, env := range envs {
			f, ok := render[env.Topic]
			if !ok {
				return kafka.Permanent(fmt.Errorf("event %s: no handler for topic %s", env.ID, env.Topic))
			}
			if len(envs) == 1 && trace.SpanContextFromContext(ctx).IsValid() { // the consumer's span is the event's
				if err := f(ctx, &b, env); err != nil {
					return err
				}
				break
			}
			hdr := kafka.Headers(env.Headers)
			ectx, span := svc.EventSpan(ctx, env.Topic, env.ID, &hdr)
			err := f(ectx, &b, env)
			span.End()
			if err != nil {
				return err
			}
		}
		return svc.Queue(ctx, inbox(tx), &b, kafka.AfterCommit)
	}
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
			Quantity: l.GetQuantity(), Amount: l.GetAmountInCents(), Reason: l.GetReason(), PostTax: l.GetPostTax()})
	}
	return r
}

// decode decodes the payload as T and calls f. An undecodable payload or an event the
// domain refuses (no address, say) will not improve on a retry: it is dead-lettered.
func decode[T any, P interface {
	*T
	proto.Message
}](f func(ctx context.Context, b *app.Mails, eventID string, ev P) error) func(ctx context.Context, b *app.Mails, env kafka.Envelope) error {
	return func(ctx context.Context, b *app.Mails, env kafka.Envelope) error {
		ev := P(new(T))
		if err := env.Decode(ev); err != nil {
			return err
		}
		err := f(ctx, b, env.ID, ev)
		if errs.CodeOf(err) == errs.Invalid {
			return kafka.Permanent(err)
		}
		return err
	}
}
