package app

import (
	"context"

	iapp "github.com/hangar/hangar/services/identity/internal/app"
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
		out[i] = DemoAccount{Email: s.Email, Password: DemoPassword, Role: s.Role}
	}
	return out
}

// DemoPilotUUID is the demo pilot's account id (checkout's seeded Premium subscription and
// payments' seeded card belong to it).
const DemoPilotUUID = "00000000-0000-4000-8000-000000000001"

// DemoAssociationMember is a member of the aircraft-owner association registry in dev.
var DemoAssociationMember = struct{ Number, LastName string }{"1234567", "Earhart"}

var seedAccounts = []iapp.DemoSeedAccount{
	{Role: "individual pilot", Email: "pilot@demo.hangar.test", UUID: DemoPilotUUID, Kind: domain.Individual},
	{Role: "business owner of Acme Flight Department", Email: "owner@acme.hangar.test", UUID: "00000000-0000-4000-8000-000000000002", Kind: domain.Business,
		OrgName: "Acme Flight Department", Roles: []domain.Role{domain.RoleOwner, domain.RoleAircraftAdmin}},
	{Role: "Acme user admin", Email: "admin@acme.hangar.test", Kind: domain.Individual, Org: "owner@acme.hangar.test",
		Roles: []domain.Role{domain.RoleUserAdmin, domain.RoleMember}},
	{Role: "Acme dispatcher", Email: "dispatcher@acme.hangar.test", Kind: domain.Individual, Org: "owner@acme.hangar.test",
		Roles: []domain.Role{domain.RoleDispatcher, domain.RoleMember}},
	{Role: "Acme member", Email: "member@acme.hangar.test", Kind: domain.Individual, Org: "owner@acme.hangar.test",
		Roles: []domain.Role{domain.RoleMember}},
	{Role: "group parent account", Email: "group@demo.hangar.test", UUID: "00000000-0000-4000-8000-000000000008", Kind: domain.GroupParent},
	{Role: "child account of the group", Email: "child@demo.hangar.test", UUID: "00000000-0000-4000-8000-000000000005", Kind: domain.Child, Parent: "group@demo.hangar.test"},
	{Role: "military (verified)", Email: "pilot@army.mil", UUID: "00000000-0000-4000-8000-000000000003", Kind: domain.Individual, Military: true},
	{Role: "credit-card admin (sales mode)", Email: "cardadmin@demo.hangar.test", Kind: domain.Individual, Flags: []string{domain.FlagCreditCardAdmin, domain.FlagEmployee}},
	{Role: "employee", Email: "employee@demo.hangar.test", Kind: domain.Individual, Flags: []string{domain.FlagEmployee}},
}

// Seed creates the demo accounts that do not exist yet (idempotent), the demo member of
// the association registry and the demo pilot's partner accounts (iapp.Service.SeedDemo).
func (a *App) Seed(ctx context.Context) error {
	created, err := a.svc.SeedDemo(ctx, a.store, iapp.DemoData{
		Password:           DemoPassword,
		Accounts:           seedAccounts,
		AssociationMembers: []iapp.AssociationMember{{Number: DemoAssociationMember.Number, LastName: DemoAssociationMember.LastName}},
		// The individual demo pilot has two avionics partner accounts, neither linked yet.
		Linked: map[string][]domain.LinkedAccount{DemoLinkedAccountOwner: DemoLinkedAccounts},
	})
	if err != nil {
		return err
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
