package domain

import (
	"testing"
	"time"
)

func TestAccessTo(t *testing.T) {
	t.Parallel()
	const org = "org"
	cases := []struct {
		name         string
		actor        Actor
		users, tails bool
		readOwn      bool
	}{
		{"the owning account itself", Actor{AccountID: org}, true, true, true},
		{"the organization's owner", Actor{AccountID: "a", OrgAccount: org, Roles: []string{RoleOwner}}, true, true, true},
		{"a user admin", Actor{AccountID: "a", OrgAccount: org, Roles: []string{RoleUserAdmin, "member"}}, true, true, true},
		{"an employee", Actor{AccountID: "e", Staff: true}, true, true, true},
		{"an aircraft admin", Actor{AccountID: "a", OrgAccount: org, Roles: []string{RoleAircraftAdmin}}, false, true, true},
		{"a member", Actor{AccountID: "a", OrgAccount: org, Roles: []string{"member"}}, false, false, true},
		{"a dispatcher", Actor{AccountID: "a", OrgAccount: org, Roles: []string{"dispatcher", "member"}}, false, false, true},
		{"another organization's owner", Actor{AccountID: "b", OrgAccount: "other", Roles: []string{RoleOwner}}, false, false, false},
		{"an individual", Actor{AccountID: "c"}, false, false, false},
		{"anonymous", Actor{}, false, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := AccessTo(c.actor, org)
			if a.CanAssign(User) != c.users || a.CanAssign(Tail) != c.tails || a.ReadOwn != c.readOwn {
				t.Errorf("AccessTo = %+v, want users %v, tails %v, read own %v", a, c.users, c.tails, c.readOwn)
			}
		})
	}
}

func TestMethodTargets(t *testing.T) {
	t.Parallel()
	cases := []struct {
		method     string
		user, tail bool
		pooled     bool
	}{
		{"USER_ALLOCATION", true, false, true},
		{"tail_allocation", false, true, true},
		{"ANY_ALLOCATION", true, true, true},
		{"PER_USER", true, false, true},
		{"PER_TAIL", false, true, true},
		{"PER_DEVICE", false, false, true},
		{"DEFAULT", false, false, false},
		{"", false, false, false},
	}
	for _, c := range cases {
		m, ok := ParseMethod(c.method)
		if ok != c.pooled || m.Allows(User) != c.user || m.Allows(Tail) != c.tail {
			t.Errorf("%q: pooled %v, user %v, tail %v; want %v %v %v", c.method, ok, m.Allows(User), m.Allows(Tail), c.pooled, c.user, c.tail)
		}
	}
}

func TestNewer(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := Subscription{Version: 3, ChangedAt: at}
	if !s.Newer(2, at.Add(time.Hour)) || s.Newer(3, at) || s.Newer(4, at) || !s.Newer(3, at.Add(-time.Second)) {
		t.Error("Newer must order by version, then by change time, and refuse an equal state")
	}
}

func TestGrants(t *testing.T) {
	t.Parallel()
	s := Subscription{PlanCode: "business_pro", Quantity: 4, AddOns: []AddOn{
		{Code: "business_pro", Method: "USER_ALLOCATION"}, {Code: "geo", Method: ""}, {Code: "efb", Method: "ANY_ALLOCATION", Quantity: 2},
		{Code: "efb", Method: "ANY_ALLOCATION", Quantity: 9},
	}}
	g := s.Grants()
	if len(g) != 2 || g[0] != (Grant{Code: "business_pro", Method: UserAllocation, Quantity: 4, IsPlan: true}) || g[1].Quantity != 2 {
		t.Errorf("Grants = %+v", g)
	}
	s.Status = "lapsed"
	if len(s.Grants()) != 0 {
		t.Error("a lapsed subscription grants licences")
	}
}
