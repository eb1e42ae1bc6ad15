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
	"github.com/twmb/franz-go/pkg/kmsg"
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
	evs := make([]kafka.Event, b.N+1) // one more: the first, handled before the clock starts
	for i := range evs {
		evs[i] = kafka.Event{Topic: topic, Key: fmt.Sprint("k", i%16), Payload: []byte(strconv.Itoa(i))}
	}
	r.publish(b, evs...)
	commits := r.broker.CountRequests(kmsg.OffsetCommit)

	var handled atomic.Int64
	first, all := make(chan struct{}), make(chan struct{})
	c := kafka.NewInboxConsumer(kafka.ConsumerConfig{Brokers: r.broker.Addrs(), Group: "bench", Pool: r.pool,
		Log: slog.New(slog.DiscardHandler), Tracer: noop.NewTracerProvider(), Propagator: telemetry.Propagator()})
	c.Handle(topic, func(ctx context.Context, tx pgx.Tx, env kafka.Envelope) error {
		if _, err := tx.Exec(ctx, `INSERT INTO effects VALUES ($1, $2)`, env.ID, string(env.Data)); err != nil {
			return err
		}
		switch handled.Add(1) {
		case 1:
			close(first)
		case int64(len(evs)):
			close(all)
		}
		return nil
	})
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	select {
	case <-first:
	case err := <-done:
		b.Fatalf("Run = %v before the first event", err)
	}
	b.ResetTimer()
	cpu0, n0, commits0 := cpuTime(b), handled.Load(), commits.Load()
	select {
	case <-all:
	case err := <-done:
		b.Fatalf("Run = %v after %d events", err, handled.Load())
	}
	cancel()
	if err := <-done; err != nil {
		b.Fatalf("Run = %v", err)
	}
	b.StopTimer()
	n := float64(int64(len(evs)) - n0)
	b.ReportMetric(n/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/n, "cpu-µs/event")
	b.ReportMetric(float64(commits.Load()-commits0)/n, "commits/event")
}

// cpuTime is the CPU this process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
