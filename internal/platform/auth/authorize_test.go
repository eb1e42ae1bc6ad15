package auth

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/platform/errs"
)

// The table of docs/authorization.md, as a test. The organization "acme" has its own
// account acct-acme (the owner's business account).
func TestMayActOnIsTheAuthorizationTable(t *testing.T) {
	t.Parallel()
	in := func(account, org string, roles ...string) Caller { // one membership, as identity sends it
		return Caller{AccountUUID: account, OrganizationAccount: org, Roles: roles,
			Memberships: []Membership{{OrganizationAccount: org, Roles: roles}}}
	}
	owner := in("acct-acme", "acct-acme", "owner", "aircraft_admin")
	userAdmin := in("acct-admin", "acct-acme", "user_admin", "member")
	member := in("acct-member", "acct-acme", "member")
	dispatcher := in("acct-disp", "acct-acme", "dispatcher", "member")
	stranger := Caller{AccountUUID: "acct-pilot"}
	otherOwner := in("acct-other", "acct-other", "owner")
	// Several organizations: a plain member of acme (the primary, first membership) who
	// owns beta, and the reverse. The union of roles ("member", "owner") must not carry
	// beta's owner rights over to acme's account, nor hide the admin's rights in beta.
	memberOfAcmeOwnerOfBeta := Caller{AccountUUID: "acct-multi", OrganizationAccount: "acct-acme",
		Roles: []string{"member", "owner"}, Memberships: []Membership{
			{OrganizationAccount: "acct-acme", Roles: []string{"member"}},
			{OrganizationAccount: "acct-beta", Roles: []string{"owner"}},
		}}
	adminOfBetaMemberOfAcme := Caller{AccountUUID: "acct-multi2", OrganizationAccount: "acct-beta",
		Roles: []string{"user_admin", "member"}, Memberships: []Membership{
			{OrganizationAccount: "acct-beta", Roles: []string{"user_admin"}},
			{OrganizationAccount: "acct-acme", Roles: []string{"member"}},
		}}
	// A caller built with only the display fields (no memberships) holds no organization
	// right: the union of roles says nothing about which organization they belong to.
	unionOnly := Caller{AccountUUID: "acct-u", OrganizationAccount: "acct-acme", Roles: []string{"owner"}}
	employee := Caller{AccountUUID: "staff-1", IsEmployee: true}
	cardAdmin := Caller{AccountUUID: "staff-2", IsCreditCardAdmin: true}
	anonymous := Caller{}

	type row struct {
		who     string
		c       Caller
		account string
		right   Right
		want    errs.Code // "" allowed
	}
	rows := []row{}
	add := func(who string, c Caller, account string, b, m, p errs.Code) {
		rows = append(rows, row{who, c, account, Billing, b}, row{who, c, account, Members, m}, row{who, c, account, Profile, p})
	}
	const ok, no, login = errs.Code(""), errs.Forbidden, errs.Unauthorized
	//                                           billing members profile
	add("owner on the organization account", owner, "acct-acme", ok, ok, ok) // it is their own account
	add("user admin on the organization account", userAdmin, "acct-acme", no, ok, no)
	add("member on the organization account", member, "acct-acme", no, no, no)
	add("dispatcher on the organization account", dispatcher, "acct-acme", no, no, no)
	add("member on their own account", member, "acct-member", ok, ok, ok)
	add("member on another member", member, "acct-admin", no, no, no)
	add("owner on a member's own account", owner, "acct-member", no, no, no)
	add("stranger on the organization account", stranger, "acct-acme", no, no, no)
	add("another organization's owner", otherOwner, "acct-acme", no, no, no)
	add("employee on any account", employee, "acct-acme", ok, ok, ok)
	add("credit-card admin on any account", cardAdmin, "acct-acme", ok, no, no)
	add("anonymous", anonymous, "acct-acme", login, login, login)
	add("member of acme, owner of beta, on acme", memberOfAcmeOwnerOfBeta, "acct-acme", no, no, no)
	add("member of acme, owner of beta, on beta", memberOfAcmeOwnerOfBeta, "acct-beta", ok, ok, no)
	add("user admin of beta, member of acme, on acme", adminOfBetaMemberOfAcme, "acct-acme", no, no, no)
	add("user admin of beta, member of acme, on beta", adminOfBetaMemberOfAcme, "acct-beta", no, ok, no)
	add("roles without memberships", unionOnly, "acct-acme", no, no, no)
	add("no account named", member, "", no, no, no)
	for _, r := range rows {
		t.Run(fmt.Sprintf("%s/%s", r.who, r.right), func(t *testing.T) {
			if got := errs.CodeOf(MayActOn(r.c, r.account, r.right)); got != r.want {
				t.Errorf("MayActOn(%s, %q, %s) = %q, want %q", r.who, r.account, r.right, got, r.want)
			}
		})
	}
}

// Role checks of services that compare an organization themselves (receipts, subscriptions,
// allocations) take the roles held in that organization, not the union over all of them.
func TestRolesInIsPerOrganization(t *testing.T) {
	t.Parallel()
	c := Caller{AccountUUID: "acct-multi", OrganizationAccount: "acct-acme", Roles: []string{"member", "owner"},
		Memberships: []Membership{
			{OrganizationAccount: "acct-acme", Roles: []string{"member"}},
			{OrganizationAccount: "acct-beta", Roles: []string{"owner"}},
		}}
	for org, want := range map[string]string{"acct-acme": "member", "acct-beta": "owner", "acct-gamma": "", "": ""} {
		if got := fmt.Sprint(c.RolesIn(org)); got != fmt.Sprint(strings.Fields(want)) {
			t.Errorf("RolesIn(%q) = %s, want [%s]", org, got, want)
		}
	}
}
