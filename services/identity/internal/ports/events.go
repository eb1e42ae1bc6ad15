package ports

import (
	"context"

	"github.com/jackc/pgx/v5"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/identity/internal/app"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// InboxOf binds the use cases' event writes to the transaction in which the inbox consumer
// records the events (adapters.InTx in production).
type InboxOf func(tx pgx.Tx) app.Inbox

// SubscriptionChanges is the batch inbox handler of checkout's subscription-changed events:
// the batch's events, decoded, go to the projection in the batch's transaction. A payload
// that does not decode fails the batch permanently, so the consumer dead-letters that event.
func SubscriptionChanges(svc *app.Service, inbox InboxOf) kafka.InboxBatchHandler {
	return func(ctx context.Context, tx pgx.Tx, envs []kafka.Envelope) error {
		evs, err := kafka.DecodeAll[eventsv1.SubscriptionChanged](envs)
		if err != nil {
			return err
		}
		changes := make([]domain.AccountEntitlement, len(evs))
		for i, ev := range evs {
			changes[i] = EntitlementOf(ev)
		}
		return svc.HandleSubscriptionChanges(ctx, inbox(tx), changes)
	}
}

// EntitlementOf is the account's subscription as a subscription-changed event reports it.
func EntitlementOf(ev *eventsv1.SubscriptionChanged) domain.AccountEntitlement {
	codes := make([]string, 0, len(ev.GetAddOns()))
	for _, a := range ev.GetAddOns() {
		codes = append(codes, a.GetAddOnCode())
	}
	return domain.AccountEntitlement{Account: ev.GetAccountId(), Entitlement: domain.Entitlement{
		SubscriptionID: ev.GetSubscriptionId(), PlanCode: ev.GetPlanCode(), AddOns: codes, Status: ev.GetStatus(), Version: ev.GetVersion()}}
}

// MarketingConsentGiven is the inbox handler of checkout's marketing-consent-given events:
// the consent goes on the buyer's account in the event's transaction.
func MarketingConsentGiven(svc *app.Service, inbox InboxOf) kafka.InboxHandler {
	return func(ctx context.Context, tx pgx.Tx, env kafka.Envelope) error {
		var ev eventsv1.MarketingConsentGiven
		if err := env.Decode(&ev); err != nil {
			return err
		}
		c := app.ConsentGiven{Account: ev.GetAccountId(), Order: ev.GetOrderId()}
		if ev.GetGivenAt() != nil {
			c.GivenAt = ev.GetGivenAt().AsTime()
		}
		return svc.HandleMarketingConsentGiven(ctx, inbox(tx), c)
	}
}

// OrderCompletions is the batch inbox handler of checkout's order-completed events: the
// first completed order of each of the batch's accounts issues its welcome link
// (app.WelcomeAfterFirstOrders), in the batch's transaction. A payload that does not decode
// fails the batch permanently, so the consumer dead-letters that event.
func OrderCompletions(svc *app.Service, inbox InboxOf) kafka.InboxBatchHandler {
	return func(ctx context.Context, tx pgx.Tx, envs []kafka.Envelope) error {
		evs, err := kafka.DecodeAll[eventsv1.OrderCompleted](envs)
		if err != nil {
			return err
		}
		accounts := make([]string, len(evs))
		for i, ev := range evs {
			accounts[i] = ev.GetAccountId()
		}
		return svc.WelcomeAfterFirstOrders(ctx, inbox(tx), accounts)
	}
}
