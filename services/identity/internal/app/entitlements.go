package app

import (
	"context"

	"github.com/hangar/hangar/services/identity/internal/domain"
)

// HandleSubscriptionChanges keeps the accounts' subscription projection (the source of
// /buy/api/me's plan and entitlement flags) in step with checkout's subscription-changed
// events, applied in order in the inbox transaction of the batch (in). Identity consumes
// events instead of asking checkout, because checkout already calls identity (sessions,
// account creation): no call cycle, and /buy/api/me does not depend on checkout being up.
func (s *Service) HandleSubscriptionChanges(ctx context.Context, in Inbox, changes []domain.AccountEntitlement) error {
	es := make([]domain.AccountEntitlement, 0, len(changes))
	for _, c := range changes {
		if c.Account == "" {
			continue
		}
		es = append(es, c)
	}
	if len(es) == 0 {
		return nil
	}
	return in.PutEntitlements(ctx, es)
}

// EntitlementFlags answers the flags the account's subscription grants (none without one).
func (s *Service) EntitlementFlags(ctx context.Context, accountUUID string) (map[string]bool, error) {
	e, ok, err := s.store.Entitlement(ctx, accountUUID)
	if err != nil || !ok {
		return nil, err
	}
	return domain.EntitlementFlags(e.PlanCode, e.AddOns, e.Status == "" || e.Status == "active"), nil
}
