package app

import (
	"context"
	"fmt"

	"github.com/hangar/hangar/services/allocation/internal/domain"
)

// TailRecorder records an owner's aircraft (adapters.Store). Only the development seed
// records tails with no assignment; the API records a tail as it assigns to it.
type TailRecorder interface {
	AddTail(ctx context.Context, owner, tail string) error
}

// DemoSeed is the development data of one organization.
type DemoSeed struct {
	Owner string
	// Subscription is filed as its subscription-changed event would file it.
	Subscription domain.Subscription
	// Tails are the organization's aircraft.
	Tails []string
	// Assign is assigned as the owner would assign it, unless its target holds an
	// assignment already.
	Assign Target
}

// SeedDemo files d's subscription, records its tails and makes its assignment. A rerun
// (every start) changes nothing: the subscription's version is filed once, tails are kept,
// and an assignment the target holds is left as it is.
func (s *Service) SeedDemo(ctx context.Context, tails TailRecorder, d DemoSeed) error {
	if err := s.Apply(ctx, d.Subscription); err != nil {
		return fmt.Errorf("seed pools of %s: %w", d.Owner, err)
	}
	for _, t := range d.Tails {
		if err := tails.AddTail(ctx, d.Owner, t); err != nil {
			return err
		}
	}
	rows, err := s.store.Assignments(ctx, d.Owner, d.Assign.Type, []string{d.Assign.ID})
	if err != nil || len(rows) > 0 {
		return err
	}
	owner := domain.Actor{AccountID: d.Owner, OrgAccount: d.Owner, Roles: []string{domain.RoleOwner}}
	if _, err := s.Change(ctx, owner, d.Owner, []Target{d.Assign}, nil); err != nil {
		return fmt.Errorf("seed %s allocation: %w", d.Assign.Type, err)
	}
	return nil
}
