package app_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	kafkago "github.com/segmentio/kafka-go"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/servicetest"
	"github.com/hangar/hangar/internal/platform/telemetry"
	"github.com/hangar/hangar/services/allocation/app"
)

// consumer runs allocation alone (no identity) on a throwaway database and an in-process
// broker; it answers the admin address, the brokers and the database URL.
func consumer(b testing.TB) (admin string, brokers []string, url string) {
	b.Helper()
	broker, err := kafka.StartBroker(0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(broker.Close)
	url = dbtest.New(b)
	vars := map[string]string{"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
		"SHUTDOWN_TIMEOUT": "2s", "KAFKA_BROKERS": strings.Join(broker.Addrs(), ","), "TRUSTED_PROXIES": "0", "LOG_LEVEL": "warn",
		"DATABASE_URL": url}
	var cfg app.Config
	if err := config.LoadFrom(&cfg, lookup(vars)); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	servicetest.Run(b, ctx, cancel, a)
	_, _, admin = a.Addrs()
	if err := kafka.EnsureTopic(ctx, broker.Addrs(), events.TopicSubscriptionChanged, 1); err != nil {
		b.Fatal(err)
	}
	return admin, broker.Addrs(), url
}

// newBuyer is checkout's subscription-changed event of a new buyer's first order (Premium
// with a region) as a message with id id.
func newBuyer(b testing.TB, i int, id string, now time.Time) kafkago.Message {
	b.Helper()
	acct := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
	payload, err := proto.Marshal(&eventsv1.SubscriptionChanged{SubscriptionId: fmt.Sprintf("sub-%d", i), AccountId: acct,
		PlanCode: "premium", Quantity: 1, Status: "active", Version: 1, ChangedAt: timestamppb.New(now),
		TermStart: timestamppb.New(now), TermEnd: timestamppb.New(now.AddDate(1, 0, 0)),
		AddOns: []*eventsv1.SubscriptionAddOn{{AddOnCode: "premium", LicensingMethod: "USER_ALLOCATION", Quantity: 1},
			{AddOnCode: "region_europe", LicensingMethod: "USER_ALLOCATION", Quantity: 1}}})
	if err != nil {
		b.Fatal(err)
	}
	return kafkago.Message{Topic: events.TopicSubscriptionChanged, Key: []byte(acct), Value: payload,
		Headers: []kafkago.Header{{Key: kafka.HeaderID, Value: []byte(id)}}}
}

// Events fetched together are applied in one transaction; a poison event among them (a
// payload that does not decode) makes the batch fall back to one event at a time: it is
// dead-lettered and every other event is applied, once, a re-sent one (same id) included.
func TestConsumerDeadLettersAPoisonEventAndAppliesTheRest(t *testing.T) {
	t.Parallel()
	admin, brokers, url := consumer(t)
	ctx := context.Background()
	now := time.Now()
	poison := newBuyer(t, 2, "ev-poison", now)
	poison.Value = []byte("not a protobuf \xff\xff")
	p := kafka.NewProducer(brokers, telemetry.Propagator())
	defer p.Close()
	if err := p.Publish(ctx, newBuyer(t, 1, "ev-1", now), poison, newBuyer(t, 3, "ev-3", now), newBuyer(t, 1, "ev-1", now)); err != nil {
		t.Fatal(err)
	}
	outcome := func(o string) float64 {
		return servicetest.Metric(t, admin, "hangar_kafka_consumer_events_total", `group="allocation"`, `outcome="`+o+`"`)
	}
	// Every message gets an outcome: handled, duplicate (the re-sent one) or dead_lettered.
	eventually(t, "four outcomes", func() bool { return outcome("handled")+outcome("duplicate")+outcome("dead_lettered") == 4 })
	if got := outcome("dead_lettered"); got != 1 {
		t.Errorf("dead-lettered events = %v, want 1", got)
	}

	dead, err := kafka.ReadDeadLetters(ctx, brokers, events.TopicSubscriptionChanged, kafka.ReplayFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(dead) != 1 || dead[0].ID != "ev-poison" || dead[0].Group != app.ConsumerGroup {
		t.Errorf("dead letters = %+v, want ev-poison of group %s", dead, app.ConsumerGroup)
	}
	if got := outcome("handled"); got != 2 {
		t.Errorf("handled events = %v, want 2 (the re-sent one skipped)", got)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT subscription_id || ' ' || count(g.add_on_code) FROM subscriptions s
		LEFT JOIN grants g USING (subscription_id) GROUP BY subscription_id ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"sub-1 2", "sub-3 2"}; !slices.Equal(got, want) {
		t.Errorf("subscriptions with their grants = %q, want %q", got, want)
	}
}

// BenchmarkConsumeSubscriptionChanged: b.N new buyers' subscription-changed events (each a
// new account's Premium with one add-on, as checkout's load test buys) published at once
// to a running allocation service (kfake broker, real PostgreSQL), consumed until all are
// handled; reports allocation's statements, round trips and transactions per event (its
// pool's counters over the drain, idle polling included).
func BenchmarkConsumeSubscriptionChanged(b *testing.B) {
	admin, brokers, _ := consumer(b)
	ctx := context.Background()
	msgs := make([]kafkago.Message, b.N)
	now := time.Now()
	for i := range msgs {
		msgs[i] = newBuyer(b, i, fmt.Sprintf("ev-%d", i), now)
	}
	p := kafka.NewProducer(brokers, telemetry.Propagator())
	defer p.Close()

	db0 := dbtest.Gather(b, servicetest.Gatherer(admin))["main"]
	b.ResetTimer()
	if err := p.Publish(ctx, msgs...); err != nil {
		b.Fatal(err)
	}
	servicetest.AwaitMetric(b, admin, "hangar_kafka_consumer_events_total", float64(b.N), `group="allocation"`, `outcome="handled"`)
	b.StopTimer()
	servicetest.ReportDB(b, dbtest.Gather(b, servicetest.Gatherer(admin))["main"], db0, "event")
}
