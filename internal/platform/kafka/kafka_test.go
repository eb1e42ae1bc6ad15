package kafka_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// The outbox publishes exactly the committed events, keyed, with the writer's trace
// context, and an inbox consumer group handles each once, in key order, retrying failures
// before committing.
func TestOutboxRelayAndConsumer(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	log := slog.New(slog.DiscardHandler)
	prop := telemetry.Propagator()
	tp := sdktrace.NewTracerProvider()

	broker, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	pool, err := pgxpool.New(ctx, dbtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, kafka.OutboxSchema+kafka.InboxSchema); err != nil {
		t.Fatal(err)
	}

	sctx, span := tp.Tracer("test").Start(ctx, "place order")
	wantTrace := span.SpanContext().TraceID()
	err = pgx.BeginFunc(sctx, pool, func(tx pgx.Tx) error {
		return kafka.Enqueue(sctx, tx, prop,
			kafka.Event{Topic: "orders", Key: "order-1", Payload: []byte("created")},
			kafka.Event{Topic: "orders", Key: "order-1", Payload: []byte("paid")},
			kafka.Event{Topic: "orders", Key: "order-2", Payload: []byte("created")})
	})
	span.End()
	if err != nil {
		t.Fatal(err)
	}
	rolledBack := errors.New("roll back")
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := kafka.Enqueue(ctx, tx, prop, kafka.Event{Topic: "orders", Key: "order-3", Payload: []byte("ghost")}); err != nil {
			return err
		}
		return rolledBack
	})
	if !errors.Is(err, rolledBack) {
		t.Fatal(err)
	}

	producer := kafka.NewProducer(broker.Addrs(), prop)
	defer producer.Close()
	relay := &kafka.Relay{Pool: pool, Producer: producer, Log: log}
	if n, err := relay.RelayOnce(ctx); err != nil || n != 3 {
		t.Fatalf("RelayOnce = %d, %v; want 3 committed events", n, err)
	}
	if n, err := relay.RelayOnce(ctx); err != nil || n != 0 {
		t.Fatalf("second RelayOnce = %d, %v; want nothing left", n, err)
	}
	var left int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM outbox").Scan(&left); err != nil || left != 0 {
		t.Errorf("%d outbox rows left after publishing (%v); published payloads must not linger", left, err)
	}

	got := make(chan kafka.Envelope, 10)
	var failedOnce atomic.Bool
	var traceOK atomic.Bool
	inbox := kafka.NewInboxConsumer(kafka.ConsumerConfig{Brokers: broker.Addrs(), Group: "test-group", Pool: pool,
		Tracer: tp, Propagator: prop, Log: log, InitialBackoff: 10 * time.Millisecond})
	inbox.Handle("orders", func(ctx context.Context, _ pgx.Tx, env kafka.Envelope) error {
		if string(env.Data) == "paid" && !failedOnce.Swap(true) {
			return errors.New("transient failure")
		}
		if trace.SpanContextFromContext(ctx).TraceID() == wantTrace {
			traceOK.Store(true)
		}
		// Told once committed: a stop before the commit would rightly redeliver it.
		kafka.AfterCommit(ctx, func() { got <- env })
		return nil
	})
	cctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- inbox.Run(cctx) }()
	seen := map[string][]string{}
	for range 3 {
		select {
		case e := <-got:
			seen[string(e.Key)] = append(seen[string(e.Key)], string(e.Data))
		case <-ctx.Done():
			t.Fatalf("timed out; received %v", seen)
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("consumer Run = %v", err)
	}
	if len(seen["order-1"]) != 2 || seen["order-1"][0] != "created" || seen["order-1"][1] != "paid" || len(seen["order-2"]) != 1 {
		t.Errorf("received %v; want order-1 created then paid, order-2 created", seen)
	}
	if !failedOnce.Load() {
		t.Error("the failing handler was never exercised")
	}
	if !traceOK.Load() {
		t.Error("handlers did not run in the publisher's trace")
	}
	select {
	case e := <-got:
		t.Errorf("unexpected extra message %s", e.Data)
	default:
	}

	// A restarted member of the group resumes after the committed offsets: no redelivery.
	// Its inbox is a fresh one, so a redelivered event would reach the handler rather than
	// be skipped as already handled.
	again := kafka.NewInboxConsumer(kafka.ConsumerConfig{Brokers: broker.Addrs(), Group: "test-group", Inbox: "fresh-inbox",
		Pool: pool, Tracer: tp, Propagator: prop, Log: log})
	var redelivered atomic.Int32
	again.Handle("orders", func(context.Context, pgx.Tx, kafka.Envelope) error { redelivered.Add(1); return nil })
	actx, astop := context.WithTimeout(ctx, 8*time.Second)
	defer astop()
	_ = again.Run(actx)
	if n := redelivered.Load(); n != 0 {
		t.Errorf("%d messages redelivered after commit", n)
	}
}
