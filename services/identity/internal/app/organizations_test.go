package app_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/ratelimit"
	iapp "github.com/hangar/hangar/services/identity/internal/app"
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

// Issue 41: an organization's administrator invites; nothing is created in the invitee's
// name until they accept. Before, AddMember created a passwordless account for any
// unknown address at once (and answered 409 for a known one: an e-mail oracle). Now a
// known and an unknown address are invited alike, no account nor membership appears, only
// the token's hash is stored, and the mail's event names the organization and the
// invitation link.
func TestInviteCreatesNothingUntilAccepted(t *testing.T) {
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
	known := e.account(t, "known@fleet.example").Account.UUID
	var accounts, members int
	count := func() (int, int) {
		t.Helper()
		var a, m int
		if err := e.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM accounts), (SELECT count(*) FROM memberships)`).Scan(&a, &m); err != nil {
			t.Fatal(err)
		}
		return a, m
	}
	accounts, members = count()

	unknownInv, err := e.svc.Invite(ctx, caller, "session-1", "", " Crew@Fleet.Example ", []string{"dispatcher"})
	if err != nil {
		t.Fatalf("invite an unknown address: %v", err)
	}
	knownInv, err := e.svc.Invite(ctx, caller, "session-1", "", "known@fleet.example", nil)
	if err != nil {
		t.Fatalf("invite a known address: %v", err)
	}
	if a, m := count(); a != accounts || m != members {
		t.Errorf("after two invitations: accounts %d -> %d, memberships %d -> %d; want none created", accounts, a, members, m)
	}
	if unknownInv.Email != "crew@fleet.example" || knownInv.Org.UUID != org.UUID {
		t.Errorf("invitations = %+v / %+v", unknownInv, knownInv)
	}

	tokens := map[string]string{}
	rows, err := e.pool.Query(ctx, `SELECT payload FROM outbox WHERE topic = $1 ORDER BY id`, events.TopicPasswordLinkIssued)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var payload []byte
		var ev eventsv1.PasswordLinkIssued
		if err := rows.Scan(&payload); err != nil || proto.Unmarshal(payload, &ev) != nil {
			t.Fatal(err)
		}
		if ev.GetPurpose() != domain.LinkInvitation || ev.GetOrganizationName() != "Fleet One" || ev.GetAccountUuid() != "" {
			t.Errorf("invitation event = purpose %q, organization %q, account %q", ev.GetPurpose(), ev.GetOrganizationName(), ev.GetAccountUuid())
		}
		token, found := strings.CutPrefix(ev.GetLink(), domain.InvitationPath+"#token=")
		if !found || !domain.PlausibleToken(token) {
			t.Fatalf("link = %q, want an invitation link", ev.GetLink())
		}
		tokens[ev.GetEmail()] = token
	}
	if rows.Err() != nil || len(tokens) != 2 {
		t.Fatalf("invitation events for %v (%v), want both addresses", tokens, rows.Err())
	}
	var plain int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM invitations WHERE encode(token_hash, 'escape') = ANY($1) OR token_hash = ANY($2)`,
		[]string{tokens["crew@fleet.example"], tokens["known@fleet.example"]},
		[][]byte{[]byte(tokens["crew@fleet.example"]), []byte(tokens["known@fleet.example"])}).Scan(&plain); err != nil || plain != 0 {
		t.Errorf("invitations stored with their token in plain: %d (%v)", plain, err)
	}

	// What the accept page shows: the organization, and whether to log in.
	if inv, has, err := e.svc.Invitation(ctx, tokens["crew@fleet.example"]); err != nil || has || inv.Org.Name != "Fleet One" {
		t.Errorf("unknown address's invitation = %+v has account %v, %v", inv, has, err)
	}
	if _, has, err := e.svc.Invitation(ctx, tokens["known@fleet.example"]); err != nil || !has {
		t.Errorf("known address's invitation: has account %v, %v", has, err)
	}

	// The unknown address accepts: its account is created now, with its password, in the
	// organization with the roles invited, and logged in.
	in := iapp.AcceptInput{Token: tokens["crew@fleet.example"], Password: "cleared for takeoff two", ConfirmPassword: "cleared for takeoff"}
	if _, _, err := e.svc.AcceptInvitation(ctx, nil, in, req); !strings.Contains(fmt.Sprint(fields(err)), "confirmPassword") {
		t.Errorf("a mismatched password: %v", err)
	}
	in.ConfirmPassword = in.Password
	_, l, err := e.svc.AcceptInvitation(ctx, nil, in, req)
	if err != nil || l.Token == "" {
		t.Fatalf("accept as a new account: %+v, %v", l, err)
	}
	p, err := e.svc.Profile(ctx, l.Account.UUID)
	if m, ok := p.Primary(); err != nil || p.Account.Email != "crew@fleet.example" || !ok || m.Org.UUID != org.UUID || !m.Has(domain.RoleDispatcher) {
		t.Errorf("new member = %+v, %v", p, err)
	}
	if _, _, err := e.svc.AcceptInvitation(ctx, nil, in, req); fmt.Sprint(fields(err)) != "[token]" {
		t.Errorf("the invitation accepted twice: %v", err)
	}

	// A known address logs in first; another account's session is refused; its own joins.
	kin := iapp.AcceptInput{Token: tokens["known@fleet.example"]}
	if _, _, err := e.svc.AcceptInvitation(ctx, nil, kin, req); errs.CodeOf(err) != errs.Unauthorized {
		t.Errorf("a known address without a session: %v, want unauthorized", err)
	}
	if _, _, err := e.svc.AcceptInvitation(ctx, &p, kin, req); errs.CodeOf(err) != errs.Forbidden {
		t.Errorf("another account's session: %v, want forbidden", err)
	}
	kp, err := e.svc.Profile(ctx, known)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.svc.AcceptInvitation(ctx, &kp, kin, req); err != nil {
		t.Fatalf("the known account accepts: %v", err)
	}
	if kp, err = e.svc.Profile(ctx, known); err != nil || len(kp.Memberships) != 1 || !kp.Memberships[0].Has(domain.RoleMember) {
		t.Errorf("known account after accepting = %+v, %v", kp.Memberships, err)
	}

	// An invitation never lowers a member: the owner invited as a plain member stays owner.
	if _, err := e.svc.Invite(ctx, caller, "session-1", "", "owner@fleet.example", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.svc.AcceptInvitation(ctx, &caller, iapp.AcceptInput{Token: lastInvitationToken(t, e)}, req); err != nil {
		t.Fatal(err)
	}
	if again, err := e.svc.Profile(ctx, owner); err != nil || !again.Memberships[0].Has(domain.RoleOwner) {
		t.Errorf("owner after accepting a member's invitation = %+v, %v", again.Memberships, err)
	}

	// Only administrators invite.
	if _, err := e.svc.Invite(ctx, p, "session-2", "", "someone@else.example", nil); errs.CodeOf(err) != errs.Forbidden {
		t.Errorf("a dispatcher invites: %v, want forbidden", err)
	}
}

