package kafka_test

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// BenchmarkInboxConsumer consumes b.N events waiting on a topic's partitions with an
// InboxConsumer (real PostgreSQL inbox, in-process broker), from the first event handled
// to the consumer's clean stop. Reported beside ns/op: events/s, the CPU of this process
// (consumer, kafka-go, broker) per event, and the offset commits the broker received per
// event.
func BenchmarkInboxConsumer(b *testing.B) {
	r := newRig(b)
	const topic = "hangar.bench.inbox.v1"
	evs := r.benchEvents(b, topic)
	commits := r.broker.CountRequests(kmsg.OffsetCommit)
	p := newProgress(len(evs))
	c := kafka.NewInboxConsumer(kafka.ConsumerConfig{Brokers: r.broker.Addrs(), Group: "bench", Pool: r.pool,
		Log: slog.New(slog.DiscardHandler), Tracer: noop.NewTracerProvider(), Propagator: telemetry.Propagator()})
	c.Handle(topic, func(ctx context.Context, tx pgx.Tx, env kafka.Envelope) error {
		if _, err := tx.Exec(ctx, `INSERT INTO effects VALUES ($1, $2)`, env.ID, string(env.Data)); err != nil {
			return err
		}
		p.handled(1)
		return nil
	})
	var commits0 int64
	n := p.consume(b, r, c.Run, func() { commits0 = commits.Load() })
	b.ReportMetric(n/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(commits.Load()-commits0)/n, "commits/event")
}

// benchEvents publishes b.N+1 events on topic: the first is handled before the clock starts.
func (r *rig) benchEvents(b *testing.B, topic string) []kafka.Event {
	evs := make([]kafka.Event, b.N+1)
	for i := range evs {
		evs[i] = kafka.Event{Topic: topic, Key: fmt.Sprint("k", i%16), Payload: []byte(strconv.Itoa(i))}
	}
	r.publish(b, evs...)
	return evs
}

// progress tells a benchmark when its consumer handled the first event and all of them.
type progress struct {
	n          atomic.Int64
	total      int64
	first, all chan struct{}
}

func newProgress(total int) *progress {
	return &progress{total: int64(total), first: make(chan struct{}), all: make(chan struct{})}
}

// handled counts k events handled (a handler's call).
func (p *progress) handled(k int) {
	n := p.n.Add(int64(k))
	if n-int64(k) == 0 {
		close(p.first)
	}
	if n == p.total {
		close(p.all)
	}
}

