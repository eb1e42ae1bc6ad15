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
// adapters.Store.ProvisionOrganization). Checkout calls it for a business purchase by a
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
