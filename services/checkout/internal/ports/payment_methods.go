package ports

import (
	"context"

	"github.com/jackc/pgx/v5"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/cardexpiry"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/app"
)

// PaymentMethodsGroup is checkout's consumer group of payments' payment-method-updated.
const PaymentMethodsGroup = "checkout-payment-methods"

// RenewalTxs binds the renewal engine's writes to a consumer's inbox transaction
// (adapters.Renewals).
type RenewalTxs interface {
	Tx(tx pgx.Tx) app.RenewalTx
}

// PaymentMethodUpdates consumes payments' payment-method-updated: a card method changed outside
// checkout's orders (the update page, a card reader). An order's own card is written by the
// order and payments does not announce it.
type PaymentMethodUpdates struct {
	Renewer *app.Renewer
	Store   RenewalTxs
}

// Consumer builds the consumer (group and inbox PaymentMethodsGroup; cfg's Group and Inbox
// are set here), which hands the events to Handle in batches: one transaction per batch.
func (p PaymentMethodUpdates) Consumer(cfg kafka.ConsumerConfig) *kafka.InboxBatchConsumer {
	cfg.Group, cfg.Inbox = PaymentMethodsGroup, PaymentMethodsGroup
	return kafka.NewInboxBatchConsumer(cfg, events.TopicPaymentMethodUpdated, p.Handle, kafka.BatchOptions{})
}

// Handle decodes a batch (an InboxBatchHandler) and applies it in the inbox's transaction.
func (p PaymentMethodUpdates) Handle(ctx context.Context, tx pgx.Tx, envs []kafka.Envelope) error {
	ups := make([]app.MethodUpdate, 0, len(envs))
	for _, env := range envs {
		var ev eventsv1.PaymentMethodUpdated
		if err := env.Decode(&ev); err != nil {
			return err
		}
		ups = append(ups, app.MethodUpdate{AccountID: ev.GetAccountId(), Token: ev.GetPaymentMethodToken(),
			Expires: cardexpiry.End(ev.GetExpirationDate())})
	}
	return p.Renewer.ApplyMethodUpdates(ctx, p.Store.Tx(tx), ups)
}
