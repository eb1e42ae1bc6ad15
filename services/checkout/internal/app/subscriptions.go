package app

import (
	"context"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/rules"
	"github.com/hangar/hangar/services/checkout/internal/subscription"
)

// Viewer is the session asking for subscription data: the platform's caller (the zero
// Caller without a session), so the rights are auth.MayActOn's (docs/authorization.md).
type Viewer = auth.Caller

// SubscriptionStore is the storage of the subscription settings.
type SubscriptionStore interface {
	// SetAutoRenew, in one transaction, sets the subscription's auto-renewal and moves its
	// term's renewal with it (turned off: a due renewal not held by a worker ends with the
	// term; turned on: one recorded as ending is due again), then saves the events that
	// events answers for the change.
	SetAutoRenew(ctx context.Context, subscriptionID string, on bool, events func(AutoRenewChange) ([]kafka.Event, error)) (*domain.Subscription, error)
	SetBillingContact(ctx context.Context, subscriptionID string, c domain.BillingContact) error
}

// MySubscription answers the session's subscription (by its account id, else by its
// e-mail, which identity proved); 401 without a session, 404 without a subscription.
func (s *Service) MySubscription(ctx context.Context, v Viewer) (*domain.Subscription, error) {
	if v.AccountUUID == "" {
		return nil, errs.E(errs.Unauthorized, "Please log in to see your subscription.")
	}
	sub, err := s.lookup(ctx, "", domain.ExtractAccountID(v.AccountUUID), domain.NormalizeEmail(v.Username))
	if err != nil {
		return nil, err
	}
	if sub == nil {
		return nil, errs.E(errs.NotFound, "You have no subscription yet.")
	}
	return sub, nil
}

// SetAutoRenew turns the session's auto-renewal on or off. productCode is required (spec
// 001 §7 posts it with every toggle) and must be the subscription's plan or an add-on of it.
func (s *Service) SetAutoRenew(ctx context.Context, v Viewer, productCode string, on bool) (*domain.Subscription, error) {
	if strings.TrimSpace(productCode) == "" {
		return nil, errs.Field("productCode", "productCode is required: the product whose auto-renewal changes.")
	}
	sub, err := s.MySubscription(ctx, v)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(productCode, sub.PlanCode) && !contains(sub.AddOns, productCode) {
		return nil, errs.Field("productCode", "This product is not part of your subscription.")
	}
	if sub.ThirdParty() {
		return nil, errs.E(errs.Forbidden, rules.MsgThirdParty)
	}
	cat, _ := s.Catalog()
	return s.subs.SetAutoRenew(ctx, sub.ID, on, func(c AutoRenewChange) ([]kafka.Event, error) {
		ev, err := subscription.Changed{Sub: c.Sub, Change: "auto-renew", At: s.now(), Catalog: cat}.Event()
		if err != nil {
			return nil, err
		}
		if !c.Was || c.Sub.AutoRenew {
			return []kafka.Event{ev}, nil
		}
		notice, err := dunning(autoRenewOffNotice(c, s.accountURL))
		if err != nil {
			return nil, err
		}
		return []kafka.Event{ev, notice}, nil
	})
}

// AutoRenewChange is a subscription whose auto-renewal was just set, as stored: Was is the
// setting before; turned off, Declines and LastFailure are its due renewal's (a renewal
// declined and retried in its grace period has some).
type AutoRenewChange struct {
	Sub         *domain.Subscription
	Was         bool
	Declines    int
	LastFailure string
}

// autoRenewOffNotice confirms auto-renew turned off by e-mail. Two cases, two e-mails:
// before the term ends, "auto-renew-disabled" (active until its end date, not charged); in
// the grace period (the renewal was declined and is being retried, the term has already
// ended), "auto-renew-disabled-grace": the retries stop and the subscription ends now,
// with the decline's reason.
func autoRenewOffNotice(c AutoRenewChange, actionURL string) *eventsv1.DunningNotice {
	n := &eventsv1.DunningNotice{AccountId: c.Sub.AccountID, Email: c.Sub.Email, Kind: "auto-renew-disabled", SubscriptionId: c.Sub.ID,
		Amount: &eventsv1.Money{AmountInCents: c.Sub.PriceInCents, Currency: c.Sub.Currency}, Date: timestamppb.New(c.Sub.TermEnd),
		ActionUrl: actionURL}
	if c.Declines > 0 {
		n.Kind, n.Reason = "auto-renew-disabled-grace", c.LastFailure
	}
	return n
}