// consume runs the consumer (run) until it has handled every event and stops it cleanly,
// timing from the first event handled (start runs then, with the clock reset), and
// reports the process's CPU per event; it answers how many events were timed.
func (p *progress) consume(b *testing.B, r *rig, run func(context.Context) error, start func()) float64 {
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	select {
	case <-p.first:
	case err := <-done:
		b.Fatalf("Run = %v before the first event", err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start()
	cpu0, n0 := cpuTime(b), p.n.Load()
	select {
	case <-p.all:
	case err := <-done:
		b.Fatalf("Run = %v after %d events", err, p.n.Load())
	}
	cancel()
	if err := <-done; err != nil {
		b.Fatalf("Run = %v", err)
	}
	b.StopTimer()
	n := float64(p.total - n0)
	b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/n, "cpu-µs/event")
	return n
}

// cpuTime is the CPU this process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkRelayOnce relays a round of 20 committed events (16 keys, one traced writer's
// transaction, as an order's commits leave them) per op: claim, read, publish (in-process
// broker), delete, release. allocs/op, B/op and cpu-µs/op count the whole process, the
// broker's share included (the same before and after a change to the relay); ns/op is
// mostly the producer's BatchTimeout (5 ms), which a partition's partial batch waits out.
func BenchmarkRelayOnce(b *testing.B) {
	r := newRig(b)
	r.relay.Tracer = sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample())) // as hangar-dev's
	const topic, round = "hangar.bench.relay.v1", 20
	ctx := trace.ContextWithSpanContext(r.ctx, trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled}))
	evs := make([]kafka.Event, round)
	for i := range evs {
		evs[i] = kafka.Event{Topic: topic, Key: fmt.Sprint("k", i%16), Payload: make([]byte, 200)}
	}
	enqueue := func() {
		if err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error { return kafka.Enqueue(ctx, tx, telemetry.Propagator(), evs...) }); err != nil {
			b.Fatal(err)
		}
	}
	enqueue()
	if _, err := r.relay.RelayOnce(r.ctx); err != nil { // the topic, its metadata, connections
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var cpu time.Duration // the rounds' (the process's while they ran), not the enqueues'
	for range b.N {
		b.StopTimer()
		enqueue()
		b.StartTimer()
		cpu0 := cpuTime(b)
		if n, err := r.relay.RelayOnce(r.ctx); err != nil || n != round {
			b.Fatalf("RelayOnce = %d, %v; want %d", n, err, round)
		}
		cpu += cpuTime(b) - cpu0
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
}

// BenchmarkEnvelopeOf reads the envelope of a message as the relay sends it.
func BenchmarkEnvelopeOf(b *testing.B) {
	msg := kafkago.Message{Topic: "hangar.checkout.order-completed.v1", Partition: 3, Offset: 42, Key: []byte("order-1"), Value: make([]byte, 200)}
	for k, v := range map[string]string{
		kafka.HeaderSpecVersion: kafka.SpecVersion, kafka.HeaderID: "0193a4d2-7c1e-7b3a-9f00-5d6e7f809102",
		kafka.HeaderSource: "/hangar/checkout", kafka.HeaderType: "hangar.checkout.order-completed",
		kafka.HeaderTime: "2026-12-07T13:25:18.123456789Z", kafka.HeaderSubject: "order-1",
		kafka.HeaderSchemaVersion: "1", kafka.HeaderContentType: kafka.ContentTypeProtobuf,
		"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
	} {
		msg.Headers = append(msg.Headers, kafkago.Header{Key: k, Value: []byte(v)})
	}
	b.ReportAllocs()
	for range b.N {
		if env := kafka.EnvelopeOf(msg); env.Time.IsZero() {
			b.Fatal("no time")
		}
	}
}

// BenchmarkInboxBatchConsumer is BenchmarkInboxConsumer with an InboxBatchConsumer whose
// handler records each event in the batch's transaction.
func BenchmarkInboxBatchConsumer(b *testing.B) {
	r := newRig(b)
	const topic = "hangar.bench.batch.v1"
	evs := r.benchEvents(b, topic)
	p := newProgress(len(evs))
	c := kafka.NewInboxBatchConsumer(kafka.ConsumerConfig{Brokers: r.broker.Addrs(), Group: "bench", Pool: r.pool,
		Log: slog.New(slog.DiscardHandler), Tracer: noop.NewTracerProvider(), Propagator: telemetry.Propagator()}, topic,
		func(ctx context.Context, tx pgx.Tx, envs []kafka.Envelope) error {
			for _, env := range envs {
				if _, err := tx.Exec(ctx, `INSERT INTO effects VALUES ($1, $2)`, env.ID, string(env.Data)); err != nil {
					return err
				}
			}
			p.handled(len(envs))
			return nil
		}, kafka.BatchOptions{MaxWait: -1})
	p.consume(b, r, c.Run, func() {})
}

// BenchmarkQueueEnqueue queues an order's three events, with their CloudEvents and trace
// headers, on a batch (no database: the outbox rows' making only).
func BenchmarkQueueEnqueue(b *testing.B) {
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled}))
	prop := telemetry.Propagator()
	evs := []kafka.Event{
		{Topic: "hangar.checkout.order-placed.v1", Key: "order-1", Payload: make([]byte, 200)},
		{Topic: "hangar.checkout.order-completed.v1", Key: "order-1", Payload: make([]byte, 200)},
		{Topic: "hangar.checkout.stock-reserved.v1", Key: "order-1", Payload: make([]byte, 100), DataSchema: "hangar.events.v1.StockReserved"},
	}
	b.ReportAllocs()
	for range b.N {
		var batch pgx.Batch
		if err := kafka.QueueEnqueue(ctx, &batch, prop, evs...); err != nil {
			b.Fatal(err)
		}
	}
}
