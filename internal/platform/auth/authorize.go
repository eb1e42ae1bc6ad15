package auth

import (
	"context"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Right is what a caller wants to do with an account's data. Who holds it is the table
// in docs/authorization.md; MayActOn is that table in code, for every service.
type Right string

const (
	// Billing: see and change how an account pays (payment methods, auto-renew, billing
	// contacts), its subscriptions, invoices and receipts. The account itself, the owner of
	// the organization whose account it is, and staff (employees, credit-card admins).
	Billing Right = "billing"
	// Members: see and manage an organization's users and licence allocations. The account
	// itself, the organization's owner and user admins, and employees.
	Members Right = "members"
	// Profile: an account's own settings and consents. The account itself and employees.
	Profile Right = "profile"
)

// Organization roles as identity names them.
const (
	RoleOwner     = "owner"
	RoleUserAdmin = "user_admin"
)

// rolesFor are the organization roles that carry each right over the organization's own
// account. A plain member, a dispatcher or an aircraft admin holds none.
var rolesFor = map[Right][]string{
	Billing: {RoleOwner},
	Members: {RoleOwner, RoleUserAdmin},
	Profile: nil,
}

// ErrNotAuthorized is the answer to a caller acting on an account they hold no right over.
var ErrNotAuthorized = errs.E(errs.Forbidden, "You are not authorized.")

// MayActOn answers nil when c may exercise right on accountID's data, else
// ErrNotAuthorized: the account itself; the organization's owner (and for Members its user
// admins) when accountID is the account of an organization in which the caller holds that
// role (Caller.Memberships, never the union Caller.Roles); staff (employees; for
// Billing also credit-card admins, who take card payments in sales mode).
func MayActOn(c Caller, accountID string, right Right) error {
	if c.AccountUUID == "" {
		return ErrLoginRequired
	}
	if accountID == "" {
		return ErrNotAuthorized
	}
	if c.AccountUUID == accountID {
		return nil
	}
	if c.IsEmployee || (right == Billing && c.IsCreditCardAdmin) {
		return nil
	}
	// Only the roles held in the organization whose account this is count: an owner of
	// organization B who is a plain member of A holds no right over A's account.
	for _, m := range c.Memberships {
		if m.OrganizationAccount == "" || m.OrganizationAccount != accountID {
			continue
		}
		for _, r := range rolesFor[right] {
			if m.HasRole(r) {
				return nil
			}
		}
	}
	return ErrNotAuthorized
}

// RequireRight is Require, then MayActOn: the usual first line of a handler taking an
// account id.
func RequireRight(ctx context.Context, accountID string, right Right) (Caller, error) {
	c, err := Require(ctx)
	if err != nil {
		return Caller{}, err
	}
	return c, MayActOn(c, accountID, right)
}
