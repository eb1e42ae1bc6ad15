package app

import (
	"context"
	"fmt"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// SeedStore is what the development seed writes (adapters.Store): the accounts and
// organizations as the service keeps them, plus the registry and partner rows only a seed
// (or the partner's own flow) creates.
type SeedStore interface {
	AccountByEmail(ctx context.Context, email string) (domain.Account, error)
	CreateAccount(ctx context.Context, a domain.Account, events func(uuid string) ([]kafka.Event, error)) (string, error)
	Profile(ctx context.Context, uuid string) (domain.Profile, error)
	// CreateOrganization creates an organization billed to ownerUUID's account, with the
	// owner's roles.
	CreateOrganization(ctx context.Context, name, ownerUUID string, ownerRoles []domain.Role) (string, error)
	AddMember(ctx context.Context, orgUUID, accountUUID string, roles []domain.Role) error
	AddAssociationMember(ctx context.Context, number, lastName string) error
	AddLinkedAccount(ctx context.Context, accountUUID, jeppAccountID, username string) error
}

// DemoData is the development seed (the wiring's demo accounts).
type DemoData struct {
	// Password is every demo account's password.
	Password string
	// Accounts in order: a parent or an organization's owner comes before the accounts
	// that name it.
	Accounts []DemoSeedAccount
	// AssociationMembers are added to the aircraft-owner association registry.
	AssociationMembers []AssociationMember
	// Linked lists partner accounts by the e-mail of the demo account they belong to.
	Linked map[string][]domain.LinkedAccount
}

// DemoSeedAccount is one demo account.
type DemoSeedAccount struct {
	Email string
	// Role says who the account is, for the dev runner's list.
	Role string
	// UUID is fixed for the accounts other services seed data for (the same id everywhere);
	// empty: a new id.
	UUID     string
	Kind     domain.Kind
	Parent   string // e-mail of the group parent
	Flags    []string
	Military bool
	// OrgName, when set, creates an organization this account owns with Roles; otherwise
	// Org (the e-mail of an organization's owner) names the organization it joins with Roles.
	OrgName string
	Org     string
	Roles   []domain.Role
}

// AssociationMember is a member of the association registry.
type AssociationMember struct{ Number, LastName string }

// SeedDemo creates the demo accounts of d that do not exist yet, with their organizations
// and memberships, and the registry members and partner accounts (all idempotent: a rerun
// on every start changes nothing). It answers how many accounts it created.
func (s *Service) SeedDemo(ctx context.Context, store SeedStore, d DemoData) (int, error) {
	ids := map[string]string{}
	created := 0
	for _, sa := range d.Accounts {
		acct, err := store.AccountByEmail(ctx, sa.Email)
		switch {
		case err == nil:
			ids[sa.Email] = acct.UUID
			continue
		case errs.CodeOf(err) != errs.NotFound:
			return created, err
		}
		hash, err := s.hasher.Hash(d.Password)
		if err != nil {
			return created, err
		}
		flags := map[string]bool{}
		for _, f := range sa.Flags {
			flags[f] = true
		}
		id, err := store.CreateAccount(ctx, domain.Account{UUID: sa.UUID, Email: sa.Email, PasswordHash: hash, Kind: sa.Kind,
			ParentUUID: ids[sa.Parent], Military: sa.Military, Flags: flags}, nil)
		if err != nil {
			return created, fmt.Errorf("seed %s: %w", sa.Email, err)
		}
		ids[sa.Email] = id
		created++
		switch {
		case sa.OrgName != "":
			if _, err := store.CreateOrganization(ctx, sa.OrgName, id, sa.Roles); err != nil {
				return created, fmt.Errorf("seed organization %s: %w", sa.OrgName, err)
			}
		case sa.Org != "":
			p, err := store.Profile(ctx, ids[sa.Org])
			if err != nil {
				return created, fmt.Errorf("seed membership of %s: %w", sa.Email, err)
			}
			if m, ok := p.Primary(); ok {
				if err := store.AddMember(ctx, m.Org.UUID, id, sa.Roles); err != nil {
					return created, err
				}
			}
		}
	}
	for _, m := range d.AssociationMembers {
		if err := store.AddAssociationMember(ctx, m.Number, m.LastName); err != nil {
			return created, err
		}
	}
	for owner, links := range d.Linked {
		id := ids[owner]
		if id == "" {
			continue
		}
		for _, l := range links {
			if err := store.AddLinkedAccount(ctx, id, l.JeppAccountID, l.Username); err != nil {
				return created, err
			}
		}
	}
	return created, nil
}
