package app

import (
	"context"
	"strings"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/domain"
)

// manages reports whether the session owns sub for the person who holds it: the group
// parent of a child account's subscription (its parent account), or the owner of the
// organization the subscription is filed under, i.e. the Billing right (auth.MayActOn)
// on the subscription's parent or organization account. They price and change it for
// the child or member (issue 27); the holder of a child subscription still cannot
// (CHILD_ACCOUNT_PURCHASE, spec 000 §1). Staff powers do not count: they reach every
// account's billing, and a subscription is no more theirs to buy for than before.
func manages(who auth.Caller, sub *domain.Subscription) bool {
	if sub == nil || who.AccountUUID == "" {
		return false
	}
	who.IsEmployee, who.IsCreditCardAdmin = false, false
	for _, owner := range []string{sub.ParentAccountID, sub.OrganizationID} {
		if owner != "" && auth.MayActOn(who, owner, auth.Billing) == nil {
			return true
		}
	}
	return false
}

// managesFor reports whether the caller of ctx manages sub for someone else: manages, and
// the subscription is not the caller's own.
func managesFor(ctx context.Context, sub *domain.Subscription) bool {
	who, ok := auth.CallerFrom(ctx)
	return ok && sub != nil && !strings.EqualFold(sub.AccountID, who.AccountUUID) && manages(who, sub)
}

// managedSubscription answers the subscription a logged-in caller names by another
// account's id (accountId, or an id typed as the e-mail) when the caller manages it for
// that account, so the configuration prices it as if named by its subscription id; nil
// otherwise (a configuration naming no one else, or no such subscription).
func (s *Service) managedSubscription(ctx context.Context, in domain.Input) (*domain.Subscription, error) {
	acct := namedAccount(in)
	if acct == "" || in.SalesMode() || !in.Caller.LoggedIn || strings.EqualFold(acct, domain.ExtractAccountID(in.Caller.AccountID)) ||
		domain.ExtractAccountID(in.SubscriptionID) != "" {
		return nil, nil
	}
	sub, err := s.store.SubscriptionOf(ctx, acct, "")
	if err != nil || !managesFor(ctx, sub) {
		return nil, wrapIf(err, unavailableSubs)
	}
	return sub, nil
}

func unavailableSubs(err error) error {
	return errs.Wrap(errs.Unavailable, err, "subscriptions are unavailable; try again")
}
