package app

import (
	"context"
	"strings"
	"time"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
)

// MsgMethodRefused answers a stored method offered for a purchase it may not pay.
const MsgMethodRefused = "This stored payment method cannot be used for this purchase."

// SalesModeWindow is how long a card the reader vaulted may pay for its customer: sales
// mode lasts 24 hours (spec 001 §2).
const SalesModeWindow = 24 * time.Hour

// errMethodRefused is the refusal: one answer whether the method is someone else's or does
// not exist, so a refusal does not tell a guessed handle from a real one.
var errMethodRefused = errs.E(errs.Forbidden, "%s", MsgMethodRefused)

// memberView is c without its staff flags: the rights c holds over an account as the
// account itself or through an organization membership. Staff hold Billing over every
// account to look after it, never to pay with its cards.
func memberView(c auth.Caller) auth.Caller {
	return auth.Caller{AccountUUID: c.AccountUUID, Memberships: c.Memberships}
}

// ownsBilling reports whether c manages account's billing as the account itself or as the
// owner of the organization whose account it is (the authorization table without staff).
func ownsBilling(c auth.Caller, account string) bool {
	return c.AccountUUID != "" && auth.MayActOn(memberView(c), account, auth.Billing) == nil
}

// owners answers whose stored methods may pay customer's purchase when caller asks (nil:
// no session: the renewal engine, or a buyer without one): the customer's own, when the
// caller is the customer (or no session), or manages the customer's billing as an
// organization's owner; and those of every organization whose billing the caller owns.
// Staff powers count for nothing here. The stored-method rule of docs/authorization.md,
// besides the sales-mode reader's card (readerBy).
func owners(caller *auth.Caller, customer string) []string {
	if caller == nil {
		return []string{customer}
	}
	var out []string
	if ownsBilling(*caller, customer) {
		out = append(out, customer)
	}
	for _, m := range caller.Memberships {
		if m.OrganizationAccount != "" && m.OrganizationAccount != customer && ownsBilling(*caller, m.OrganizationAccount) {
			out = append(out, m.OrganizationAccount)
		}
	}
	return out
}

// payer answers who may pay with a stored method in a charge or vault for customer:
// the owners above, and with a credit-card admin's session the cards that admin's reader
// vaulted for the buyer's e-mail during sales mode (SalesModeWindow).
func (s *Service) payer(ctx context.Context, token, customer, email string) Payer {
	p := Payer{Token: token}
	c, ok := auth.CallerFrom(ctx)
	if !ok {
		p.Owners = owners(nil, customer)
		return p
	}
	p.Owners, p.Caller = owners(&c, customer), c.AccountUUID
	if email = strings.TrimSpace(email); c.IsCreditCardAdmin && email != "" {
		p.ReaderBy, p.Email, p.Since = c.AccountUUID, email, s.now().Add(-SalesModeWindow)
	}
	return p
}

// refused logs a refused stored method (the caller's account, never card data or the
// token) and answers the refusal.
func (s *Service) refused(ctx context.Context, p Payer, customer, reference string) error {
	s.log.WarnContext(ctx, "stored payment method refused", "caller", p.Caller, "customer", customer, "reference", reference)
	return errMethodRefused
}

// readerCard answers the stored method of p when it pays only as the sales-mode reader's
// card (its owner is none of p's owners: the e-mail the reader vaulted it for): it then
// becomes the customer's (Adoption). Nil otherwise; asked only in sales mode.
func (s *Service) readerCard(ctx context.Context, p Payer) (*StoredMethod, error) {
	if p.ReaderBy == "" {
		return nil, nil
	}
	sm, err := s.store.StoredMethod(ctx, p.Token)
	if err != nil {
		return nil, err
	}
	for _, o := range p.Owners {
		if o == sm.Owner {
			return nil, nil
		}
	}
	return &sm, nil
}
