package domain

import (
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
)

var at = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// licences: efb (3 of ANY_ALLOCATION, u1 active, u2 expired), runway (1 of
// TAIL_ALLOCATION, N1 active), legacy (an expired assignment, no licence left).
func licences() *Licences {
	return &Licences{Owner: "org",
		Pools: map[string]*Pool{
			"efb":    {Code: "efb", Method: AnyAllocation, Bought: 3, Assigned: 1, Expired: 1},
			"runway": {Code: "runway", Method: TailAllocation, Bought: 1, Assigned: 1},
			"legacy": {Code: "legacy", Expired: 1},
		},
		Held: map[Key]bool{
			{"efb", User, "u1"}: true, {"efb", User, "u2"}: false, {"runway", Tail, "N1"}: true, {"legacy", User, "u1"}: false,
		}}
}

func user(code, id string) Key { return Key{Code: code, TargetType: User, TargetID: id} }
func tail(code, id string) Key { return Key{Code: code, TargetType: Tail, TargetID: id} }

func TestAssignWithinThePool(t *testing.T) {
	t.Parallel()
	l := licences()
	// u1 holds efb already (free); u3 and the tail take the two free licences.
	if err := l.Assign([]Key{user("efb", "u1"), user("efb", "u3"), tail("efb", "N7"), user("efb", "u3")}, "admin", at); err != nil {
		t.Fatal(err)
	}
	if p := l.Pools["efb"]; p.Assigned != 3 || p.Free() != 0 || p.Expired != 1 {
		t.Errorf("efb = %+v, want 3 assigned, 1 expired", p)
	}
	if len(l.Changes) != 2 || l.Changes[0] != (Change{Owner: "org", Code: "efb", TargetType: User, TargetID: "u3", Action: "assigned", Actor: "admin", At: at}) ||
		l.Changes[1].TargetID != "N7" {
		t.Errorf("changes = %+v, want u3 and N7 assigned", l.Changes)
	}
	if !l.Held[tail("efb", "N7")] {
		t.Error("a new assignment is not held as active")
	}
}

func TestAssignRefusesAllOrNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		keys []Key
		want string
	}{
		{"beyond the pool", []Key{user("efb", "u3"), user("efb", "u4"), user("efb", "u5")}, "Insufficient addOn quantity for efb"},
		{"the first short code in the order asked", []Key{user("efb", "u3"), tail("runway", "N2"), user("efb", "u4"), user("efb", "u5")},
			"Insufficient addOn quantity for efb"},
		{"a tail held costs nothing, a new one is short", []Key{tail("runway", "N1"), tail("runway", "N2")}, "Insufficient addOn quantity for runway"},
		{"a code without a licence", []Key{user("efb", "u3"), user("legacy", "u1")}, "legacy is not a licence of your subscription."},
		{"an unknown code", []Key{user("nope", "u3")}, "nope is not a licence of your subscription."},
		{"a tail licence to a user", []Key{user("efb", "u3"), user("runway", "u3")}, "runway cannot be assigned to a user."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := licences()
			err := l.Assign(c.keys, "admin", at)
			if errs.CodeOf(err) != errs.Invalid || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want invalid %q", err, c.want)
			}
			if want := licences(); !same(l, want) {
				t.Errorf("a refused assignment changed the licences: %+v", l)
			}
		})
	}
}

func TestReleaseFreesALicence(t *testing.T) {
	t.Parallel()
	l := licences()
	if !l.Release(user("efb", "u1"), "admin", at) || !l.Release(user("efb", "u2"), "admin", at) {
		t.Fatal("releasing held assignments answered false")
	}
	if l.Release(user("efb", "u1"), "admin", at) || l.Release(user("efb", "u9"), "admin", at) {
		t.Error("releasing what is not held answered true")
	}
	if p := l.Pools["efb"]; p.Assigned != 0 || p.Expired != 0 || p.Free() != 3 {
		t.Errorf("efb = %+v, want every licence free and nothing expired", p)
	}
	if len(l.Changes) != 2 || l.Changes[0].Action != "unassigned" || l.Changes[1].TargetID != "u2" {
		t.Errorf("changes = %+v, want u1 and u2 unassigned", l.Changes)
	}
	// The released tail licence goes to another tail; an expired one assigned again is active.
	if !l.Release(tail("runway", "N1"), "admin", at) {
		t.Fatal("release N1")
	}
	if err := l.Assign([]Key{tail("runway", "N2"), user("efb", "u2")}, "admin", at); err != nil {
		t.Fatal(err)
	}
	if p := l.Pools["runway"]; p.Assigned != 1 || p.Free() != 0 {
		t.Errorf("runway = %+v, want its one licence on N2", p)
	}
}

func TestAssignRenewsAnExpiredAssignment(t *testing.T) {
	t.Parallel()
	l := licences()
	if err := l.Assign([]Key{user("efb", "u2")}, "admin", at); err != nil {
		t.Fatal(err)
	}
	if p := l.Pools["efb"]; p.Assigned != 2 || p.Expired != 0 || !l.Held[user("efb", "u2")] {
		t.Errorf("efb = %+v, want u2 active again: 2 assigned, 0 expired", p)
	}
}

func same(a, b *Licences) bool {
	if len(a.Changes) != len(b.Changes) || len(a.Held) != len(b.Held) || len(a.Pools) != len(b.Pools) {
		return false
	}
	for k, v := range b.Held {
		if got, ok := a.Held[k]; !ok || got != v {
			return false
		}
	}
	for c, p := range b.Pools {
		if *a.Pools[c] != *p {
			return false
		}
	}
	return true
}