func lastInvitationToken(t *testing.T, e *env) string {
	t.Helper()
	var payload []byte
	if err := e.pool.QueryRow(context.Background(), `SELECT payload FROM outbox WHERE topic = $1 ORDER BY id DESC LIMIT 1`,
		events.TopicPasswordLinkIssued).Scan(&payload); err != nil {
		t.Fatal(err)
	}
	var ev eventsv1.PasswordLinkIssued
	if err := proto.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	token, _ := strings.CutPrefix(ev.GetLink(), domain.InvitationPath+"#token=")
	return token
}

// Invitations are throttled per session and per organization, before anything is written:
// a concurrent burst from one session passes no more than its bucket holds, and another
// session of the same organization only what the organization's bucket has left.
func TestInvitationsThrottledPerSessionAndOrganization(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	owner := e.account(t, "owner@burst.example").Account.UUID
	if _, _, err := e.svc.ProvisionOrganization(ctx, owner, "Burst Air"); err != nil {
		t.Fatal(err)
	}
	caller, err := e.svc.Profile(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	limits := ratelimit.NewPostgreSQL(e.pool)
	e.svc.SetInviteLimits(iapp.InviteLimits{
		PerOrganization: ratelimit.NewShared("invite-organization", ratelimit.Rule{Every: time.Hour, Burst: 8}, e.clock.Now, limits, slog.New(slog.DiscardHandler)),
		PerSession:      ratelimit.NewShared("invite-session", ratelimit.Rule{Every: time.Hour, Burst: 5}, e.clock.Now, limits, slog.New(slog.DiscardHandler)),
	})
	var wg sync.WaitGroup
	results := make([]error, 12)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, results[i] = e.svc.Invite(ctx, caller, "session-a", "", fmt.Sprintf("crew%d@burst.example", i), nil)
		}()
	}
	wg.Wait()
	ok, refused := 0, 0
	for _, err := range results {
		switch {
		case err == nil:
			ok++
		case errs.CodeOf(err) == errs.Exhausted:
			refused++
		default:
			t.Errorf("invite: %v", err)
		}
	}
	if ok != 5 || refused != 7 {
		t.Errorf("one session's burst of 12: %d invited, %d refused; want 5 and 7", ok, refused)
	}
	ok = 0
	for i := range 6 {
		if _, err := e.svc.Invite(ctx, caller, "session-b", "", fmt.Sprintf("more%d@burst.example", i), nil); err == nil {
			ok++
		} else if errs.CodeOf(err) != errs.Exhausted {
			t.Errorf("invite: %v", err)
		}
	}
	if ok != 3 {
		t.Errorf("a second session of the organization: %d invited, want the 3 the organization has left", ok)
	}
	var stored int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM invitations`).Scan(&stored); err != nil || stored != 8 {
		t.Errorf("invitations stored = %d (%v), want 8", stored, err)
	}
}
