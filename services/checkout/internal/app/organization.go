package app

import (
	"context"
	"strings"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// Organizations is identity's organizations as submit uses them: a business buyer in no
// organization gets one at checkout.
type Organizations interface {
	// ProvisionOrganization answers the account of the organization ownerAccountID owns
	// (its own account), creating the organization with name and the account as its
	// owner when there is none. Idempotent: a retried submit finds it.
	ProvisionOrganization(ctx context.Context, ownerAccountID, name string) (organizationAccount string, err error)
}

// businessOrganization files a business purchase's licences under an organization: the
// organization the buyer acts for (subscriptionPurchase), else a new one identity creates
// now with the order's organization name and the buyer as its owner. Its account is the
// buyer's, so the subscription-changed event names it and the allocation service files the
// pools under it, and the buyer (its owner) can assign them at once (identity's user
// listing of the organization answers its members). It runs before the charge, as the
// buyer's account is created before it: a declined card leaves the organization, which
// the retry (same key or a new one) finds again.
func (s *Service) businessOrganization(ctx context.Context, pu *order.Purchase, pv *pricing.Preview, name string) error {
	name = strings.TrimSpace(name)
	if !pv.Cart.Business || pu.OrganizationID != "" || pu.AccountID == "" || name == "" {
		return nil
	}
	orgs, ok := s.accounts.(Organizations)
	if !ok {
		return errs.E(errs.Unavailable, "organizations cannot be created: identity is not configured")
	}
	acct, err := orgs.ProvisionOrganization(ctx, pu.AccountID, name)
	if err != nil {
		return err
	}
	pu.OrganizationID = acct
	return nil
}