// Currency answers a customer's currency and where it came from: their subscription's (by
// account id or e-mail); else, for a visitor without one, DefaultCurrency (the currency
// cookie, the location, USD). By account id it is account data: the Billing right.
func (s *Service) Currency(ctx context.Context, email, accountID string, caller Caller) (string, string, error) {
	acct, mail := domain.ExtractAccountID(accountID), domain.NormalizeEmail(email)
	if acct == "" && mail == "" {
		cur, src := s.DefaultCurrency(ctx, caller)
		return cur, src, nil
	}
	if acct != "" {
		if _, err := auth.RequireRight(ctx, acct, auth.Billing); err != nil {
			return "", "", err
		}
	}
	if mail != "" {
		if err := s.lookupByEmail(ctx, caller.Client); err != nil {
			return "", "", err
		}
	}
	sub, err := s.store.SubscriptionOf(ctx, acct, "")
	if err == nil && sub == nil && mail != "" {
		sub, err = s.store.SubscriptionOf(ctx, "", mail)
	}
	if err != nil {
		return "", "", errs.Wrap(errs.Unavailable, err, "subscriptions are unavailable; try again")
	}
	if sub == nil {
		cur, src := s.DefaultCurrency(ctx, caller)
		return cur, src, nil
	}
	return sub.Currency, CurrencyFromSubscription, nil
}

// AccountSubscription answers an account's subscription to whoever holds the Billing right
// on it (auth.MayActOn: the account itself, its organization's owner, staff) and to whoever
// manages that subscription for it (manages: a child's group parent). Spec 001 §8
// words the refusals its own way: without a session 403 (the page asks to log in), for
// anyone else 401 ('You are not authorized.').
func (s *Service) AccountSubscription(ctx context.Context, v Viewer, accountUUID string) (*domain.Subscription, error) {
	if v.AccountUUID == "" {
		return nil, errs.E(errs.Forbidden, "Please log in.")
	}
	acct := domain.ExtractAccountID(accountUUID)
	mayAct := auth.MayActOn(v, acct, auth.Billing) == nil
	if !mayAct && acct == "" {
		return nil, errs.E(errs.Unauthorized, "You are not authorized.")
	}
	sub, err := s.lookup(ctx, "", acct, "")
	if err != nil {
		return nil, err
	}
	if !mayAct && !manages(v, sub) {
		// The group parent (or organization owner) reads the subscription it buys for the
		// holder, as submit lets it change it (spec 001 §7); nobody else, whether the
		// account has a subscription or not.
		return nil, errs.E(errs.Unauthorized, "You are not authorized.")
	}
	if sub == nil && acct == v.AccountUUID {
		return s.MySubscription(ctx, v)
	}
	if sub == nil {
		return nil, errs.E(errs.NotFound, "This account has no subscription.")
	}
	return sub, nil
}

// UpdateBillingContact saves an account's billing contact (access as AccountSubscription).
func (s *Service) UpdateBillingContact(ctx context.Context, v Viewer, accountUUID string, c domain.BillingContact) (domain.BillingContact, error) {
	sub, err := s.AccountSubscription(ctx, v, accountUUID)
	if err != nil {
		return c, err
	}
	c.Country = strings.ToUpper(strings.TrimSpace(c.Country))
	if strings.TrimSpace(c.Name) == "" {
		return c, errs.Field("name", MsgNameBlank)
	}
	if err := s.subs.SetBillingContact(ctx, sub.ID, c); err != nil {
		return c, err
	}
	return c, nil
}
