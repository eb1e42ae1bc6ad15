package app_test

import (
	"context"
	"fmt"
	"github.com/hangar/hangar/internal/platform/events"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// Checkout asks for a business buyer's organization at purchase (issue 27): the first call
// creates it, named, with the account as its owner (a business account from then on);
// every later or concurrent call for the account answers that one organization, its name
// unchanged. The name is required; a child account of a group cannot own one.
func TestProvisionOrganization(t *testing.T) {
	t.Parallel()
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

// A member an organization's administrator adds (POST /org/api/members) gets a way in
// (accounts, issue 28 follow-up): the account is created with a welcome link, and the
// link's event names the organization (notifications mails it at once). Before, the
// account had no password and no link, so the member could never log in. The account, its
// link, its membership and both events are one batch: one transaction.
func TestAddMemberIssuesAWelcomeLinkNamingTheOrganization(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	owner := e.account(t, "owner@fleet.example").Account.UUID
	org, _, err := e.svc.ProvisionOrganization(ctx, owner, "Fleet One")
	if err != nil {
		t.Fatal(err)
	}
	caller, err := e.svc.Profile(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	counts := dbtest.Counter(t, e.pool)
	before := counts()
	p, err := e.svc.AddMember(ctx, caller, "", " Crew@Fleet.Example ", []string{"dispatcher"})
	if err != nil {
		t.Fatal(err)
	}
	got := counts().Minus(before)
	// One write: the account, its welcome link, its membership and two events, batched
	// (one round trip, one transaction); then the two reads of the profile answered.
	if want := (dbtest.Counts{Query: 2, Batched: 5, Transactions: 3}); got != want {
		t.Errorf("adding a member cost %+v, want %+v (one batch of five, then the profile's two reads)", got, want)
	}
	m, ok := p.Primary()
	if p.Account.Email != "crew@fleet.example" || !ok || m.Org.UUID != org.UUID || !m.Has(domain.RoleDispatcher) {
		t.Errorf("member = %+v, membership %+v", p.Account, m)
	}

	var payload []byte
	if err := e.pool.QueryRow(ctx, `SELECT payload FROM outbox WHERE topic = $1 AND key = $2`, events.TopicPasswordLinkIssued, []byte(p.Account.UUID)).Scan(&payload); err != nil {
		t.Fatalf("no password link event for the member: %v", err)
	}
	var ev eventsv1.PasswordLinkIssued
	if err := proto.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.GetPurpose() != domain.LinkWelcome || ev.GetOrganizationName() != "Fleet One" || ev.GetEmail() != "crew@fleet.example" {
		t.Errorf("link event = purpose %q, organization %q, email %q", ev.GetPurpose(), ev.GetOrganizationName(), ev.GetEmail())
	}
	token, found := strings.CutPrefix(ev.GetLink(), domain.SetPasswordPath+"#token=")
	token, _, _ = strings.Cut(token, "&")
	if !found || !domain.PlausibleToken(token) {
		t.Fatalf("link = %q, want a set-password link", ev.GetLink())
	}
	l, err := e.store.PasswordLink(ctx, domain.HashToken(token))
	if err != nil || l.AccountUUID != p.Account.UUID || !l.UsedAt.IsZero() {
		t.Errorf("the event's link is %+v, %v; want the member's unused link", l, err)
	}
	var created int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE topic = $1 AND key = $2`, events.TopicAccountCreated, []byte(p.Account.UUID)).Scan(&created); err != nil || created != 1 {
		t.Errorf("account-created events of the member = %d (%v), want 1", created, err)
	}
	// A checkout account's link names no organization: its welcome waits for an order.
	buyer, _, _, err := e.svc.ProvisionAccount(ctx, "buyer@example.com", false, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.pool.QueryRow(ctx, `SELECT payload FROM outbox WHERE topic = $1 AND key = $2`, events.TopicPasswordLinkIssued, []byte(buyer)).Scan(&payload); err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(payload, &ev); err != nil || ev.GetOrganizationName() != "" {
		t.Errorf("checkout link event names organization %q (%v)", ev.GetOrganizationName(), err)
	}
}

// Adding a member is one transaction: a membership the database refuses (here, of an
// organization that is gone) leaves no account behind, nor any event. Before, the
// account was committed first and the membership after it, so the failure left an
// account outside any organization, with its welcome on its way.
func TestAddMemberFailingMembershipLeavesNoAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	owner := e.account(t, "owner@gone.example")
	caller := domain.Profile{Account: owner.Account}
	caller.Memberships = []domain.Membership{{Org: domain.Organization{UUID: "6f1d2c3b-0000-4000-8000-000000000001", Name: "Gone Air",
		AccountUUID: owner.Account.UUID}, Roles: []domain.Role{domain.RoleOwner}}}
	var before int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.AddMember(ctx, caller, "", "orphan@gone.example", nil); err == nil {
		t.Fatal("adding a member to an organization that does not exist succeeded")
	}
	if _, err := e.store.AccountByEmail(ctx, "orphan@gone.example"); errs.CodeOf(err) != errs.NotFound {
		t.Errorf("the account after a failed membership: %v, want not found", err)
	}
	var after int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&after); err != nil || after != before {
		t.Errorf("outbox events %d -> %d (%v), want none added", before, after, err)
	}
}
