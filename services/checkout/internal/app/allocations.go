package app

import (
	"context"
	"slices"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/subscription"
)

// Allocations is the allocation service as checkout reads it (issue 13): it owns the
// licence pools and who holds what; checkout keeps no copy.
type Allocations interface {
	OwnerAllocations(ctx context.Context, owners []string) (*OwnerAllocations, error)
}

// OwnerAllocations is what the allocation service answers about the owners of a
// subscription's licences (its organization and its account).
type OwnerAllocations struct {
	// Tails are the tail allocations with current add-ons.
	Tails []domain.Allocation
	// Users are the user allocations with current add-ons (TargetOwnerID: whose licences).
	Users []domain.Allocation
	// UserAllocated are the add-on codes users hold.
	UserAllocated []string
	Pools         []Pool
}

// For is the part of an answer about more owners (a renewal batch's) that is about owners.
func (a *OwnerAllocations) For(owners []string) *OwnerAllocations {
	out := &OwnerAllocations{}
	for _, t := range a.Tails {
		if slices.Contains(owners, t.TargetOwnerID) {
			out.Tails = append(out.Tails, t)
		}
	}
	for _, u := range a.Users {
		if !slices.Contains(owners, u.TargetOwnerID) {
			continue
		}
		out.Users = append(out.Users, u)
		for _, c := range u.AddOnCodes {
			if !slices.Contains(out.UserAllocated, c) {
				out.UserAllocated = append(out.UserAllocated, c)
			}
		}
	}
	for _, p := range a.Pools {
		if slices.Contains(owners, p.Owner) {
			out.Pools = append(out.Pools, p)
		}
	}
	return out
}

// allocationsRead is the allocation service's answer (or failure) for a renewal batch's
// subscriptions, asked once for the batch.
type allocationsRead struct {
	got *OwnerAllocations
	err error
}

// ownersOf answers the owners of a subscription's licences: its organization and account.
func ownersOf(sub *domain.Subscription) []string {
	var owners []string
	for _, o := range []string{sub.OrganizationID, sub.AccountID} {
		if o != "" && !slices.Contains(owners, o) {
			owners = append(owners, o)
		}
	}
	return owners
}

// allocationsOf asks the allocation service once about the owners of every subscription
// of subs (a renewal batch); nil without an allocation service or owners.
func (s *Service) allocationsOf(ctx context.Context, subs map[string]*domain.Subscription) *allocationsRead {
	if s.allocations == nil {
		return nil
	}
	var owners []string
	for _, sub := range subs {
		if sub == nil {
			continue
		}
		for _, o := range ownersOf(sub) {
			if !slices.Contains(owners, o) {
				owners = append(owners, o)
			}
		}
	}
	if len(owners) == 0 {
		return nil
	}
	slices.Sort(owners)
	got, err := s.allocations.OwnerAllocations(ctx, owners)
	return &allocationsRead{got: got, err: err}
}

// Pool is one owner's pool of one add-on.
type Pool struct {
	Owner, Code, Method string
	IsPlan              bool
	Bought, Assigned    int
}

// Messages and codes of a preview priced without the allocation service (its answer
// failed or timed out): the preview is still priced, conservatively.
const (
	CodeAllocationsUnavailable = "ALLOCATIONS_UNAVAILABLE"
	MsgAllocationsUnavailable  = "Your licence allocations cannot be checked right now, so products that may be allocated to users or aircraft are kept as they are. Please try again in a few minutes to change them."
)

// withAllocations completes sub with what the allocation service says about its owners'
// licences. It answers false when the service could not answer: then, so that no
// assignment ends without the buyer being asked, every add-on of the subscription that is
// pooled (has a licensing method, as its subscription-changed event says) is locked like an
// allocated product, regions follow the subscription when it is licensed by user
// allocation, and no tail allocations are listed (their add-ons are locked instead).
// batch, when not nil, is the answer the renewal batch asked for all its subscriptions.
func (s *Service) withAllocations(ctx context.Context, sub *domain.Subscription, cat *domain.Catalog, batch *allocationsRead) bool {
	if s.allocations == nil || sub == nil {
		return true
	}
	owners := ownersOf(sub)
	if len(owners) == 0 {
		return true
	}
	var got *OwnerAllocations
	var err error
	if batch != nil {
		if got, err = batch.got, batch.err; got != nil {
			got = got.For(owners)
		}
	} else {
		got, err = s.allocations.OwnerAllocations(ctx, owners)
	}
	if err != nil {
		s.log.WarnContext(ctx, "allocation service unavailable: pricing with pooled add-ons locked", "subscription", sub.ID, "err", err.Error())
		sub.Allocations, sub.AllocatedAddOns, sub.UserPools = nil, nil, nil
		for _, a := range subscription.AddOns(sub.AddOns, sub.Quantity, sub.LicensingMethod, cat) {
			if a.GetLicensingMethod() != "" {
				sub.AllocatedAddOns = append(sub.AllocatedAddOns, a.GetAddOnCode())
			}
		}
		sub.UsersAllocated = sub.LicensingMethod == domain.LicensingUserAllocation
		return false
	}
	sub.Allocations = got.Tails
	sub.AllocatedAddOns = nil
	for _, code := range got.UserAllocated {
		if slices.Contains(sub.AddOns, code) {
			sub.AllocatedAddOns = append(sub.AllocatedAddOns, code)
		}
	}
	sub.UserPools = nil
	for _, p := range got.Pools {
		if (p.Method == domain.LicensingUserAllocation || p.Method == domain.LicensingPerUser) && p.Assigned > 0 {
			sub.UserPools = append(sub.UserPools, domain.UserPool{Owner: p.Owner, Code: p.Code, Assigned: p.Assigned})
		}
	}
	sub.UsersAllocated = slices.ContainsFunc(got.Pools, func(p Pool) bool {
		return p.Code == sub.PlanCode && p.Method == domain.LicensingUserAllocation
	})
	return true
}
