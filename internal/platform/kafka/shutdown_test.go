package kafka_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	kafkago "github.com/segmentio/kafka-go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/metrics"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// relayLockClass is the outbox's advisory-lock namespace ("outb").
const relayLockClass = int32(0x6f757462)

// runServer builds a bare service server, lets wire add its workers (Go), and runs it.
// stop cancels it (what SIGTERM does) and waits for Run, which returns only after every
// worker has.
func runServer(t *testing.T, wire func(*server.Server)) (stop func()) {
	t.Helper()
	cfg := config.Platform{GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", ShutdownTimeout: 5 * time.Second}
	reg := metrics.NewRegistry()
	red, err := metrics.NewRED(reg, "shutdown-test")
	if err != nil {
		t.Fatal(err)
	}
	s := server.New("shutdown-test", cfg, server.Deps{Logger: slog.New(slog.DiscardHandler), Registry: reg,
		Tracer: sdktrace.NewTracerProvider(), Propagator: telemetry.Propagator(), RED: red})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	wire(s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("server Run = %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// A service stopped while its outbox relay is publishing (the broker has taken a batch and
// not acknowledged it) loses nothing and leaves nothing half-done: every event is either
// gone from the outbox because it was published or still waiting in it, no slot lock is
// left behind, and a restarted relay brings every event to the consumer, whose inbox makes
// the effect happen exactly once. Both ends of the interrupted write: the broker appends it
// after the relay gave up (the restarted relay sends it again; the inbox skips the copies),
// or loses it (then only the rows left in the outbox can bring those events).
func TestShutdownMidRelayLosesNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		lose bool
	}{{"held write lands late", false}, {"held write lost", true}} {
		t.Run(tc.name, func(t *testing.T) { testShutdownMidRelay(t, tc.lose) })
	}
}

func testShutdownMidRelay(t *testing.T, lose bool) {
	r := newRig(t)
	const topic = "hangar.test.shutdown.v1"
	const n = 200
	ids := map[string]bool{}
	var evs []kafka.Event
	for i := range n {
		id := uuid.NewString()
		ids[id] = true
		evs = append(evs, kafka.Event{Topic: topic, Key: fmt.Sprint("order-", i), Payload: fmt.Appendf(nil, "event-%d", i), ID: id})
	}
	if err := pgx.BeginFunc(r.ctx, r.pool, func(tx pgx.Tx) error { return kafka.Enqueue(r.ctx, tx, telemetry.Propagator(), evs...) }); err != nil {
		t.Fatal(err)
	}

	// The first round (up to 16 slots × 5 rows, one produce request per partition) goes
	// through; a later produce request is held by the broker.
	held, release := r.broker.HoldProduce(3)
	defer release(false)
	producer := kafka.NewProducer(r.broker.Addrs(), telemetry.Propagator())
	relay := &kafka.Relay{Pool: r.pool, Producer: producer, Log: slog.New(slog.DiscardHandler), BatchSize: 5, Interval: time.Millisecond}
	stop := runServer(t, func(s *server.Server) {
		s.Go(func(ctx context.Context) { _ = relay.Run(ctx) })
	})
	select {
	case <-held:
	case <-r.ctx.Done():
		t.Fatal("the relay never reached the held publish")
	}
	stop() // returns once the relay has stopped, its batch still unacknowledged

	// What the stopped relay left: every row still in the outbox is whole and unmarked; the
	// rows it removed are the ones the broker acknowledged (they arrive below, and nothing
	// else could publish them now); no slot stays locked.
	var pending, marked int
	if err := r.pool.QueryRow(r.ctx, `SELECT count(*), count(*) FILTER (WHERE published_at IS NOT NULL) FROM outbox`).Scan(&pending, &marked); err != nil {
		t.Fatal(err)
	}
	if pending == 0 || pending > n || marked != 0 {
		t.Fatalf("after the stop %d rows pending (%d marked published); want the interrupted batch's rows and any later ones, unmarked", pending, marked)
	}
	t.Logf("stopped mid-relay: %d of %d events published, %d pending", n-pending, n, pending)
	rows, err := r.pool.Query(r.ctx, `SELECT headers->>'ce_id', convert_from(payload, 'UTF8'), convert_from(key, 'UTF8') FROM outbox`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, payload, key string
		if err := rows.Scan(&id, &payload, &key); err != nil {
			t.Fatal(err)
		}
		if !ids[id] || "order-"+payload[len("event-"):] != key {
			t.Errorf("pending row %s %q %q is not one of the written events", id, key, payload)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// pg_locks lists every database's locks: only this test's database counts (a running
	// make dev, or another test's relay, holds slots of its own).
	if locks := r.count(t, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = $1::int4::oid
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`, relayLockClass); locks != 0 {
		t.Errorf("%d outbox slot locks left held after the stop", locks)
	}

	// The broker answers the held write now (it lands, or fails and is lost), and the old
	// producer lets go.
	release(lose)
	_ = producer.Close()

	// Restarted as services wire it: the relay and the consumer in the server's run group.
	reg := prometheus.NewRegistry()
	stop = runServer(t, func(s *server.Server) {
		s.Go(func(ctx context.Context) {
			kafka.RunRelay(ctx, r.broker.Addrs(), r.pool, telemetry.Propagator(), slog.New(slog.DiscardHandler))
		})
		c := kafka.NewInboxConsumer(r.config(kafka.ConsumerConfig{Group: "shutdown", Registry: reg}))
		c.Handle(topic, r.record)
		s.Go(func(ctx context.Context) { kafka.KeepRunning(ctx, slog.New(slog.DiscardHandler), "shutdown", c) })
	})
	// Once the outbox is empty every event it held is in the topic (a row goes only once
	// published); the interrupted batch is there twice if it landed late. Then wait until
	// the consumer has read every message, each second copy skipped by the inbox.
	r.eventually(t, `SELECT count(*) FROM outbox`, 0)
	total := topicSize(t, r, topic)
	outcome := func(o string) float64 {
		return testutil.ToFloat64(collectorFor(reg, "hangar_kafka_consumer_events_total", map[string]string{"outcome": o}))
	}
	for deadline := time.Now().Add(30 * time.Second); outcome("handled")+outcome("duplicate") < float64(total); {
		if time.Now().After(deadline) {
			t.Fatalf("consumed %v handled + %v duplicates of %d messages", outcome("handled"), outcome("duplicate"), total)
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	// A lost write may still have had a sibling (another partition's request sent after
	// the release) land, so only a late-landing write is sure to leave copies.
	if outcome("handled") != n || outcome("duplicate") != float64(total-n) || (!lose && total <= n) {
		t.Errorf("consumed %v handled + %v duplicates of %d messages; want the %d events handled once and the re-sent batch skipped",
			outcome("handled"), outcome("duplicate"), total, n)
	}
	var effects, distinct int
	if err := r.pool.QueryRow(r.ctx, `SELECT count(*), count(DISTINCT event_id) FROM effects`).Scan(&effects, &distinct); err != nil {
		t.Fatal(err)
	}
	if effects != n || distinct != n {
		t.Errorf("effects %d (%d distinct events), want each of the %d events once", effects, distinct, n)
	}
	got, err := r.pool.Query(r.ctx, `SELECT event_id FROM effects`)
	if err != nil {
		t.Fatal(err)
	}
	seen, err := pgx.CollectRows(got, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range seen {
		if !ids[id] {
			t.Errorf("effect of unknown event %s", id)
		}
	}
}

// topicSize is how many messages topic's partitions hold.
func topicSize(t *testing.T, r *rig, topic string) int {
	t.Helper()
	client := &kafkago.Client{Addr: kafkago.TCP(r.broker.Addrs()...)}
	res, err := client.ListOffsets(r.ctx, &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{
		topic: {kafkago.LastOffsetOf(0), kafkago.LastOffsetOf(1), kafkago.LastOffsetOf(2)}}})
	if err != nil {
		t.Fatal(err)
	}
	var total int
	for _, p := range res.Topics[topic] {
		if p.Error != nil {
			t.Fatalf("offsets of %s/%d: %v", topic, p.Partition, p.Error)
		}
		total += int(p.LastOffset)
	}
	return total
}

// consumerKind builds a consumer of topic in group whose events go to h, as one event or
// as a batch.
type consumerKind struct {
	name  string
	build func(r *rig, group, topic string, h kafka.InboxBatchHandler) interface{ Run(context.Context) error }
}

var consumerKinds = []consumerKind{
	{"one event at a time", func(r *rig, group, topic string, h kafka.InboxBatchHandler) interface{ Run(context.Context) error } {
		c := kafka.NewInboxConsumer(r.config(kafka.ConsumerConfig{Group: group}))
		c.Handle(topic, func(ctx context.Context, tx pgx.Tx, env kafka.Envelope) error {
			return h(ctx, tx, []kafka.Envelope{env})
		})
		return c
	}},
	{"in batches", func(r *rig, group, topic string, h kafka.InboxBatchHandler) interface{ Run(context.Context) error } {
		return kafka.NewInboxBatchConsumer(r.config(kafka.ConsumerConfig{Group: group}), topic, h, kafka.BatchOptions{Max: 4})
	}},
}

// writeEffects is a handler's work: a row per event in the inbox transaction.
func writeEffects(ctx context.Context, tx pgx.Tx, envs []kafka.Envelope) error {
	for _, env := range envs {
		if _, err := tx.Exec(ctx, `INSERT INTO effects VALUES ($1, $2)`, env.ID, string(env.Data)); err != nil {
			return err
		}
	}
	return nil
}

// A consumer stopped while it is handling events (one, or a batch half written) commits the
// offsets of the events it handled (a clean stop redelivers none of them) and nothing past
// them: the interrupted work is rolled back and not committed, so the restarted consumer
// handles it, and every event's effect happens exactly once.
func TestShutdownMidConsumeCommitsOnlyWhatWasHandled(t *testing.T) {
	t.Parallel()
	for _, kind := range consumerKinds {
		t.Run(kind.name, func(t *testing.T) { testShutdownMidConsume(t, kind) })
	}
}

func testShutdownMidConsume(t *testing.T, kind consumerKind) {
	r := newRig(t)
	const topic, group = "hangar.test.shutdown-consume.v1", "shutdown-consume"
	const n, holdAt = 60, 7 // the handler's 7th call is interrupted
	var evs []kafka.Event
	for i := range n {
		evs = append(evs, kafka.Event{Topic: topic, Key: fmt.Sprint("order-", i), Payload: fmt.Appendf(nil, "event-%d", i)})
	}
	r.publish(t, evs...)

	var mu sync.Mutex
	handled := map[int]int{} // partition → events handled (offsets from 0, in order)
	total, calls := 0, 0
	entered := make(chan struct{})
	var interrupted []kafka.Envelope
	h := func(ctx context.Context, tx pgx.Tx, envs []kafka.Envelope) error {
		mu.Lock()
		calls++
		hold := calls == holdAt
		mu.Unlock()
		if err := writeEffects(ctx, tx, envs); err != nil {
			return err
		}
		if hold {
			// Half done: the effects are written, the transaction not committed, and the
			// service is stopping.
			interrupted = envs
			close(entered)
			<-ctx.Done()
			return ctx.Err()
		}
		mu.Lock()
		for _, env := range envs {
			handled[env.Partition]++
			total++
		}
		mu.Unlock()
		return nil
	}
	stop := runServer(t, func(s *server.Server) {
		c := kind.build(r, group, topic, h)
		s.Go(func(ctx context.Context) { kafka.KeepRunning(ctx, slog.New(slog.DiscardHandler), "shutdown", c) })
	})
	select {
	case <-entered:
	case <-r.ctx.Done():
		t.Fatal("the consumer never reached the held event")
	}
	stop()

	if got := r.count(t, `SELECT count(*) FROM effects`); got != total {
		t.Errorf("%d effects after the stop, want the %d events handled before it", got, total)
	}
	for _, env := range interrupted {
		if got := r.count(t, `SELECT count(*) FROM inbox WHERE event_id = $1`, env.ID); got != 0 {
			t.Errorf("the interrupted event %s is in the inbox", env.ID)
		}
	}
	client := &kafkago.Client{Addr: kafkago.TCP(r.broker.Addrs()...)}
	res, err := client.OffsetFetch(r.ctx, &kafkago.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: {0, 1, 2}}})
	if err != nil || res.Error != nil {
		t.Fatalf("offset fetch: %v %v", err, res)
	}
	for _, p := range res.Topics[topic] {
		want := int64(handled[p.Partition])
		if want == 0 {
			want = -1 // nothing handled there: nothing committed
		}
		if p.CommittedOffset != want {
			t.Errorf("partition %d committed offset %d, want %d (the %d events handled there)", p.Partition, p.CommittedOffset, want, handled[p.Partition])
		}
	}
	if t.Failed() {
		t.FailNow() // an event committed unhandled never comes back: waiting for it is pointless
	}

	stop = runServer(t, func(s *server.Server) {
		c := kind.build(r, group, topic, writeEffects)
		s.Go(func(ctx context.Context) { kafka.KeepRunning(ctx, slog.New(slog.DiscardHandler), "shutdown", c) })
	})
	r.eventually(t, `SELECT count(*) FROM effects`, n)
	stop()
	var effects, distinct int
	if err := r.pool.QueryRow(r.ctx, `SELECT count(*), count(DISTINCT event_id) FROM effects`).Scan(&effects, &distinct); err != nil {
		t.Fatal(err)
	}
	if effects != n || distinct != n {
		t.Errorf("effects %d (%d distinct events), want each of the %d events once", effects, distinct, n)
	}
}
