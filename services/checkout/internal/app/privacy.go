package app

import (
	"context"
	"strings"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/domain"
)

// loginFirst is the refusal of a configuration naming an account the session may not act
// on: 401 with requireLogin (the page opens the login modal, spec 000 §4 Login) and the
// login message, nothing of the account.
func loginFirst() *SubmitError {
	return &SubmitError{Code: errs.Unauthorized, Message: MsgLoginRequired, Errors: []string{MsgLoginRequired}, RequireLogin: true}
}

// namedAccount answers the account a configuration names itself: its accountId, else an
// account id typed into the e-mail field (the rules take a UUID-shaped e-mail as one).
func namedAccount(in domain.Input) string {
	if id := domain.ExtractAccountID(in.AccountID); id != "" {
		return id
	}
	if email := domain.NormalizeEmail(in.Email); email != "" && !strings.Contains(email, "@") {
		return domain.ExtractAccountID(email)
	}
	return ""
}

// mayName refuses (loginFirst) a configuration that names an account or a subscription the
// session may not act on with the Billing right (auth.MayActOn, docs/authorization.md):
// pricing it would show that account's plan, dates, balance and tax area. Anonymous
// callers naming any are refused without a look-up, so an answer never tells whether an
// id exists. A subscription that does not exist names nobody's data and is priced as
// none. The group parent of a child's subscription and the owner of the organization a
// subscription is filed under may name it (manages). The same person under an older
// account id (checkout's subscription carries the session's proven e-mail) may act on it,
// as lookup allows.
func (s *Service) mayName(ctx context.Context, in domain.Input) error {
	acct, subID := namedAccount(in), domain.ExtractAccountID(in.SubscriptionID)
	if acct == "" && subID == "" {
		return nil
	}
	who, err := auth.Require(ctx)
	if errs.CodeOf(err) == errs.Unauthorized {
		return loginFirst()
	}
	if err != nil {
		return err
	}
	if acct != "" && auth.MayActOn(who, acct, auth.Billing) != nil {
		sub, err := s.store.SubscriptionOf(ctx, acct, "")
		if err != nil {
			return errs.Wrap(errs.Unavailable, err, "subscriptions are unavailable; try again")
		}
		if !samePerson(who, sub) && !manages(who, sub) {
			return loginFirst()
		}
	}
	if subID != "" {
		sub, err := s.store.Subscription(ctx, subID)
		if err != nil {
			return errs.Wrap(errs.Unavailable, err, "subscriptions are unavailable; try again")
		}
		if sub != nil && auth.MayActOn(who, sub.AccountID, auth.Billing) != nil && !samePerson(who, sub) && !manages(who, sub) {
			return loginFirst()
		}
	}
	return nil
}

// samePerson reports whether sub is the caller's own under another account id: its e-mail
// is the one identity proved for the session.
func samePerson(who auth.Caller, sub *domain.Subscription) bool {
	return sub != nil && who.Username != "" && strings.EqualFold(sub.Email, domain.NormalizeEmail(who.Username))
}

// Throttle limits a door per client address across replicas (ratelimit.Shared).
type Throttle interface {
	Allow(ctx context.Context, key string) error
}

// lookupByEmail throttles a look-up of an e-mail the caller has not proven (whether it has
// an account, a subscription, in which currency) per client address, as identity's
// isbusiness is: 429 with Retry-After past the burst. Without a throttle (checkout alone
// in a unit test) every look-up passes.
func (s *Service) lookupByEmail(ctx context.Context, client string) error {
	if s.lookups == nil || client == unlimited {
		return nil
	}
	return s.lookups.Allow(ctx, "email-lookup|"+client)
}

// anonymousEmail reports whether validating in looks its e-mail up for a caller who has
// not proven it (loginRequired asks whether the e-mail has an account).
func anonymousEmail(in domain.Input) bool {
	return !in.Caller.LoggedIn && !in.SalesMode() && strings.Contains(in.Email, "@")
}
