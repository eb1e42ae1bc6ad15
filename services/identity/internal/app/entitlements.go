package app

import (
	"context"

	"github.com/jackc/pgx/v5"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/services/identity/internal/adapters"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// HandleSubscriptionChanges keeps the accounts' subscription projection (the source of
// /buy/api/me's plan and entitlement flags) in step with checkout's events, applied in
// order in the caller's transaction (the batch inbox consumer's). Identity consumes events
// instead of asking checkout, because checkout already calls identity (sessions, account
// creation): no call cycle, and /buy/api/me does not depend on checkout being up.
func (s *Service) HandleSubscriptionChanges(ctx context.Context, tx pgx.Tx, evs []*eventsv1.SubscriptionChanged) error {
	es := make([]adapters.AccountEntitlement, 0, len(evs))
	for _, ev := range evs {
		if ev.GetAccountId() == "" {
			continue
		}
		codes := make([]string, 0, len(ev.GetAddOns()))
		for _, a := range ev.GetAddOns() {
			codes = append(codes, a.GetAddOnCode())
		}
		es = append(es, adapters.AccountEntitlement{Account: ev.GetAccountId(), Entitlement: adapters.Entitlement{
			SubscriptionID: ev.GetSubscriptionId(), PlanCode: ev.GetPlanCode(), AddOns: codes, Status: ev.GetStatus(), Version: ev.GetVersion()}})
	}
	if len(es) == 0 {
		return nil
	}
	return adapters.PutEntitlements(ctx, tx, es)
}

// EntitlementFlags answers the flags the account's subscription grants (none without one).
func (s *Service) EntitlementFlags(ctx context.Context, accountUUID string) (map[string]bool, error) {
	e, ok, err := s.store.Entitlement(ctx, accountUUID)
	if err != nil || !ok {
		return nil, err
	}
	return domain.EntitlementFlags(e.PlanCode, e.AddOns, e.Status == "" || e.Status == "active"), nil
}
