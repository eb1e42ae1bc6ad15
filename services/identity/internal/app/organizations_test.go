package app_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// Checkout asks for a business buyer's organization at purchase (issue 27): the first call
// creates it, named, with the account as its owner (a business account from then on);
// every later or concurrent call for the account answers that one organization, its name
// unchanged. The name is required; a child account of a group cannot own one.
func TestProvisionOrganization(t *testing.T) {
	ctx := context.Background()
	e := setup(t)
	buyer := e.account(t, "fleet@example.com").Account.UUID

	if _, _, err := e.svc.ProvisionOrganization(ctx, buyer, "   "); err == nil || !strings.Contains(fmt.Sprint(fields(err)), "name") {
		t.Errorf("no name: %v, want a field error on name", err)
	}
	var wg sync.WaitGroup
	orgs := make([]domain.Organization, 6)
	made := make([]bool, len(orgs))
	for i := range orgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if orgs[i], made[i], err = e.svc.ProvisionOrganization(ctx, buyer, fmt.Sprintf("  Fleet   One %d ", i)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	created := 0
	for i, o := range orgs {
		if made[i] {
			created++
		}
		if o.UUID != orgs[0].UUID || o.AccountUUID != buyer || !strings.HasPrefix(o.Name, "Fleet One ") {
			t.Errorf("call %d answered %+v, want the one organization of %s", i, o, buyer)
		}
	}
	if created != 1 {
		t.Errorf("%d calls created an organization, want 1", created)
	}
	p, err := e.svc.Profile(ctx, buyer)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := p.Primary()
	if !ok || m.Org.UUID != orgs[0].UUID || !m.Has(domain.RoleOwner) || p.Account.Kind != domain.Business {
		t.Errorf("the buyer after: kind %s, membership %+v", p.Account.Kind, m)
	}
	if biz, _, err := e.svc.IsBusiness(ctx, "fleet@example.com"); err != nil || !biz {
		t.Errorf("isbusiness = %v, %v", biz, err)
	}

	var child string
	parent := e.account(t, "group@example.com").Account.UUID
	if err := e.pool.QueryRow(ctx, `INSERT INTO accounts (email, kind, parent_uuid) VALUES ('kid@example.com', 'child', $1) RETURNING uuid::text`, parent).Scan(&child); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.svc.ProvisionOrganization(ctx, child, "Kid Air"); errs.CodeOf(err) != errs.Precondition {
		t.Errorf("a child account: %v, want failed_precondition", err)
	}
}
