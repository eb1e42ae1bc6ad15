package app_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	kafkago "github.com/segmentio/kafka-go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/servicetest"
	"github.com/hangar/hangar/internal/platform/telemetry"
	"github.com/hangar/hangar/services/identity/app"
)

// subscriptionChanged is checkout's event of account's Premium with a region, as message id.
func subscriptionChanged(t testing.TB, account, id string, version int64) kafkago.Message {
	t.Helper()
	payload, err := proto.Marshal(&eventsv1.SubscriptionChanged{SubscriptionId: "sub-" + account, AccountId: account,
		PlanCode: "premium", Quantity: 1, Status: "active", Version: version, ChangedAt: timestamppb.Now(),
		AddOns: []*eventsv1.SubscriptionAddOn{{AddOnCode: "premium"}, {AddOnCode: "region_europe"}}})
	if err != nil {
		t.Fatal(err)
	}
	return kafkago.Message{Topic: events.TopicSubscriptionChanged, Key: []byte(account), Value: payload,
		Headers: []kafkago.Header{{Key: kafka.HeaderID, Value: []byte(id)}}}
}

// The subscription projection consumes in batches; a poison event among them (a payload
// that does not decode, an account id that is not a UUID) is dead-lettered and the others
// are recorded, once: the re-sent one (same id) is skipped.
func TestSubscriptionConsumerDeadLettersPoisonAndAppliesTheRest(t *testing.T) {
	t.Parallel()
	r := start(t)
	_, _, admin := r.a.Addrs()
	ctx := context.Background()
	const a1, a2 = "00000000-0000-4000-8000-0000000000a1", "00000000-0000-4000-8000-0000000000a2"
	garbage := subscriptionChanged(t, a1, "ev-garbage", 1)
	garbage.Value = []byte("not a protobuf \xff\xff")
	p := kafka.NewProducer(r.brokers, telemetry.Propagator())
	defer p.Close()
	if err := p.Publish(ctx, subscriptionChanged(t, a1, "ev-1", 1), garbage, subscriptionChanged(t, "not-a-uuid", "ev-bad-account", 1),
		subscriptionChanged(t, a2, "ev-2", 1), subscriptionChanged(t, a1, "ev-1", 1), subscriptionChanged(t, a1, "ev-3", 2)); err != nil {
		t.Fatal(err)
	}
	outcome := func(o string) float64 {
		return servicetest.Metric(t, admin, "hangar_kafka_consumer_events_total", `group="`+app.SubscriptionsGroup+`"`, `outcome="`+o+`"`)
	}
	// Every message gets an outcome: handled, duplicate (the re-sent one) or dead_lettered.
	// (The account id that is not a UUID is retried first: the default backoff.)
	for deadline := time.Now().Add(60 * time.Second); outcome("handled")+outcome("duplicate")+outcome("dead_lettered") != 6; {
		if time.Now().After(deadline) {
			t.Fatalf("outcomes: handled %v, duplicate %v, dead-lettered %v; want 6 in all", outcome("handled"), outcome("duplicate"), outcome("dead_lettered"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if h, d := outcome("handled"), outcome("dead_lettered"); h != 3 || d != 2 {
		t.Errorf("handled %v, dead-lettered %v; want 3 and 2", h, d)
	}
	dead, err := kafka.ReadDeadLetters(ctx, r.brokers, events.TopicSubscriptionChanged, kafka.ReplayFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range dead {
		ids = append(ids, d.ID)
	}
	slices.Sort(ids)
	if want := []string{"ev-bad-account", "ev-garbage"}; !slices.Equal(ids, want) {
		t.Errorf("dead letters %q, want %q", ids, want)
	}
	conn, err := pgx.Connect(ctx, r.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT account_uuid::text || ' ' || version || ' ' || array_to_string(add_ons, ',')
		FROM subscription_entitlements ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{a1 + " 2 premium,region_europe", a2 + " 1 premium,region_europe"}; !slices.Equal(got, want) {
		t.Errorf("entitlements %q, want %q", got, want)
	}
}

// BenchmarkNewBuyer: identity's part of b.N new buyers' orders against a running identity
// (kfake broker, real PostgreSQL): checkout's ProvisionAccount through gRPC, one at a time,
// then the orders' subscription-changed events published at once and consumed until all
// are handled. Reports identity's statements, round trips and transactions per order (its
// pool's counters, the outbox relay of account-created and idle polling included).
func BenchmarkNewBuyer(b *testing.B) {
	r := start(b)
	grpcAddr, _, admin := r.a.Addrs()
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	c := identityv1.NewIdentityServiceClient(conn)
	ctx := context.Background()
	if err := kafka.EnsureTopic(ctx, r.brokers, events.TopicSubscriptionChanged, 1); err != nil {
		b.Fatal(err)
	}
	p := kafka.NewProducer(r.brokers, telemetry.Propagator())
	defer p.Close()
	db0 := dbtest.Gather(b, servicetest.Gatherer(admin))["main"]
	b.ResetTimer()
	msgs := make([]kafkago.Message, b.N)
	for i := range b.N {
		resp, err := c.ProvisionAccount(ctx, &identityv1.ProvisionAccountRequest{Email: fmt.Sprintf("buyer-%d@bench.test", i)})
		if err != nil {
			b.Fatal(err)
		}
		if !resp.GetCreated() {
			b.Fatalf("buyer %d not created", i)
		}
		msgs[i] = subscriptionChanged(b, resp.GetAccountUuid(), fmt.Sprintf("ev-%d", i), 1)
	}
	if err := p.Publish(ctx, msgs...); err != nil {
		b.Fatal(err)
	}
	servicetest.AwaitMetric(b, admin, "hangar_kafka_consumer_events_total", float64(b.N), `group="`+app.SubscriptionsGroup+`"`, `outcome="handled"`)
	b.StopTimer()
	servicetest.ReportDB(b, dbtest.Gather(b, servicetest.Gatherer(admin))["main"], db0, "order")
}
