package domain

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Key names one assignment: an add-on's licence held by one target.
type Key struct {
	Code       string
	TargetType TargetType
	TargetID   string
}

// Assignment is one assignment as stored: active, or expired (its licence lapsed).
type Assignment struct {
	Code       string
	TargetType TargetType
	TargetID   string
	Active     bool
}

// Stored is a subscription as the last applied event left it.
type Stored struct {
	Owner     string
	Version   int64
	ChangedAt time.Time
}

// Member is a user of the caller's organization, as identity knows them.
type Member struct {
	AccountUUID string
	Email       string
	Roles       []string
}

// Admit checks that the pool's licences may go to a target of type t: the add-on must be a
// licence the owner holds (bought, or with a licensing method) and its method must allow t.
// A nil pool is an add-on the owner has no pool of.
func (p *Pool) Admit(code string, t TargetType) error {
	if p == nil || p.Bought == 0 && p.Method == "" {
		return errs.Field("addOnCodes", fmt.Sprintf("%s is not a licence of your subscription.", code))
	}
	if p.Method != "" && !p.Method.Allows(t) {
		return errs.Field("addOnCodes", fmt.Sprintf("%s cannot be assigned to a %s.", code, strings.ToLower(string(t))))
	}
	return nil
}

// Assign takes n free licences, or none when fewer are free ('Insufficient addOn quantity').
func (p *Pool) Assign(n int) error {
	if n > p.Free() {
		return ErrInsufficient(p.Code)
	}
	p.Assigned += n
	return nil
}

// Release gives back an assignment's licence: an active one frees it, an expired one stops
// being counted as expired.
func (p *Pool) Release(active bool) {
	if active {
		p.Assigned--
	} else {
		p.Expired--
	}
}

// Licences is one owner's pools with the assignments of the targets a change touches, as the
// repository loaded them under the owner's lock. Release and Assign apply the rule of what
// may be assigned and record each move in Changes, which is what the repository saves.
type Licences struct {
	Owner string
	Pools map[string]*Pool
	// Held are the loaded targets' assignments: true when active, false when expired.
	Held    map[Key]bool
	Changes []Change
}

// Release takes an assignment away, active or expired; false when the target did not hold it.
func (l *Licences) Release(k Key, actor string, at time.Time) bool {
	active, ok := l.Held[k]
	if !ok {
		return false
	}
	delete(l.Held, k)
	if p := l.Pools[k.Code]; p != nil {
		p.Release(active)
	}
	l.Changes = append(l.Changes, Change{Owner: l.Owner, Code: k.Code, TargetType: k.TargetType, TargetID: k.TargetID,
		Action: "unassigned", Actor: actor, At: at})
	return true
}

// Assign gives each key's target its licence, all or nothing: a code the owner holds no
// licence of, or whose method does not allow the target, refuses the whole (the first such
// key); so does a pool that cannot cover every new assignment of its code, which refuses with
// 'Insufficient addOn quantity for {code}', naming the first short code in the order asked.
// What a target holds already costs nothing; an expired assignment assigned again takes a
// free licence.
func (l *Licences) Assign(keys []Key, actor string, at time.Time) error {
	need := map[string]int{}
	var codes []string
	var add []Key
	for _, k := range keys {
		if err := l.Pools[k.Code].Admit(k.Code, k.TargetType); err != nil {
			return err
		}
		if l.Held[k] || slices.Contains(add, k) {
			continue
		}
		add = append(add, k)
		if need[k.Code] == 0 {
			codes = append(codes, k.Code)
		}
		need[k.Code]++
	}
	for _, c := range codes {
		if need[c] > l.Pools[c].Free() {
			return ErrInsufficient(c)
		}
	}
	for _, c := range codes {
		if err := l.Pools[c].Assign(need[c]); err != nil {
			return err
		}
	}
	if l.Held == nil {
		l.Held = map[Key]bool{}
	}
	for _, k := range add {
		if active, held := l.Held[k]; held && !active {
			l.Pools[k.Code].Expired--
		}
		l.Held[k] = true
		l.Changes = append(l.Changes, Change{Owner: l.Owner, Code: k.Code, TargetType: k.TargetType, TargetID: k.TargetID,
			Action: "assigned", Actor: actor, At: at})
	}
	return nil
}
