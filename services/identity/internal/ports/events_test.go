package ports_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/identity/internal/app"
	"github.com/hangar/hangar/services/identity/internal/domain"
	"github.com/hangar/hangar/services/identity/internal/ports"
)

// inbox records the writes the handlers ask for.
type inbox struct {
	entitlements [][]domain.AccountEntitlement
	consents     []string
}

func (i *inbox) PutEntitlements(_ context.Context, es []domain.AccountEntitlement) error {
	i.entitlements = append(i.entitlements, es)
	return nil
}

func (i *inbox) GiveMarketingConsent(_ context.Context, account string, at time.Time) (bool, error) {
	i.consents = append(i.consents, account+" "+at.UTC().Format(time.RFC3339))
	return true, nil
}

func (i *inbox) IssueWelcomeLink(context.Context, string, domain.NewLink, func(string, domain.Kind) ([]kafka.Event, error)) (bool, error) {
	return false, nil
}

func envelope(t *testing.T, ev proto.Message) kafka.Envelope {
	t.Helper()
	b, err := proto.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return kafka.Envelope{ID: "ev", Data: b}
}

func service() *app.Service {
	return app.New(nil, nil, app.Policies{}, time.Now, slog.New(slog.DiscardHandler))
}

// The batch handler decodes every event into the account's entitlement and hands the
// batch, in order, to one write; an event without an account is left out, and a payload
// that does not decode fails the batch permanently (the consumer dead-letters it).
func TestSubscriptionChangesDecodesTheBatch(t *testing.T) {
	t.Parallel()
	in := &inbox{}
	h := ports.SubscriptionChanges(service(), func(pgx.Tx) app.Inbox { return in })
	envs := []kafka.Envelope{
		envelope(t, &eventsv1.SubscriptionChanged{AccountId: "a1", SubscriptionId: "s1", PlanCode: "performance", Status: "active", Version: 2,
			AddOns: []*eventsv1.SubscriptionAddOn{{AddOnCode: "premium"}, {AddOnCode: "region_us"}}}),
		envelope(t, &eventsv1.SubscriptionChanged{SubscriptionId: "no-account", Version: 9}),
		envelope(t, &eventsv1.SubscriptionChanged{AccountId: "a2", SubscriptionId: "s2", PlanCode: "basic_plus", Status: "lapsed", Version: 1}),
	}
	if err := h(context.Background(), nil, envs); err != nil {
		t.Fatal(err)
	}
	if len(in.entitlements) != 1 || len(in.entitlements[0]) != 2 {
		t.Fatalf("writes %+v, want one of the two events with an account", in.entitlements)
	}
	got := in.entitlements[0]
	if e := got[0]; e.Account != "a1" || e.SubscriptionID != "s1" || e.PlanCode != "performance" || e.Status != "active" ||
		e.Version != 2 || len(e.AddOns) != 2 || e.AddOns[0] != "premium" || e.AddOns[1] != "region_us" {
		t.Errorf("first entitlement %+v", e)
	}
	if e := got[1]; e.Account != "a2" || e.Status != "lapsed" || e.AddOns == nil || len(e.AddOns) != 0 {
		t.Errorf("second entitlement %+v, want a2 lapsed with no add-ons", e)
	}

	bad := kafka.Envelope{ID: "garbage", Data: []byte("not a protobuf \xff\xff")}
	if err := h(context.Background(), nil, append(envs, bad)); !kafka.IsPermanent(err) {
		t.Errorf("undecodable payload: %v, want a permanent error", err)
	}
	if len(in.entitlements) != 1 {
		t.Errorf("a batch with an undecodable payload wrote %+v", in.entitlements[1:])
	}
}

// A marketing consent is recorded at the order's time; an event without a time or an
// account writes nothing (it cannot be ordered against the account's own choice).
func TestMarketingConsentGivenDecodesTheEvent(t *testing.T) {
	t.Parallel()
	in := &inbox{}
	h := ports.MarketingConsentGiven(service(), func(pgx.Tx) app.Inbox { return in })
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for _, ev := range []*eventsv1.MarketingConsentGiven{
		{AccountId: "a1", OrderId: "o1", GivenAt: timestamppb.New(at)},
		{AccountId: "a2", OrderId: "o2"},
		{OrderId: "o3", GivenAt: timestamppb.New(at)},
	} {
		if err := h(context.Background(), nil, envelope(t, ev)); err != nil {
			t.Fatal(err)
		}
	}
	if want := "a1 2026-11-27T10:00:00Z"; len(in.consents) != 1 || in.consents[0] != want {
		t.Errorf("consents %q, want only %q", in.consents, want)
	}
}
