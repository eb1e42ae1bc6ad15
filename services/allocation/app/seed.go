package app

import (
	"context"
	"errors"
	"time"

	"github.com/cenkalti/backoff/v5"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/services/allocation/internal/app"
	"github.com/hangar/hangar/services/allocation/internal/domain"
	"github.com/hangar/hangar/services/allocation/internal/ports"
)

// Dev seed: identity's demo organization, Acme Flight Department, gets the licences of the
// business subscription checkout seeds for it (services/checkout/internal/app/seed.go),
// filed the way a subscription-changed event for it would file them, plus a few aircraft.
const (
	// SeedOwnerEmail is the demo organization's owner (identity's dev seed).
	SeedOwnerEmail = "owner@acme.hangar.test"
	// SeedSubscriptionID is checkout's seeded business subscription.
	SeedSubscriptionID = "10000000-0000-4000-8000-000000000002"
	// SeedOwnerID is the demo owner's account id, fixed by identity's dev seed.
	SeedOwnerID = "00000000-0000-4000-8000-000000000002"
)

// SeedTails are the demo organization's aircraft; N412AC holds the Pilatus runway analysis.
var SeedTails = []string{"N412AC", "N500AC", "N612AC", "N734AC", "N801AC"}

// SeedEvent is the subscription-changed event checkout's dev seed publishes for its seeded
// business subscription, filed under the organization's account org. Its add-ons are what a
// real order of that subscription carries (checkout builds both with the catalogue:
// services/checkout/internal/subscription AddOns; checkout's tests compare the three):
// Business Pro and Logbook for 5 users (USER_ALLOCATION), the Pilatus runway analysis for 1
// aircraft (TAIL_ALLOCATION); the region and EFB Bridge (a feature of the whole organization, priced
// once) are not seats and have no pool. Version 1 and an old change time, so checkout's own
// seed event and any real change supersede it; it only makes the pools exist before the
// first event arrives.
func SeedEvent(org string, now time.Time) *eventsv1.SubscriptionChanged {
	day := func(n int) time.Time { return now.UTC().Truncate(24*time.Hour).AddDate(0, 0, n) }
	return &eventsv1.SubscriptionChanged{
		SubscriptionId: SeedSubscriptionID, AccountId: org, OrganizationId: org, PlanCode: "business_pro",
		AddOns: []*eventsv1.SubscriptionAddOn{
			{AddOnCode: "business_pro", LicensingMethod: string(domain.UserAllocation), Quantity: 5},
			{AddOnCode: "included_geo_us", Quantity: 5},
			{AddOnCode: "logbook", LicensingMethod: string(domain.UserAllocation), Quantity: 5},
			{AddOnCode: "efb_bridge", Quantity: 1},
			{AddOnCode: "runway_tp_pilatus", LicensingMethod: string(domain.TailAllocation), Quantity: 1},
		},
		Quantity: 5, TermStart: timestamppb.New(day(-222)), TermEnd: timestamppb.New(day(143)),
		Status: "active", Change: "new", Version: 1, ChangedAt: timestamppb.New(day(-222)),
	}
}

// Seed files the demo organization's pools and tails (idempotent: the event's version is
// applied once; tails and the seeded assignment are kept as they are; app.Service.SeedDemo).
func (a *App) Seed(ctx context.Context, org string) error {
	return a.svc.SeedDemo(ctx, a.store, app.DemoSeed{Owner: org, Subscription: ports.SubscriptionFromEvent(SeedEvent(org, a.now())),
		Tails: SeedTails, Assign: app.Target{Type: domain.Tail, ID: "N412AC", Codes: []string{"runway_tp_pilatus"}}})
}

// seedWhenIdentityAnswers waits for identity to know the demo organization's owner (identity
// seeds in the background too), then seeds.
func (a *App) seedWhenIdentityAnswers(ctx context.Context) {
	if a.dir == nil {
		a.log.WarnContext(ctx, "dev seed needs IDENTITY_ADDR; skipped")
		return
	}
	org, err := backoff.Retry(ctx, func() (string, error) {
		biz, err := a.dir.IsBusiness(ctx, SeedOwnerEmail)
		if err == nil && !biz {
			err = errors.New("identity does not know the demo owner yet")
		}
		return SeedOwnerID, err
	}, backoff.WithBackOff(&backoff.ExponentialBackOff{InitialInterval: 200 * time.Millisecond, Multiplier: 2, MaxInterval: 5 * time.Second}),
		backoff.WithMaxElapsedTime(0))
	if err != nil {
		return // ctx ended
	}
	if err := a.Seed(ctx, org); err != nil {
		a.log.ErrorContext(ctx, "dev seed failed", "err", err.Error())
	} else {
		a.log.InfoContext(ctx, "demo organization's licence pools seeded", "owner", SeedOwnerEmail, "account", org)
	}
}
