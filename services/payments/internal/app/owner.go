package app

import (
	"context"
	"strings"
	"time"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/payments/internal/adapters"
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

// mayPayWith is the stored-method rule (docs/authorization.md) for a method of owner paying
// customer's purchase, asked by caller (nil: no session, the renewal engine or a buyer
// without one). readerVaulted says whether the sales-mode reader vaulted the method for the
// buyer's e-mail in the caller's session (only asked when the rest refuses).
func mayPayWith(caller *auth.Caller, owner, customer string, readerVaulted func() (bool, error)) (viaReader bool, err error) {
	if owner == "" {
		return false, errMethodRefused
	}
	if caller == nil {
		// Checkout names the account that is buying; without a session only that account's
		// own methods pay (a renewal charges the subscriber's card on file).
		if owner == customer {
			return false, nil
		}
		return false, errMethodRefused
	}
	// The buyer's own method, or one of an organization whose billing the caller owns.
	if ownsBilling(*caller, owner) && (owner == customer || owner != caller.AccountUUID) {
		return false, nil
	}
	if caller.IsCreditCardAdmin {
		ok, err := readerVaulted()
		if err != nil {
			return false, err
		}
		if ok {
			return true, nil
		}
	}
	return false, errMethodRefused
}

// methodFor answers the stored method token may pay customer's purchase with, or the
// refusal (logged with the caller's account, never card data). viaReader: the sales-mode
// reader's card for this customer, which then becomes the customer's (adapters.Adoption).
func (s *Service) methodFor(ctx context.Context, token, customer, email, reference string) (adapters.StoredMethod, bool, error) {
	sm, err := s.store.StoredMethod(ctx, token)
	if err != nil && errs.CodeOf(err) != errs.NotFound {
		return sm, false, err
	}
	var caller *auth.Caller
	if c, ok := auth.CallerFrom(ctx); ok {
		caller = &c
	}
	viaReader, err := mayPayWith(caller, sm.Owner, customer, func() (bool, error) {
		email = strings.TrimSpace(email)
		if email == "" {
			return false, nil
		}
		return s.store.ReaderVaulted(ctx, token, caller.AccountUUID, email, s.now().Add(-SalesModeWindow))
	})
	if errs.CodeOf(err) == errs.Forbidden {
		by := ""
		if caller != nil {
			by = caller.AccountUUID
		}
		s.log.WarnContext(ctx, "stored payment method refused", "caller", by, "customer", customer, "reference", reference,
			"known", sm.Owner != "")
	}
	return sm, viaReader, err
}
