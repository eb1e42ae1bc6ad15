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
	kafkago "github.com/segmentio/kafka-go"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// The outbox publishes exactly the committed events, keyed, with the writer's trace
// context, and a consumer group handles each once, retrying failures before committing.
func TestOutboxRelayAndConsumer(t *testing.T) {
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
	if _, err := pool.Exec(ctx, kafka.OutboxSchema); err != nil {
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

	got := make(chan kafkago.Message, 10)
	var failedOnce atomic.Bool
	var traceOK atomic.Bool
	consumer := kafka.NewConsumer(broker.Addrs(), "test-group", "orders", prop, tp, log)
	cctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- consumer.Run(cctx, func(ctx context.Context, m kafkago.Message) error {
			if string(m.Value) == "paid" && !failedOnce.Swap(true) {
				return errors.New("transient failure")
			}
			if trace.SpanContextFromContext(ctx).TraceID() == wantTrace {
				traceOK.Store(true)
			}
			got <- m
			return nil
		})
	}()
	seen := map[string][]string{}
	for range 3 {
		select {
		case m := <-got:
			seen[string(m.Key)] = append(seen[string(m.Key)], string(m.Value))
		case <-ctx.Done():
			t.Fatalf("timed out; received %v", seen)
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("consumer Run = %v", err)
	}
	_ = consumer.Close()
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
	case m := <-got:
		t.Errorf("unexpected extra message %s", m.Value)
	default:
	}

	// A restarted member of the group resumes after the committed offsets: no redelivery.
	again := kafka.NewConsumer(broker.Addrs(), "test-group", "orders", prop, tp, log)
	defer again.Close()
	actx, astop := context.WithTimeout(ctx, 8*time.Second)
	defer astop()
	var redelivered atomic.Int32
	_ = again.Run(actx, func(context.Context, kafkago.Message) error { redelivered.Add(1); return nil })
	if n := redelivered.Load(); n != 0 {
		t.Errorf("%d messages redelivered after commit", n)
	}
}
