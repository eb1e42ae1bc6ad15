// Package subscription holds what checkout publishes about subscriptions: the
// subscription-changed event (the whole state after a change, versioned, keyed by account).
package subscription

import (
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
)

// Changed is one subscription-changed event.
type Changed struct {
	Sub     *domain.Subscription
	Change  string // new, renewal, change, auto-renew, seed
	OrderID string
	At      time.Time
	// Catalog tells per-licence add-ons from per-organisation ones (nil: all per licence).
	Catalog *domain.Catalog
}

// Event encodes c for the outbox.
func (c Changed) Event() (kafka.Event, error) {
	s := c.Sub
	status := "active"
	if !s.Valid {
		status = "lapsed"
	}
	ev := &eventsv1.SubscriptionChanged{SubscriptionId: s.ID, AccountId: s.AccountID, OrganizationId: s.OrganizationID, PlanCode: s.PlanCode,
		Quantity: int32(s.Quantity), TermStart: timestamppb.New(s.TermStart), TermEnd: timestamppb.New(s.TermEnd), Status: status,
		AutoRenew: s.AutoRenew, Change: c.Change, OrderId: c.OrderID, Version: s.Version, ChangedAt: timestamppb.New(c.At),
		AddOns: AddOns(s.AddOns, s.Quantity, s.LicensingMethod, c.Catalog)}
	b, err := proto.Marshal(ev)
	if err != nil {
		return kafka.Event{}, fmt.Errorf("encode subscription changed: %w", err)
	}
	return kafka.Event{Topic: events.TopicSubscriptionChanged, Key: s.AccountID, Payload: b}, nil
}

// AddOns lists a subscription's add-ons with their licensing method, which the allocation
// service pools by: per-licence entries carry the subscription's method (USER_ALLOCATION
// when its licences are allocated to users), or else the catalogue's, and its quantity;
// per-organisation ones one each, with the catalogue's method when it has one (a runway
// package: TAIL_ALLOCATION, one tail); regions, features and not-purchased markers none.
// Without a catalogue (an order fulfilled before one was loaded) the names decide: regions
// and markers carry none, runway packages go to one tail. The dev seed waits for the
// catalogue, so seeded subscriptions file the pools a real order files.
func AddOns(codes []string, qty int, licensing string, cat *domain.Catalog) []*eventsv1.SubscriptionAddOn {
	out := make([]*eventsv1.SubscriptionAddOn, 0, len(codes))
	for _, code := range codes {
		a := &eventsv1.SubscriptionAddOn{AddOnCode: code, LicensingMethod: licensing, Quantity: int32(qty)}
		region := strings.HasPrefix(code, "included_geo_") || strings.HasPrefix(code, "add_geo_")
		marker := strings.HasSuffix(code, "_not_purchased")
		var e *domain.Entry
		if cat != nil {
			e, _ = cat.Entry(code)
		}
		switch {
		case marker:
			a.Quantity, a.LicensingMethod = 1, ""
		case e != nil && pricing.PerOrganization(e):
			a.Quantity, a.LicensingMethod = 1, ""
			if seatPricing(e.PricingType) {
				a.LicensingMethod = e.PricingType
			}
		case e == nil && strings.HasPrefix(code, "runway_"):
			a.Quantity, a.LicensingMethod = 1, "TAIL_ALLOCATION"
		case region || (e != nil && e.PlanType == "region"):
			a.LicensingMethod = ""
		case e != nil && licensing == "" && seatPricing(e.PricingType):
			a.LicensingMethod = e.PricingType
		}
		out = append(out, a)
	}
	return out
}

// seatPricing reports whether a catalogue pricing type is a per-seat licensing method.
func seatPricing(t string) bool {
	switch t {
	case "USER_ALLOCATION", "TAIL_ALLOCATION", "ANY_ALLOCATION", "PER_USER", "PER_TAIL", "PER_DEVICE":
		return true
	}
	return false
}
