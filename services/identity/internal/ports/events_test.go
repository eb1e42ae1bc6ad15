package ports_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/identity/internal/app"
	"github.com/hangar/hangar/services/identity/internal/domain"
	"github.com/hangar/hangar/services/identity/internal/ports"
)

// inbox records the writes the handlers ask for.
type inbox struct {
	entitlements [][]domain.AccountEntitlement
	consents     []string
	welcomes     [][]domain.AccountLink
	// welcomeEvents are the events the welcome links' callback builds, for the address
	// and kind "<account>@example.com", business.
	welcomeEvents []kafka.Event
}

func (i *inbox) PutEntitlements(_ context.Context, es []domain.AccountEntitlement) error {
	i.entitlements = append(i.entitlements, es)
	return nil
}

func (i *inbox) GiveMarketingConsent(_ context.Context, account string, at time.Time) (bool, error) {
	i.consents = append(i.consents, account+" "+at.UTC().Format(time.RFC3339))
	return true, nil
}

func (i *inbox) IssueWelcomeLinks(_ context.Context, ls []domain.AccountLink, events func(domain.AccountLink, string, domain.Kind) ([]kafka.Event, error)) error {
	i.welcomes = append(i.welcomes, ls)
	for _, l := range ls {
		evs, err := events(l, l.AccountUUID+"@example.com", domain.Business)
		if err != nil {
			return err
		}
		i.welcomeEvents = append(i.welcomeEvents, evs...)
	}
	return nil
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
	return app.New(nil, nil, app.Policies{Links: domain.LinkPolicy{WelcomeTTL: 72 * time.Hour}}, time.Now, slog.New(slog.DiscardHandler))
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

// The order-completed batch handler hands the batch's accounts to one write, each once
// (an account's second order in the batch issues nothing more; an order without an
// account is left out), each with a link of its own, and builds each link's event: after
// the order, the link carrying the token whose hash is stored, its expiry and the account's
// kind, keyed by the account. A payload that does not decode fails the batch permanently
// (the consumer dead-letters it) and writes nothing.
func TestOrderCompletionsDecodesTheBatch(t *testing.T) {
	t.Parallel()
	in := &inbox{}
	h := ports.OrderCompletions(service(), func(pgx.Tx) app.Inbox { return in })
	envs := []kafka.Envelope{
		envelope(t, &eventsv1.OrderCompleted{OrderId: "o1", AccountId: "a1"}),
		envelope(t, &eventsv1.OrderCompleted{OrderId: "o2"}),
		envelope(t, &eventsv1.OrderCompleted{OrderId: "o3", AccountId: "a2"}),
		envelope(t, &eventsv1.OrderCompleted{OrderId: "o4", AccountId: "a1"}),
	}
	if err := h(context.Background(), nil, envs); err != nil {
		t.Fatal(err)
	}
	if len(in.welcomes) != 1 || len(in.welcomes[0]) != 2 || in.welcomes[0][0].AccountUUID != "a1" || in.welcomes[0][1].AccountUUID != "a2" {
		t.Fatalf("welcome writes %+v, want one of a1 and a2", in.welcomes)
	}
	hashes := map[string]bool{}
	for i, l := range in.welcomes[0] {
		if l.Link.Purpose != domain.LinkWelcome || len(l.Link.Hash) == 0 || l.Link.ExpiresAt.Sub(l.Link.CreatedAt) != 72*time.Hour {
			t.Errorf("link of %s = %+v, want a welcome link living 72h", l.AccountUUID, l.Link)
		}
		hashes[string(l.Link.Hash)] = true
		ev := in.welcomeEvents[i]
		var got eventsv1.PasswordLinkIssued
		if err := proto.Unmarshal(ev.Payload, &got); err != nil {
			t.Fatal(err)
		}
		token, _, _ := strings.Cut(strings.TrimPrefix(got.GetLink(), domain.SetPasswordPath+"#token="), "&")
		if ev.Topic != events.TopicPasswordLinkIssued || ev.Key != l.AccountUUID || got.GetAccountUuid() != l.AccountUUID ||
			got.GetEmail() != l.AccountUUID+"@example.com" || got.GetPurpose() != domain.LinkWelcome || !got.GetAfterOrder() ||
			got.GetAccountKind() != string(domain.Business) || !got.GetExpiresAt().AsTime().Equal(l.Link.ExpiresAt) ||
			!strings.HasSuffix(got.GetLink(), "&welcome=1") || string(domain.HashToken(token)) != string(l.Link.Hash) {
			t.Errorf("event of %s: %s key %s %v, want its welcome link's", l.AccountUUID, ev.Topic, ev.Key, &got)
		}
	}
	if len(hashes) != 2 || len(in.welcomeEvents) != 2 {
		t.Errorf("%d distinct links and %d events, want a link and an event per account", len(hashes), len(in.welcomeEvents))
	}

	bad := kafka.Envelope{ID: "garbage", Data: []byte("not a protobuf \xff\xff")}
	if err := h(context.Background(), nil, append(envs, bad)); !kafka.IsPermanent(err) {
		t.Errorf("undecodable payload: %v, want a permanent error", err)
	}
	if err := h(context.Background(), nil, []kafka.Envelope{envelope(t, &eventsv1.OrderCompleted{OrderId: "o5"})}); err != nil {
		t.Errorf("a batch of orders without accounts: %v", err)
	}
	if len(in.welcomes) != 1 {
		t.Errorf("batches with an undecodable payload or no account wrote %+v", in.welcomes[1:])
	}
}
