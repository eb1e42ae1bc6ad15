package app_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	kafkago "github.com/segmentio/kafka-go"
	otelcodes "go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/devmail"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/servicetest"
	"github.com/hangar/hangar/internal/platform/telemetry"
	"github.com/hangar/hangar/services/notifications/app"
	"github.com/hangar/hangar/services/notifications/internal/adapters"
)

// stack is a running notifications service with its broker and SMTP sink, and a publisher
// (an outbox database and its relay) standing in for checkout and identity.
type stack struct {
	ctx    context.Context
	broker *kafka.Broker
	sink   *devmail.Sink
	admin  string
	dbURL  string
	pub    *pgxpool.Pool
	relay  *kafka.Relay
	spans  *tracetest.InMemoryExporter
	tp     *sdktrace.TracerProvider
}

func start(t *testing.T) *stack {
	t.Helper()
	s := newStack(t, 100)
	s.run(t, nil)
	return s
}

// newStack starts the broker, the SMTP sink (keeping keep mails) and the publisher; run
// starts the service.
func newStack(t testing.TB, keep int) *stack {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	broker, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(broker.Close)
	sink, err := devmail.Listen("127.0.0.1:0", keep)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sink.Close() })
	s := &stack{ctx: ctx, broker: broker, sink: sink, dbURL: dbtest.New(t), spans: tracetest.NewInMemoryExporter()}
	s.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(s.spans))
	s.pub, err = pgxpool.New(ctx, dbtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.pub.Close)
	if _, err := s.pub.Exec(ctx, kafka.OutboxSchema); err != nil {
		t.Fatal(err)
	}
	producer := kafka.NewProducer(broker.Addrs(), telemetry.Propagator())
	t.Cleanup(func() { _ = producer.Close() })
	s.relay = &kafka.Relay{Pool: s.pub, Producer: producer, Log: slog.New(slog.DiscardHandler), Tracer: s.tp}
	return s
}

