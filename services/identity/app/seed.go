package app

import (
	"context"
	"fmt"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// DemoPassword is the password of every demo account (dev only).
const DemoPassword = "hangar-demo-pass"

// DemoAccount is one seeded account.
type DemoAccount struct {
	Email, Password, Role string
}

// DemoAccounts lists the accounts the dev seed creates, for the dev runner to print.
func DemoAccounts() []DemoAccount {
	out := make([]DemoAccount, len(seedAccounts))
	for i, s := range seedAccounts {
		out[i] = DemoAccount{Email: s.email, Password: DemoPassword, Role: s.role}
	}
	return out
}

// DemoPilotUUID is the demo pilot's account id (checkout's seeded Premium subscription and
// payments' seeded card belong to it).
const DemoPilotUUID = "00000000-0000-4000-8000-000000000001"

// DemoAssociationMember is a member of the aircraft-owner association registry in dev.
var DemoAssociationMember = struct{ Number, LastName string }{"1234567", "Earhart"}

type seedAccount struct {
	email, role string
	// uuid: fixed for the accounts other services seed data for (checkout's subscriptions,
	// payments' cards): the same account id everywhere. Empty: a new id.
	uuid     string
	kind     domain.Kind
	parent   string // e-mail of the group parent
	flags    []string
	military bool
	org      string        // e-mail of the organization owner whose org this account joins
	roles    []domain.Role // roles in that organization
	orgName  string        // set on an owner: creates the organization
}

var seedAccounts = []seedAccount{
	{email: "pilot@demo.hangar.test", uuid: DemoPilotUUID, role: "individual pilot", kind: domain.Individual},
	{email: "owner@acme.hangar.test", uuid: "00000000-0000-4000-8000-000000000002", role: "business owner of Acme Flight Department", kind: domain.Business,
		orgName: "Acme Flight Department", org: "owner@acme.hangar.test", roles: []domain.Role{domain.RoleOwner, domain.RoleAircraftAdmin}},
	{email: "admin@acme.hangar.test", role: "Acme user admin", kind: domain.Individual, org: "owner@acme.hangar.test",
		roles: []domain.Role{domain.RoleUserAdmin, domain.RoleMember}},
	{email: "dispatcher@acme.hangar.test", role: "Acme dispatcher", kind: domain.Individual, org: "owner@acme.hangar.test",
		roles: []domain.Role{domain.RoleDispatcher, domain.RoleMember}},
	{email: "member@acme.hangar.test", role: "Acme member", kind: domain.Individual, org: "owner@acme.hangar.test",
		roles: []domain.Role{domain.RoleMember}},
	{email: "group@demo.hangar.test", uuid: "00000000-0000-4000-8000-000000000008", role: "group parent account", kind: domain.GroupParent},
	{email: "child@demo.hangar.test", uuid: "00000000-0000-4000-8000-000000000005", role: "child account of the group", kind: domain.Child, parent: "group@demo.hangar.test"},
	{email: "pilot@army.mil", uuid: "00000000-0000-4000-8000-000000000003", role: "military (verified)", kind: domain.Individual, military: true},
	{email: "cardadmin@demo.hangar.test", role: "credit-card admin (sales mode)", kind: domain.Individual,
		flags: []string{domain.FlagCreditCardAdmin, domain.FlagEmployee}},
	{email: "employee@demo.hangar.test", role: "employee", kind: domain.Individual, flags: []string{domain.FlagEmployee}},
}

// Seed creates the demo accounts that do not exist yet (idempotent) and the demo member
// of the association registry.
func (a *App) Seed(ctx context.Context) error {
	h, err := domain.NewHasher(domain.Argon2Params{MemoryKiB: uint32(a.cfg.Argon2MemoryKiB), Time: uint32(a.cfg.Argon2Time), Threads: uint8(a.cfg.Argon2Threads)})
	if err != nil {
		return err
	}
	ids := map[string]string{}
	created := 0
	for _, s := range seedAccounts {
		acct, err := a.store.AccountByEmail(ctx, s.email)
		switch {
		case err == nil:
			ids[s.email] = acct.UUID
			continue
		case errs.CodeOf(err) != errs.NotFound:
			return err
		}
		hash, err := h.Hash(DemoPassword)
		if err != nil {
			return err
		}
		flags := map[string]bool{}
		for _, f := range s.flags {
			flags[f] = true
		}
		id, err := a.store.CreateAccount(ctx, domain.Account{UUID: s.uuid, Email: s.email, PasswordHash: hash, Kind: s.kind,
			ParentUUID: ids[s.parent], Military: s.military, Flags: flags}, nil)
		if err != nil {
			return fmt.Errorf("seed %s: %w", s.email, err)
		}
		ids[s.email] = id
		created++
		switch {
		case s.orgName != "":
			if _, err := a.store.CreateOrganization(ctx, s.orgName, id, s.roles); err != nil {
				return fmt.Errorf("seed organization %s: %w", s.orgName, err)
			}
		case s.org != "":
			p, err := a.store.Profile(ctx, ids[s.org])
			if err != nil {
				return fmt.Errorf("seed membership of %s: %w", s.email, err)
			}
			if m, ok := p.Primary(); ok {
				if err := a.store.AddMember(ctx, m.Org.UUID, id, s.roles); err != nil {
					return err
				}
			}
		}
	}
	if err := a.store.AddAssociationMember(ctx, DemoAssociationMember.Number, DemoAssociationMember.LastName); err != nil {
		return err
	}
	// The individual demo pilot has two avionics partner accounts, neither linked yet.
	if id := ids[DemoLinkedAccountOwner]; id != "" {
		for _, l := range DemoLinkedAccounts {
			if err := a.store.AddLinkedAccount(ctx, id, l.JeppAccountID, l.Username); err != nil {
				return err
			}
		}
	}
	if created > 0 {
		a.log.InfoContext(ctx, "demo accounts seeded", "created", created)
	}
	return nil
}

// DemoLinkedAccountOwner is the demo account with avionics partner accounts (dev only).
const DemoLinkedAccountOwner = "pilot@demo.hangar.test"

// DemoLinkedAccounts are its partner accounts.
var DemoLinkedAccounts = []domain.LinkedAccount{
	{JeppAccountID: "JP-100234", Username: "pilot.demo"},
	{JeppAccountID: "JP-100987", Username: "pilot.demo.hangar"},
}
