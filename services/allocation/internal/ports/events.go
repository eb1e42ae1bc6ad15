package ports

import (
	"context"

	"github.com/jackc/pgx/v5"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/kafka"
	iapp "github.com/hangar/hangar/services/allocation/internal/app"
	"github.com/hangar/hangar/services/allocation/internal/domain"
)

// SubscriptionChanged is the batch inbox handler of checkout's subscription-changed events:
// it decodes the batch's events and has the app file them in the inbox's transaction (within
// binds the store to it). A payload that does not decode fails the batch, whose events
// are then handled one at a time, so only that one is retried and dead-lettered.
func SubscriptionChanged(svc *iapp.Service, within func(pgx.Tx) iapp.SubscriptionFiler) kafka.InboxBatchHandler {
	return func(ctx context.Context, tx pgx.Tx, envs []kafka.Envelope) error {
		evs, err := kafka.DecodeAll[eventsv1.SubscriptionChanged](envs)
		if err != nil {
			return err
		}
		subs := make([]domain.Subscription, len(evs))
		for i, ev := range evs {
			subs[i] = SubscriptionFromEvent(ev)
		}
		return svc.HandleSubscriptionChanges(ctx, within(tx), subs)
	}
}

// SubscriptionFromEvent reads the domain state of a subscription-changed payload.
func SubscriptionFromEvent(ev *eventsv1.SubscriptionChanged) domain.Subscription {
	s := domain.Subscription{
		ID: ev.GetSubscriptionId(), AccountID: ev.GetAccountId(), OrganizationID: ev.GetOrganizationId(),
		PlanCode: ev.GetPlanCode(), Quantity: int(ev.GetQuantity()), Status: ev.GetStatus(), Version: ev.GetVersion(),
	}
	for _, a := range ev.GetAddOns() {
		s.AddOns = append(s.AddOns, domain.AddOn{Code: a.GetAddOnCode(), Method: a.GetLicensingMethod(), Quantity: int(a.GetQuantity())})
	}
	if ev.GetTermStart() != nil {
		s.TermStart = ev.GetTermStart().AsTime()
	}
	if ev.GetTermEnd() != nil {
		s.TermEnd = ev.GetTermEnd().AsTime()
	}
	if ev.GetChangedAt() != nil {
		s.ChangedAt = ev.GetChangedAt().AsTime()
	}
	return s
}
