package auth

import (
	"fmt"
	"testing"

	"github.com/hangar/hangar/internal/platform/errs"
)

// The table of docs/authorization.md, as a test. The organization "acme" has its own
// account acct-acme (the owner's business account).
func TestMayActOnIsTheAuthorizationTable(t *testing.T) {
	owner := Caller{AccountUUID: "acct-acme", OrganizationAccount: "acct-acme", Roles: []string{"owner", "aircraft_admin"}}
	userAdmin := Caller{AccountUUID: "acct-admin", OrganizationAccount: "acct-acme", Roles: []string{"user_admin", "member"}}
	member := Caller{AccountUUID: "acct-member", OrganizationAccount: "acct-acme", Roles: []string{"member"}}
	dispatcher := Caller{AccountUUID: "acct-disp", OrganizationAccount: "acct-acme", Roles: []string{"dispatcher", "member"}}
	stranger := Caller{AccountUUID: "acct-pilot"}
	otherOwner := Caller{AccountUUID: "acct-other", OrganizationAccount: "acct-other", Roles: []string{"owner"}}
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
	add("no account named", member, "", no, no, no)
	for _, r := range rows {
		t.Run(fmt.Sprintf("%s/%s", r.who, r.right), func(t *testing.T) {
			if got := errs.CodeOf(MayActOn(r.c, r.account, r.right)); got != r.want {
				t.Errorf("MayActOn(%s, %q, %s) = %q, want %q", r.who, r.account, r.right, got, r.want)
			}
		})
	}
}
