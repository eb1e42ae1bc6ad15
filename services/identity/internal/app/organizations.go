package app

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// MsgOrganizationName is checkout's message for a business purchase without one (spec 000
// §5 wording there); identity says the same.
const MsgOrganizationName = "Please enter your organization name."

// OwnerRoles are the roles of an organization's owner created at checkout: as the seeded
// Acme owner's, everything (the owner role) and the aircraft (tail) administration.
var OwnerRoles = []domain.Role{domain.RoleOwner, domain.RoleAircraftAdmin}

// ProvisionOrganization answers the organization whose own account is ownerUUID, creating
// it with name and the account as its owner when there is none (see
// OrganizationStore.ProvisionOrganization). Checkout calls it for a business purchase by a
// buyer in no organization; a retry finds the organization the first call made.
func (s *Service) ProvisionOrganization(ctx context.Context, ownerUUID, name string) (domain.Organization, bool, error) {
	name = strings.Join(strings.Fields(name), " ")
	switch {
	case name == "":
		return domain.Organization{}, false, errs.Field("name", MsgOrganizationName)
	case utf8.RuneCountInString(name) > 200:
		return domain.Organization{}, false, errs.Field("name", "The organization name is at most 200 characters.")
	}
	org, created, err := s.store.ProvisionOrganization(ctx, ownerUUID, name, OwnerRoles)
	if err == nil && created {
		s.log.InfoContext(ctx, "organization created at checkout", "organization", org.UUID, "account", ownerUUID)
	}
	return org, created, err
}

// MemberRoles are the roles an organization's administrator may give a member; owner is
// not one (an organization has the owner checkout made it with).
var MemberRoles = map[domain.Role]bool{domain.RoleMember: true, domain.RoleUserAdmin: true, domain.RoleAircraftAdmin: true, domain.RoleDispatcher: true}

// AddMember adds a new person to an organization caller administers (owner or user
// admin; orgAccount names it, else their first such organization): an account without a
// password is created for the e-mail, as checkout creates a buyer's, and joins with roles
// (member when none), in one transaction. Its welcome link's event names the
// organization, so the member is mailed at once a welcome with the link to choose a
// password (no order will release it). An e-mail that already has an account is a
// conflict: nobody joins an organization without their consent, and an invitation they
// accept is not built yet.
func (s *Service) AddMember(ctx context.Context, caller domain.Profile, orgAccount, email string, roles []string) (domain.Profile, error) {
	var org *domain.Membership
	for i, m := range caller.Memberships {
		if m.IsAdmin() && (orgAccount == "" || m.Org.AccountUUID == orgAccount) {
			org = &caller.Memberships[i]
			break
		}
	}
	if org == nil {
		return domain.Profile{}, errs.E(errs.Forbidden, "Only organization administrators can add users.")
	}
	give := []domain.Role{}
	for _, r := range roles {
		role := domain.Role(strings.TrimSpace(r))
		if !MemberRoles[role] {
			return domain.Profile{}, errs.Field("roles", "A member's roles are member, user_admin, aircraft_admin or dispatcher.")
		}
		give = append(give, role)
	}
	if len(give) == 0 {
		give = []domain.Role{domain.RoleMember}
	}
	email = domain.NormalizeEmail(email)
	if !domain.ValidEmail(email) {
		return domain.Profile{}, errs.Field("email", "Please enter your email address.")
	}
	a, err := s.provisionPasswordless(ctx, domain.Account{Email: email, Kind: domain.Individual}, org.Org, give)
	if err != nil {
		if _, lerr := s.store.AccountByEmail(ctx, email); lerr == nil {
			return domain.Profile{}, errs.E(errs.Conflict, "An account already exists for this e-mail address.")
		}
		return domain.Profile{}, err
	}
	s.log.InfoContext(ctx, "member added", "organization", org.Org.UUID, "account", a.UUID, "by", caller.Account.UUID)
	return s.store.Profile(ctx, a.UUID)
}
