package kafka_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// rig is a broker, a database with an outbox and an inbox, and a relay.
type rig struct {
	ctx     context.Context
	broker  *kafka.Broker
	pool    *pgxpool.Pool
	relay   *kafka.Relay
	tp      *sdktrace.TracerProvider
	spans   *tracetest.InMemoryExporter
	effects chan string
}

func newRig(t testing.TB) *rig {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	broker, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(broker.Close)
	pool, err := pgxpool.New(ctx, dbtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, kafka.OutboxSchema+kafka.InboxSchema+`CREATE TABLE effects (event_id text, body text)`); err != nil {
		t.Fatal(err)
	}
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	producer := kafka.NewProducer(broker.Addrs(), telemetry.Propagator())
	t.Cleanup(func() { _ = producer.Close() })
	return &rig{ctx: ctx, broker: broker, pool: pool, tp: tp, spans: spans, effects: make(chan string, 1000),
		relay: &kafka.Relay{Pool: pool, Producer: producer, Log: slog.New(slog.DiscardHandler), Tracer: tp}}
}

func (r *rig) publish(t testing.TB, evs ...kafka.Event) {
	t.Helper()
	if err := pgx.BeginFunc(r.ctx, r.pool, func(tx pgx.Tx) error { return kafka.Enqueue(r.ctx, tx, telemetry.Propagator(), evs...) }); err != nil {
		t.Fatal(err)
	}
	for {
		n, err := r.relay.RelayOnce(r.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// consume runs an inbox consumer of group (inbox name group) until the returned stop.
func (r *rig) consume(t *testing.T, group string, reg prometheus.Registerer, h kafka.InboxHandler, topics ...string) (stop func()) {
	t.Helper()
	return r.consumeWith(t, kafka.ConsumerConfig{Group: group, Registry: reg}, h, topics...)
}

func (r *rig) consumeWith(t *testing.T, cfg kafka.ConsumerConfig, h kafka.InboxHandler, topics ...string) (stop func()) {
	t.Helper()
	c := kafka.NewInboxConsumer(r.config(cfg))
	for _, topic := range topics {
		c.Handle(topic, h)
	}
	return r.runUntilStop(t, "consumer", c.Run)
}

// config completes cfg with the rig's broker, inbox pool and tracing, and quick retries.
func (r *rig) config(cfg kafka.ConsumerConfig) kafka.ConsumerConfig {
	cfg.Brokers, cfg.Pool, cfg.Tracer, cfg.Propagator = r.broker.Addrs(), r.pool, r.tp, telemetry.Propagator()
	cfg.MaxAttempts, cfg.InitialBackoff, cfg.Log = 3, 10*time.Millisecond, slog.New(slog.DiscardHandler)
	return cfg
}

// runUntilStop runs run until the returned stop or the test's end; stop waits for run to
// return and fails the test on its error.
func (r *rig) runUntilStop(t *testing.T, what string, run func(context.Context) error) (stop func()) {
	ctx, cancel := context.WithCancel(r.ctx)
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("%s Run = %v", what, err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// record is a handler whose effect is a row in effects, in the inbox transaction.
func (r *rig) record(ctx context.Context, tx pgx.Tx, env kafka.Envelope) error {
	if _, err := tx.Exec(ctx, `INSERT INTO effects VALUES ($1, $2)`, env.ID, string(env.Data)); err != nil {
		return err
	}
	r.effects <- string(env.Data)
	return nil
}

func (r *rig) await(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	for len(got) < n {
		select {
		case e := <-r.effects:
			got = append(got, e)
		case <-r.ctx.Done():
			t.Fatalf("timed out after %v", got)
		}
	}
	return got
}

// eventually waits until the count query q answers want.
func (r *rig) eventually(t *testing.T, q string, want int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); r.count(t, q) != want; {
		if time.Now().After(deadline) {
			t.Fatalf("%s: never %d", q, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *rig) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	if err := r.pool.QueryRow(r.ctx, q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The envelope: CloudEvents attributes in binary mode, fixed at Enqueue, and what a writer
// sets itself arrives as set, whatever its characters (the outbox keeps them as JSON).
func TestEnvelopeHeaders(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	at := time.Date(2026, 12, 7, 13, 25, 18, 123456789, time.UTC)
	odd := `acct "2" \ <é&注> ` + "\t\x01"
	r.publish(t, kafka.Event{Topic: "hangar.checkout.order-completed.v1", Key: "acct-1", Payload: []byte("x")},
		kafka.Event{Topic: "hangar.checkout.order-completed.v1", Key: odd, Payload: []byte("y"), ID: "id-" + odd,
			Type: "type " + odd, Source: "/src/" + odd, SchemaVersion: "7", DataSchema: "schema " + odd, ContentType: "text/plain", Time: at})
	got := make(chan kafka.Envelope, 2)
	r.consume(t, "envelope", nil, func(_ context.Context, _ pgx.Tx, env kafka.Envelope) error { got <- env; return nil },
		"hangar.checkout.order-completed.v1")
	envs := map[string]kafka.Envelope{}
	for len(envs) < 2 {
		select {
		case env := <-got:
			envs[string(env.Data)] = env
		case <-r.ctx.Done():
			t.Fatalf("%d events", len(envs))
		}
	}
	env := envs["x"]
	if len(env.ID) != 36 || env.Source != "/hangar/checkout" || env.Type != "hangar.checkout.order-completed" ||
		env.Subject != "acct-1" || env.SchemaVersion != "1" || env.ContentType != kafka.ContentTypeProtobuf ||
		env.Header(kafka.HeaderSpecVersion) != "1.0" || time.Since(env.Time) > time.Minute || !strings.HasPrefix(env.Header("traceparent"), "00-") {
		t.Errorf("envelope = %+v", env)
	}
	env = envs["y"]
	if env.ID != "id-"+odd || env.Source != "/src/"+odd || env.Type != "type "+odd || env.Subject != odd || string(env.Key) != odd ||
		env.SchemaVersion != "7" || env.DataSchema != "schema "+odd || env.ContentType != "text/plain" || !env.Time.Equal(at) ||
		env.Header(kafka.HeaderSpecVersion) != "1.0" || len(env.Headers) != 10 {
		t.Errorf("envelope = %+v", env)
	}
}

// A consumer that dies after its effects committed and before its offset did sees the
// event again: the redelivery changes nothing. A second group with the same inbox name
// starting from the first offset is exactly that redelivery.
func TestRedeliveredEventChangesNothing(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	const topic = "hangar.test.thing.v1"
	r.publish(t, kafka.Event{Topic: topic, Key: "k", Payload: []byte("one")}, kafka.Event{Topic: topic, Key: "k", Payload: []byte("two")})

	reg := prometheus.NewRegistry()
	stop := r.consume(t, "mailer", reg, r.record, topic)
	r.await(t, 2)
	r.eventually(t, `SELECT count(*) FROM effects`, 2) // committed, not only handled
	stop()

	// The same events again (a crash before the offset commit): same ids, same inbox.
	redelivered := make(chan string, 10)
	reg2 := prometheus.NewRegistry()
	stop2 := r.consumeAs(t, "mailer-restarted", "mailer", reg2, func(ctx context.Context, tx pgx.Tx, env kafka.Envelope) error {
		redelivered <- string(env.Data)
		return nil
	}, topic)
	for deadline := time.Now().Add(60 * time.Second); testutil.ToFloat64(duplicates(reg2, "mailer-restarted")) < 2; {
		if time.Now().After(deadline) {
			t.Fatal("redelivery not seen")
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop2()
	if len(redelivered) != 0 {
		t.Errorf("handler ran again for %d redelivered events", len(redelivered))
	}
	if n := r.count(t, `SELECT count(*) FROM effects`); n != 2 {
		t.Errorf("%d effects, want 2", n)
	}
}

// consumeAs consumes in a new group (no committed offsets: every message again) with the
// inbox of an existing consumer.
func (r *rig) consumeAs(t *testing.T, group, inbox string, reg prometheus.Registerer, h kafka.InboxHandler, topic string) func() {
	t.Helper()
	return r.consumeWith(t, kafka.ConsumerConfig{Group: group, Inbox: inbox, Registry: reg}, h, topic)
}

func duplicates(reg *prometheus.Registry, group string) prometheus.Collector {
	return collectorFor(reg, "hangar_kafka_consumer_events_total", map[string]string{"group": group, "outcome": "duplicate"})
}

// A poison message is tried MaxAttempts times, then dead-lettered with its headers and
// the error; the next message of the same partition (same key) is still handled. A replay
// after the fix handles it once; messages already handled are not handled again.
func TestPoisonMessageGoesToDeadLetterTopic(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	const topic = "hangar.test.poison.v1"
	var fixed sync.Mutex
	broken := true
	h := func(ctx context.Context, tx pgx.Tx, env kafka.Envelope) error {
		fixed.Lock()
		b := broken
		fixed.Unlock()
		if b && string(env.Data) == "poison" {
			return errors.New("cannot handle poison")
		}
		return r.record(ctx, tx, env)
	}
	reg := prometheus.NewRegistry()
	stop := r.consume(t, "g", reg, h, topic)
	r.publish(t, kafka.Event{Topic: topic, Key: "same", Payload: []byte("before")},
		kafka.Event{Topic: topic, Key: "same", Payload: []byte("poison")},
		kafka.Event{Topic: topic, Key: "same", Payload: []byte("after")})
	if got := r.await(t, 2); fmt.Sprint(got) != "[before after]" {
		t.Errorf("handled %v, want [before after]", got)
	}
	if n := testutil.ToFloat64(collectorFor(reg, "hangar_kafka_consumer_retries_total", map[string]string{"group": "g"})); n != 2 {
		t.Errorf("retries = %v, want 2 (3 attempts)", n)
	}
	if n := testutil.ToFloat64(collectorFor(reg, "hangar_kafka_consumer_dead_letters_total", map[string]string{"group": "g"})); n != 1 {
		t.Errorf("dead letters = %v, want 1", n)
	}
	dead, err := kafka.ReadDeadLetters(r.ctx, r.broker.Addrs(), topic, kafka.ReplayFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(dead) != 1 {
		t.Fatalf("dead letters %+v, want 1", dead)
	}
	d := dead[0]
	if string(d.Data) != "poison" || d.Error != "cannot handle poison" || d.Group != "g" || d.Attempts != 3 ||
		d.OriginalTopic != topic || d.Subject != "same" || d.Header("traceparent") == "" || len(d.ID) != 36 {
		t.Errorf("dead letter = %+v", d)
	}

	fixed.Lock()
	broken = false
	fixed.Unlock()
	n, err := kafka.ReplayDeadLetters(r.ctx, r.broker.Addrs(), topic, kafka.ReplayFilter{Group: "g", IDs: []string{d.ID}})
	if err != nil || n != 1 {
		t.Fatalf("replay = %d, %v", n, err)
	}
	if got := r.await(t, 1); got[0] != "poison" {
		t.Errorf("after replay handled %v", got)
	}
	// Replaying again is harmless: the inbox has the id now.
	if _, err := kafka.ReplayDeadLetters(r.ctx, r.broker.Addrs(), topic, kafka.ReplayFilter{}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); testutil.ToFloat64(duplicates(reg, "g")) < 1; {
		if time.Now().After(deadline) {
			t.Fatal("second replay not seen")
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	if n := r.count(t, `SELECT count(*) FROM effects WHERE body = 'poison'`); n != 1 {
		t.Errorf("poison handled %d times", n)
	}
}

// An undecodable payload (a Permanent error) is dead-lettered at the first attempt.
func TestPermanentErrorIsNotRetried(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	const topic = "hangar.test.permanent.v1"
	reg := prometheus.NewRegistry()
	r.consume(t, "p", reg, func(ctx context.Context, tx pgx.Tx, env kafka.Envelope) error {
		if string(env.Data) == "bad" {
			return kafka.Permanent(errors.New("undecodable"))
		}
		return r.record(ctx, tx, env)
	}, topic)
	r.publish(t, kafka.Event{Topic: topic, Key: "k", Payload: []byte("bad")}, kafka.Event{Topic: topic, Key: "k", Payload: []byte("good")})
	r.await(t, 1)
	if n := testutil.ToFloat64(collectorFor(reg, "hangar_kafka_consumer_retries_total", map[string]string{"group": "p"})); n != 0 {
		t.Errorf("retries = %v, want 0", n)
	}
	if n := testutil.ToFloat64(collectorFor(reg, "hangar_kafka_consumer_dead_letters_total", map[string]string{"group": "p"})); n != 1 {
		t.Errorf("dead letters = %v, want 1", n)
	}
}

// The consumer's span is the child of the relay's producer span, itself the child of the
// span in which the event was written: one trace across Kafka.
func TestTraceCrossesKafka(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	const topic = "hangar.test.traced.v1"
	wctx, span := r.tp.Tracer("test").Start(r.ctx, "write order")
	if err := pgx.BeginFunc(wctx, r.pool, func(tx pgx.Tx) error {
		return kafka.Enqueue(wctx, tx, telemetry.Propagator(), kafka.Event{Topic: topic, Key: "k", Payload: []byte("x")})
	}); err != nil {
		t.Fatal(err)
	}
	span.End()
	if _, err := r.relay.RelayOnce(r.ctx); err != nil {
		t.Fatal(err)
	}
	handled := make(chan trace.SpanContext, 1)
	r.consume(t, "traced", nil, func(ctx context.Context, _ pgx.Tx, _ kafka.Envelope) error {
		_, child := r.tp.Tracer("test").Start(ctx, "effect")
		child.End()
		handled <- trace.SpanContextFromContext(ctx)
		return nil
	}, topic)
	var sc trace.SpanContext
	select {
	case sc = <-handled:
	case <-r.ctx.Done():
		t.Fatal("not handled")
	}
	byName := map[string]tracetest.SpanStub{}
	for _, s := range r.spans.GetSpans() {
		byName[s.Name] = s
	}
	write, send, effect := byName["write order"], byName["send "+topic], byName["effect"]
	if send.Parent.SpanID() != write.SpanContext.SpanID() || send.SpanKind != trace.SpanKindProducer {
		t.Errorf("producer span parent = %v, want the writer's span %v", send.Parent.SpanID(), write.SpanContext.SpanID())
	}
	if sc.TraceID() != write.SpanContext.TraceID() {
		t.Errorf("consumer trace %v, want %v", sc.TraceID(), write.SpanContext.TraceID())
	}
	if effect.Parent.SpanID() != sc.SpanID() {
		t.Error("the handler's work is not under the consumer span")
	}
	// The consumer span ends after the handler returns; wait for it.
	for deadline := time.Now().Add(10 * time.Second); ; {
		var process tracetest.SpanStub
		for _, s := range r.spans.GetSpans() {
			if s.Name == "process "+topic {
				process = s
			}
		}
		if process.Name != "" {
			if process.Parent.SpanID() != send.SpanContext.SpanID() || process.SpanKind != trace.SpanKindConsumer {
				t.Errorf("consumer span parent = %v, want the producer span %v", process.Parent.SpanID(), send.SpanContext.SpanID())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no consumer span")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// collectorFor answers the one series of name matching labels, as a collector.
func collectorFor(reg *prometheus.Registry, name string, labels map[string]string) prometheus.Collector {
	return collectorFunc(func(ch chan<- prometheus.Metric) {
		mfs, _ := reg.Gather()
		var sum float64
		for _, mf := range mfs {
			if mf.GetName() != name {
				continue
			}
		metric:
			for _, m := range mf.GetMetric() {
				have := map[string]string{}
				for _, l := range m.GetLabel() {
					have[l.GetName()] = l.GetValue()
				}
				for k, v := range labels {
					if have[k] != v {
						continue metric
					}
				}
				sum += m.GetCounter().GetValue() + m.GetGauge().GetValue()
			}
		}
		ch <- prometheus.MustNewConstMetric(prometheus.NewDesc(name, "sum", nil, nil), prometheus.UntypedValue, sum)
	})
}

type collectorFunc func(ch chan<- prometheus.Metric)

func (f collectorFunc) Describe(chan<- *prometheus.Desc)    {}
func (f collectorFunc) Collect(ch chan<- prometheus.Metric) { f(ch) }

// An InboxHandler's AfterCommit functions run once its transaction committed too.
func TestInboxConsumerAfterCommit(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	const topic = "hangar.test.after-commit-one.v1"
	r.publish(t, kafka.Event{Topic: topic, Key: "k", Payload: []byte("one")})
	committed := make(chan int, 1)
	r.consume(t, "after-commit-one", prometheus.NewRegistry(), func(ctx context.Context, tx pgx.Tx, env kafka.Envelope) error {
		if err := r.record(ctx, tx, env); err != nil {
			return err
		}
		if !kafka.AfterCommit(ctx, func() { committed <- r.count(t, `SELECT count(*) FROM effects`) }) {
			return errors.New("AfterCommit refused in a handler")
		}
		return nil
	}, topic)
	select {
	case n := <-committed:
		if n != 1 {
			t.Errorf("after commit: %d effects visible, want 1", n)
		}
	case <-r.ctx.Done():
		t.Fatal("AfterCommit's function never ran")
	}
}