// run starts the service (extra overrides its environment); stop ends it gracefully.
func (s *stack) run(t testing.TB, extra map[string]string, opts ...app.Option) (stop func() error) {
	t.Helper()
	vars := map[string]string{
		"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0", "SHUTDOWN_TIMEOUT": "2s",
		"DATABASE_URL": s.dbURL, "KAFKA_BROKERS": strings.Join(s.broker.Addrs(), ","), "LOG_LEVEL": "warn",
		"SMTP_ADDR": s.sink.Addr(), "SMTP_TLS": "none", "STORE_BASE_URL": "https://store.test",
		"NOTIFICATIONS_EVENT_ATTEMPTS": "2",
	}
	maps.Copy(vars, extra)
	var cfg app.Config
	if err := config.LoadFrom(&cfg, func(k string) (string, bool) { v, ok := vars[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	actx, acancel := context.WithCancel(context.Background())
	if len(opts) == 0 {
		opts = []app.Option{app.WithTracerProvider(s.tp)}
	}
	a, err := app.New(actx, cfg, io.Discard, opts...)
	if err != nil {
		t.Fatal(err)
	}
	stop = servicetest.Run(t, actx, acancel, a)
	_, _, s.admin = a.Addrs()
	return stop
}

// publish writes events through the outbox in ctx and relays them.
func (s *stack) publish(t testing.TB, ctx context.Context, evs ...kafka.Event) {
	t.Helper()
	if err := pgx.BeginFunc(ctx, s.pub, func(tx pgx.Tx) error { return kafka.Enqueue(ctx, tx, telemetry.Propagator(), evs...) }); err != nil {
		t.Fatal(err)
	}
	for {
		n, err := s.relay.RelayOnce(s.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

func (s *stack) mails(t *testing.T, to string, n int) []devmail.Mail {
	t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 60*time.Second)
	defer cancel()
	m, err := s.sink.Wait(ctx, to, n)
	if err != nil {
		t.Fatalf("%d mails to %s, want %d: %v", len(m), to, n, err)
	}
	return m
}

// metric answers the value of the first /metrics line matching re (0 when absent).
func (s *stack) metric(t testing.TB, re string) string {
	t.Helper()
	resp, err := http.Get("http://" + s.admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^` + re + ` (\S+)$`).FindStringSubmatch(string(b))
	if m == nil {
		return "0"
	}
	return m[1]
}

func (s *stack) waitMetric(t *testing.T, re, want string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); s.metric(t, re) != want; {
		if time.Now().After(deadline) {
			t.Fatalf("%s = %s, want %s", re, s.metric(t, re), want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func order(email string) *eventsv1.OrderCompleted {
	return &eventsv1.OrderCompleted{OrderId: "ord-1", InvoiceId: "inv-1", InvoiceNumber: "H-000001", AccountId: "acct-1", Email: email,
		OrderKind: "subscription", BuyerKind: "individual", Currency: "USD", SubtotalInCents: 24900, TaxInCents: 2054, TotalInCents: 26954,
		Lines: []*eventsv1.InvoiceLine{
			{AddOnCode: "pro_plus", Description: "Pro Plus", Type: "SUBSCRIPTION", Quantity: 1, AmountInCents: 19900},
			{AddOnCode: "add_geo_eu", Description: "Europe region", Type: "SUBSCRIPTION", Quantity: 1, AmountInCents: 5000},
		},
		CardBrand: "Visa", CardLast4: "1111", ChargeId: "ch-1", CompletedAt: timestamppb.New(time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)),
		ReceiptUrl: "/buy/success?invoiceId=inv-1", TaxLabel: "Sales tax"}
}

func payload(t testing.TB, m proto.Message) []byte {
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// An order produces one receipt with its lines and total, sent over SMTP with a Message-ID
// derived from the event id; the same event delivered again sends nothing more. The trace
// runs from the request that wrote the order through the relay and the consumer to the send.
func TestReceiptOncePerOrderAndOneTrace(t *testing.T) {
	t.Parallel()
	s := start(t)
	const buyer = "buyer@example.com"
	rctx, req := s.tp.Tracer("checkout").Start(s.ctx, "POST /buy/api/invoice/submit", trace.WithSpanKind(trace.SpanKindServer))
	s.publish(t, rctx, kafka.Event{Topic: events.TopicOrderCompleted, Key: "acct-1", Payload: payload(t, order(buyer))})
	req.End()

	m := s.mails(t, buyer, 1)[0]
	for _, want := range []string{"H-000001", "Pro Plus", "$199.00", "Europe region", "$50.00", "Subtotal: $249.00", "Sales tax: $20.54",
		"Total: $269.54", "Visa ending in 1111", "https://store.test/buy/success?invoiceId=inv-1", "11-23-2026 09:30 UTC"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("text part lacks %q:\n%s", want, m.Text)
		}
	}
	if !strings.Contains(m.HTML, "<strong>$269.54</strong>") || m.Subject != "Your Hangar receipt H-000001" {
		t.Errorf("subject %q, html:\n%s", m.Subject, m.HTML)
	}
	eventID := m.Headers["X-Hangar-Event-Id"][0]
	if m.MessageID != "<"+eventID+".receipt@notifications.hangar.example>" || len(eventID) != 36 {
		t.Errorf("Message-ID %q, event id %q", m.MessageID, eventID)
	}

	// The trace: submit → (outbox) send → process → smtp send.
	span := func(name string) tracetest.SpanStub {
		for deadline := time.Now().Add(10 * time.Second); ; {
			for _, sp := range s.spans.GetSpans() {
				if sp.Name == name {
					return sp
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("no span %q", name)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	submit, send, process, smtp := span("POST /buy/api/invoice/submit"), span("send "+events.TopicOrderCompleted),
		span("process "+events.TopicOrderCompleted), span("smtp send receipt")
	for _, c := range []struct {
		child, parent tracetest.SpanStub
	}{{send, submit}, {process, send}, {smtp, process}} {
		if c.child.Parent.SpanID() != c.parent.SpanContext.SpanID() || c.child.SpanContext.TraceID() != submit.SpanContext.TraceID() {
			t.Errorf("span %q: parent %v trace %v; want parent %q (%v) in trace %v", c.child.Name, c.child.Parent.SpanID(),
				c.child.SpanContext.TraceID(), c.parent.Name, c.parent.SpanContext.SpanID(), submit.SpanContext.TraceID())
		}
	}

	// Redelivery: the very same record again (what a consumer killed after its commit and
	// before its offset commit receives). The inbox recognises the event id.
	dup := kafkago.Message{Topic: events.TopicOrderCompleted, Key: []byte("acct-1"), Value: payload(t, order(buyer))}
	for k, v := range map[string]string{kafka.HeaderID: eventID, kafka.HeaderSpecVersion: "1.0", kafka.HeaderType: "hangar.checkout.order-completed",
		kafka.HeaderSource: "/hangar/checkout", kafka.HeaderSubject: "acct-1"} {
		dup.Headers = append(dup.Headers, kafkago.Header{Key: k, Value: []byte(v)})
	}
	w := &kafkago.Writer{Addr: kafkago.TCP(s.broker.Addrs()...), Balancer: &kafkago.Hash{}, AllowAutoTopicCreation: true}
	defer w.Close()
	if err := w.WriteMessages(s.ctx, dup); err != nil {
		t.Fatal(err)
	}
	s.waitMetric(t, `hangar_kafka_consumer_events_total\{group="notifications",outcome="duplicate",topic="`+regexp.QuoteMeta(events.TopicOrderCompleted)+`"\}`, "1")
	s.waitMetric(t, `hangar_notifications_pending`, "0")
	if got := s.sink.Mails(buyer); len(got) != 1 {
		t.Errorf("%d receipts after redelivery, want 1", len(got))
	}
	pool, _ := pgxpool.New(s.ctx, s.dbURL)
	defer pool.Close()
	msgs, err := adapters.NewStore(pool).MessagesOf(s.ctx, eventID)
	if err != nil || len(msgs) != 1 {
		t.Errorf("messages of the event = %v, %v; want one", msgs, err)
	}
}

// Gift certificates go to the buyer and the recipient; verification codes and welcomes to
// their address. A payload that cannot be decoded goes to the dead-letter topic and the
// next event of the partition is still handled.
func TestEveryEventKind(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.publish(t, s.ctx,
		kafka.Event{Topic: events.TopicGiftCertificateIssued, Key: "gc-1", Payload: []byte("\xff not protobuf")},
		kafka.Event{Topic: events.TopicGiftCertificateIssued, Key: "gc-1", Payload: payload(t, &eventsv1.GiftCertificateIssued{
			CertificateId: "gc-1", Code: "GC7K-2M9Q-XR4T", Balance: &eventsv1.Money{AmountInCents: 12500, Currency: "EUR"},
			BuyerEmail: "giver@example.com", RecipientEmail: "friend@example.com", RecipientName: "Sam", Message: "Blue skies"})},
		kafka.Event{Topic: events.TopicEligibilityCodeRequested, Key: "jane@navy.mil", Payload: payload(t, &eventsv1.EligibilityCodeRequested{
			Email: "jane@navy.mil", Code: "482913", Program: "military", ExpiresAt: timestamppb.New(time.Now().Add(15 * time.Minute))})},
		kafka.Event{Topic: events.TopicAccountCreated, Key: "acct-9", Payload: payload(t, &eventsv1.AccountCreated{
			AccountUuid: "acct-9", Email: "new@example.com", AccountKind: "individual"})},
		kafka.Event{Topic: events.TopicDunningNotice, Key: "acct-1", Payload: payload(t, &eventsv1.DunningNotice{
			AccountId: "acct-1", Email: "lapsing@example.com", Kind: "renewal-declined", Amount: &eventsv1.Money{AmountInCents: 19900, Currency: "GBP"},
			Date: timestamppb.Now(), Reason: "card declined"})},
	)
	if m := s.mails(t, "giver@example.com", 1)[0]; !strings.Contains(m.Text, "GC7K-2M9Q-XR4T") || !strings.Contains(m.Subject, "€125.00") {
		t.Errorf("buyer's gift mail = %q %q", m.Subject, m.Text)
	}
	if m := s.mails(t, "friend@example.com", 1)[0]; !strings.Contains(m.Text, "Blue skies") || !strings.Contains(m.HTML, "GC7K-2M9Q-XR4T") {
		t.Errorf("recipient's gift mail = %q", m.Text)
	}
	if m := s.mails(t, "jane@navy.mil", 1)[0]; m.Code != "482913" || m.Subject != "Your verification code" {
		t.Errorf("code mail = %+v", m)
	}
	if m := s.mails(t, "new@example.com", 1)[0]; m.Subject != "Welcome to Hangar" {
		t.Errorf("welcome = %q", m.Subject)
	}
	if m := s.mails(t, "lapsing@example.com", 1)[0]; !strings.Contains(m.Text, "£199.00") || !strings.Contains(m.Text, "card declined") {
		t.Errorf("dunning = %q", m.Text)
	}
	dead, err := kafka.ReadDeadLetters(s.ctx, s.broker.Addrs(), events.TopicGiftCertificateIssued, kafka.ReplayFilter{Group: "notifications"})
	if err != nil || len(dead) != 1 || !strings.Contains(dead[0].Error, "decode") || dead[0].Attempts != 1 {
		t.Errorf("dead letters = %+v, %v; want the undecodable gift, not retried", dead, err)
	}
}

// The SMTP relay refusing for a while (a temporary failure) delays the mail; it is not lost.
func TestTemporarySMTPFailureIsRetried(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.sink.Refuse(true) // the relay answers 451 for a while
	s.publish(t, s.ctx, kafka.Event{Topic: events.TopicAccountCreated, Key: "acct-7", Payload: payload(t, &eventsv1.AccountCreated{
		AccountUuid: "acct-7", Email: "late@example.com", AccountKind: "individual"})})
	s.waitMetric(t, `hangar_notifications_send_failures_total\{kind="temporary",template="welcome"\}`, "1")
	if got := s.sink.Mails("late@example.com"); len(got) != 0 {
		t.Fatalf("a refused mail was kept: %+v", got)
	}
	s.sink.Refuse(false) // back
	ctx, cancel := context.WithTimeout(s.ctx, 60*time.Second)
	defer cancel()
	if _, err := s.sink.Wait(ctx, "late@example.com", 1); err != nil {
		t.Fatal("the welcome was not retried after the relay came back")
	}
}

func TestInboxSchemaIsThePlatforms(t *testing.T) {
	t.Parallel()
	b, err := fs.ReadFile(adapters.Migrations, "migrations/0001_notifications.sql")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), strings.TrimSpace(kafka.InboxSchema)) {
		t.Error("migration 0001 does not contain kafka.InboxSchema verbatim")
	}
}

// record is the Kafka record of an event with id, as a relay writes it.
func record(t testing.TB, id, topic, key string, m proto.Message) kafkago.Message {
	var v []byte
	if m != nil {
		v = payload(t, m)
	} else {
		v = []byte("\xff not protobuf")
	}
	r := kafkago.Message{Topic: topic, Key: []byte(key), Value: v}
	for k, v := range map[string]string{kafka.HeaderID: id, kafka.HeaderSpecVersion: "1.0", kafka.HeaderType: "hangar.test",
		kafka.HeaderSource: "/hangar/test", kafka.HeaderSubject: key} {
		r.Headers = append(r.Headers, kafkago.Header{Key: k, Value: []byte(v)})
	}
	return r
}

func (s *stack) write(t testing.TB, recs ...kafkago.Message) {
	t.Helper()
	w := &kafkago.Writer{Addr: kafkago.TCP(s.broker.Addrs()...), Balancer: &kafkago.Hash{}, AllowAutoTopicCreation: true, BatchSize: 1000}
	defer w.Close()
	if err := w.WriteMessages(s.ctx, recs...); err != nil {
		t.Fatal(err)
	}
}

// orders answers n orders' records (a welcome and a receipt each, keyed by account) for
// buyers prefix0@... to prefix<n-1>@...
func orders(t testing.TB, prefix string, n int) []kafkago.Message {
	var recs []kafkago.Message
	for i := range n {
		email, acct := fmt.Sprintf("%s%d@example.com", prefix, i), fmt.Sprintf("%s-acct-%d", prefix, i%4)
		recs = append(recs,
			record(t, fmt.Sprintf("%s-welcome-%d", prefix, i), events.TopicAccountCreated, acct, &eventsv1.AccountCreated{AccountUuid: acct, Email: email, AccountKind: "individual"}),
			record(t, fmt.Sprintf("%s-order-%d", prefix, i), events.TopicOrderCompleted, acct, order(email)))
	}
	return recs
}

// everyMailOnce waits until the queue is empty and then checks that the sink received
// exactly one welcome and one receipt per buyer, each with its own Message-ID.
func (s *stack) everyMailOnce(t *testing.T, prefix string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 90*time.Second)
	defer cancel()
	if err := s.sink.WaitReceived(ctx, 2*n); err != nil {
		t.Fatal(err)
	}
	s.waitMetric(t, `hangar_notifications_pending`, "0")
	ids := map[string]int{}
	for _, m := range s.sink.Mails("") {
		ids[m.MessageID]++
	}
	for i := range n {
		email := fmt.Sprintf("%s%d@example.com", prefix, i)
		got := map[string]int{}
		for _, m := range s.sink.Mails(email) {
			got[m.Subject]++
		}
		if len(got) != 2 || got["Welcome to Hangar"] != 1 || got["Your Hangar receipt H-000001"] != 1 {
			t.Errorf("%s received %v; want one welcome and one receipt", email, got)
		}
	}
	for id, k := range ids {
		if k != 1 {
			t.Errorf("Message-ID %s received %d times", id, k)
		}
	}
	if len(ids) != 2*n {
		t.Errorf("%d distinct mails, want %d", len(ids), 2*n)
	}
}

// Events waiting on the broker are consumed in batches (one inbox transaction each): every
// mail goes once, redelivered events are skipped, and a poison event fails only itself: its
// batch is handled again event by event, the poison is dead-lettered and the rest sent.
func TestBatchesSendEachMailOnceAndDeadLetterOnlyThePoison(t *testing.T) {
	t.Parallel()
	s := newStack(t, 1000)
	const n = 150
	recs := orders(t, "buyer", n)
	// The poison shares a partition with a receipt (same topic and key), and the same
	// events come again, in the same write and so in the same or a later batch.
	recs = append(recs, record(t, "poison-1", events.TopicOrderCompleted, "buyer-acct-0", nil))
	recs = append(recs, orders(t, "buyer", 10)...)
	s.write(t, recs...)
	s.run(t, map[string]string{"NOTIFICATIONS_BATCH_LINGER": "200ms"})

	s.everyMailOnce(t, "buyer", n)
	topic := regexp.QuoteMeta(events.TopicOrderCompleted)
	s.waitMetric(t, `hangar_kafka_consumer_events_total\{group="notifications",outcome="dead_lettered",topic="`+topic+`"\}`, "1")
	s.waitMetric(t, `hangar_kafka_consumer_events_total\{group="notifications",outcome="duplicate",topic="`+topic+`"\}`, "10")
	s.waitMetric(t, `hangar_kafka_consumer_events_total\{group="notifications",outcome="handled",topic="`+topic+`"\}`, fmt.Sprint(n))
	dead, err := kafka.ReadDeadLetters(s.ctx, s.broker.Addrs(), events.TopicOrderCompleted, kafka.ReplayFilter{Group: "notifications"})
	if err != nil || len(dead) != 1 || dead[0].ID != "poison-1" || dead[0].Attempts != 1 {
		t.Errorf("dead letters = %+v, %v; want poison-1 alone, not retried", dead, err)
	}
	// The poison failed a batch of more than itself.
	var failed []int64
	for _, sp := range s.spans.GetSpans() {
		if strings.HasPrefix(sp.Name, "process ") && sp.Status.Code == otelcodes.Error {
			for _, a := range sp.Attributes {
				if a.Key == "messaging.batch.message_count" {
					failed = append(failed, a.Value.AsInt64())
				}
			}
		}
	}
	if len(failed) != 1 || failed[0] < 2 {
		t.Errorf("failed batches of %v events; want one batch with the poison and others", failed)
	}
}

// Two replicas share the group and the queue: each mail is sent once, whichever consumed
// its event and whichever sender claimed it.
func TestTwoReplicasSendEachMailOnce(t *testing.T) {
	t.Parallel()
	s := newStack(t, 1000)
	const n = 200
	s.write(t, orders(t, "pair", n)...)
	small := map[string]string{"NOTIFICATIONS_SEND_BATCH": "3", "NOTIFICATIONS_BATCH_MAX": "10"}
	s.run(t, small)
	s.run(t, small)
	s.everyMailOnce(t, "pair", n)
}

// An event consumed in a batch with others keeps its own trace: its mail's send is a child
// of the event's process span, a child of the request's publish (the batch's span, with
// many producers, only links them).
func TestEventInABatchKeepsItsTrace(t *testing.T) {
	t.Parallel()
	s := newStack(t, 10)
	rctx, req := s.tp.Tracer("checkout").Start(s.ctx, "POST /buy/api/invoice/submit", trace.WithSpanKind(trace.SpanKindServer))
	s.publish(t, rctx,
		kafka.Event{Topic: events.TopicAccountCreated, Key: "acct-1", Payload: payload(t, &eventsv1.AccountCreated{AccountUuid: "acct-1", Email: "b@example.com", AccountKind: "individual"})},
		kafka.Event{Topic: events.TopicOrderCompleted, Key: "acct-1", Payload: payload(t, order("b@example.com"))})
	req.End()
	// Both events are on the broker before the service starts: a linger of seconds puts
	// them in one batch.
	s.run(t, map[string]string{"NOTIFICATIONS_BATCH_LINGER": "2s"})
	s.mails(t, "b@example.com", 2)
	s.waitMetric(t, `hangar_notifications_pending`, "0")

	byID := map[trace.SpanID]tracetest.SpanStub{}
	var batched bool
	for _, sp := range s.spans.GetSpans() {
		byID[sp.SpanContext.SpanID()] = sp
		for _, a := range sp.Attributes {
			batched = batched || (a.Key == "messaging.batch.message_count" && a.Value.AsInt64() == 2)
		}
	}
	if !batched {
		t.Fatal("the two events were not consumed in one batch")
	}
	for _, c := range []struct{ smtp, topic string }{{"smtp send receipt", events.TopicOrderCompleted}, {"smtp send welcome", events.TopicAccountCreated}} {
		var chain []string
		for _, sp := range byID {
			if sp.Name != c.smtp {
				continue
			}
			for p, ok := sp, true; ok; p, ok = byID[p.Parent.SpanID()] {
				chain = append(chain, p.Name)
			}
		}
		want := []string{c.smtp, "process " + c.topic, "send " + c.topic, "POST /buy/api/invoice/submit"}
		if !slices.Equal(chain, want) {
			t.Errorf("trace of %s: %q, want %q", c.smtp, chain, want)
		}
	}
}
