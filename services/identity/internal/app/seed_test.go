package app_test

import (
	"context"
	"testing"

	iapp "github.com/hangar/hangar/services/identity/internal/app"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// The development seed creates its accounts once (a restart changes nothing), puts a
// member in the organization its owner's account made, and gives the partner accounts to
// the account named.
func TestSeedDemoOnceWithOrganizationAndLinks(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	d := iapp.DemoData{
		Password: "demo-password",
		Accounts: []iapp.DemoSeedAccount{
			{Email: "owner@seed.test", Kind: domain.Business, OrgName: "Seed Co", Roles: []domain.Role{domain.RoleOwner}},
			{Email: "member@seed.test", Kind: domain.Individual, Org: "owner@seed.test", Roles: []domain.Role{domain.RoleMember}},
		},
		AssociationMembers: []iapp.AssociationMember{{Number: "7654321", LastName: "Seed"}},
		Linked:             map[string][]domain.LinkedAccount{"member@seed.test": {{JeppAccountID: "JP-1", Username: "seed"}}},
	}
	for run, want := range []int{2, 0} {
		if n, err := e.svc.SeedDemo(ctx, e.store, d); err != nil || n != want {
			t.Fatalf("run %d: created %d, %v; want %d", run+1, n, err, want)
		}
	}
	member, err := e.store.AccountByEmail(ctx, "member@seed.test")
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.store.Profile(ctx, member.UUID)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := p.Primary(); !ok || m.Org.Name != "Seed Co" || !m.Has(domain.RoleMember) {
		t.Errorf("member's organization %+v %v", m, ok)
	}
	if links, err := e.store.LinkedAccounts(ctx, member.UUID); err != nil || len(links) != 1 || links[0].JeppAccountID != "JP-1" {
		t.Errorf("linked accounts %+v %v", links, err)
	}
	if ok, err := e.store.AssociationMember(ctx, "7654321", "Seed"); err != nil || !ok {
		t.Errorf("association member %v %v", ok, err)
	}
}
