package app

import (
	"testing"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/services/checkout/internal/domain"
)

// Who manages a subscription for its holder (issue 27): the group parent of a child's, the
// owner of the organization one is filed under; not its user admin, not a stranger, and
// staff powers do not count.
func TestManages(t *testing.T) {
	t.Parallel()
	child := &domain.Subscription{AccountID: "acct-child", ParentAccountID: "acct-group"}
	member := &domain.Subscription{AccountID: "acct-member", OrganizationID: "acct-acme"}
	in := func(account, org string, roles ...string) auth.Caller {
		return auth.Caller{AccountUUID: account, Memberships: []auth.Membership{{OrganizationAccount: org, Roles: roles}}}
	}
	for _, tc := range []struct {
		name string
		who  auth.Caller
		sub  *domain.Subscription
		want bool
	}{
		{"group parent, child's", auth.Caller{AccountUUID: "acct-group"}, child, true},
		{"organization owner, member's", in("acct-owner", "acct-acme", "owner"), member, true},
		{"user admin, member's", in("acct-admin", "acct-acme", "user_admin", "member"), member, false},
		{"owner of another organization", in("acct-other", "acct-other", "owner"), member, false},
		{"stranger, child's", auth.Caller{AccountUUID: "acct-pilot"}, child, false},
		{"employee, child's", auth.Caller{AccountUUID: "acct-staff", IsEmployee: true}, child, false},
		{"card admin, member's", auth.Caller{AccountUUID: "acct-desk", IsCreditCardAdmin: true}, member, false},
		{"anonymous", auth.Caller{}, child, false},
		{"no subscription", auth.Caller{AccountUUID: "acct-group"}, nil, false},
	} {
		if got := manages(tc.who, tc.sub); got != tc.want {
			t.Errorf("%s: manages = %v, want %v", tc.name, got, tc.want)
		}
	}
}
