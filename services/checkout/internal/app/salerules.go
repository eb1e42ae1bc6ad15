package app

import (
	"context"
	"strings"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/rules"
)

// Eligibility is identity's military eligibility (spec 001 §4, military eligibility).
type Eligibility interface {
	// MilitaryEligible answers whether identity holds the buyer (the e-mail, or the
	// account) as military-eligible.
	MilitaryEligible(ctx context.Context, email, accountID string) (bool, error)
}

// accountCurrency is the currency an account buys in: its subscription's, else its stored
// balance's; "" when it has neither (any currency).
func accountCurrency(sub *domain.Subscription, acct domain.Account) string {
	if sub != nil && sub.Currency != "" {
		return sub.Currency
	}
	if acct.BalanceInCents != 0 {
		return acct.BalanceCurrency
	}
	return ""
}

// lockCurrency refuses a cart in another currency than the account's (spec 000 §8,
// CURRENCY_NOT_ALLOWED_FOR_ACCOUNT): a customer who paid in USD cannot switch to EUR (and be
// charged again with no credit, since a credit never crosses currencies). Military carts
// are exempt: their currency is fixed by the server.
func lockCurrency(cart *domain.Cart, sub *domain.Subscription, acct domain.Account) {
	cur := accountCurrency(sub, acct)
	if cur == "" || cart.Military || strings.EqualFold(cur, cart.Currency.Code) {
		return
	}
	cart.Errors = append([]string{rules.MsgCurrencyNotAllowed}, cart.Errors...)
	cart.ErrorCodes = append(cart.ErrorCodes, rules.CodeCurrencyNotAllowed)
}

// militaryRefusal answers why a military cart may not be sold to its buyer, or "": the
// military and international-military plans are sold only to buyers identity holds as
// eligible (the code flow proved their e-mail, or their account is marked military).
// Without identity nobody can be shown eligible, so nobody is sold one.
func (s *Service) militaryRefusal(ctx context.Context, cart *domain.Cart) (string, error) {
	if !rules.MilitaryCart(cart) {
		return "", nil
	}
	account := cart.AccountID
	if cart.Existing != nil && account == "" {
		account = cart.Existing.AccountID
	}
	ok := false
	if s.eligible != nil && (cart.Email != "" || account != "") {
		var err error
		if ok, err = s.eligible.MilitaryEligible(ctx, cart.Email, account); err != nil {
			return "", err
		}
	}
	if ok {
		return "", nil
	}
	return rules.MsgMilitaryEligibility(cart.MilitaryIntl || rules.InternationalPlan(cart.Plan)), nil
}
