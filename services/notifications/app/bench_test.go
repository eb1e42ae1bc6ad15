package app_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel/trace/noop"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/notifications/app"
)

// BenchmarkConsumeAndSend is notifications at checkout's load: b.N orders' events
// (account-created and order-completed, each a mail) waiting on the broker when the
// service starts, consumed, rendered, stored and sent to the in-process SMTP sink (real
// PostgreSQL, kfake, loopback SMTP). Timed from the first mail received to the last; the
// service's spans are not recorded (production without an OTLP endpoint). Reported per
// event: events/s, this process's CPU (consumer, sender, broker, sink), the statements the
// service's pool sent in that window, and the database's transactions over the service's
// whole run (start-up and idle polling included).
func BenchmarkConsumeAndSend(b *testing.B) {
	s := newStack(b, 8)
	evs := make([]kafka.Event, 0, 2*b.N)
	for i := range b.N {
		email := fmt.Sprintf("buyer%d@example.com", i)
		acct := fmt.Sprint("acct-", i)
		evs = append(evs,
			kafka.Event{Topic: events.TopicAccountCreated, Key: acct, Payload: payload(b, &eventsv1.AccountCreated{AccountUuid: acct, Email: email, AccountKind: "individual"})},
			kafka.Event{Topic: events.TopicOrderCompleted, Key: acct, Payload: payload(b, order(email))})
	}
	for chunk := range slices.Chunk(evs, 500) {
		s.publish(b, s.ctx, chunk...)
	}
	u, err := url.Parse(s.dbURL)
	if err != nil {
		b.Fatal(err)
	}
	dbName := strings.TrimPrefix(u.Path, "/")
	xacts := func() int64 {
		var n int64
		if err := s.pub.QueryRow(s.ctx, `SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = $1`, dbName).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return n
	}
	x0 := xacts()

	stop := s.run(b, nil, app.WithTracerProvider(noop.NewTracerProvider()))
	ctx, cancel := context.WithTimeout(s.ctx, 2*time.Minute)
	defer cancel()
	if err := s.sink.WaitReceived(ctx, 1); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0, st0 := cpuTime(b), s.statements(b)
	if err := s.sink.WaitReceived(ctx, len(evs)); err != nil {
		b.Fatal(err)
	}
	cpu1, st1 := cpuTime(b), s.statements(b)
	b.StopTimer()
	if err := stop(); err != nil {
		b.Fatal(err)
	}
	// A closed backend's counts reach pg_stat_database shortly after it exits.
	x1 := xacts()
	for range 50 {
		time.Sleep(100 * time.Millisecond)
		if x := xacts(); x != x1 {
			x1 = x
			continue
		}
		break
	}
	n := float64(len(evs) - 1)
	b.ReportMetric(n/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64((cpu1-cpu0).Microseconds())/n, "cpu-µs/event")
	b.ReportMetric(float64(st1-st0-1)/n, "stmts/event") // less the scrape's pending count
	b.ReportMetric(float64(x1-x0)/float64(len(evs)), "tx/event")
}

// BenchmarkConsumeAndSendPaced is BenchmarkConsumeAndSend at a quiet hour: one order's
// two events at a time, the next published once both its mails arrived (ns/op: an order's
// delay from its publish to its last mail received).
func BenchmarkConsumeAndSendPaced(b *testing.B) {
	s := newStack(b, 8)
	stop := s.run(b, nil, app.WithTracerProvider(noop.NewTracerProvider()))
	w := &kafkago.Writer{Addr: kafkago.TCP(s.broker.Addrs()...), Balancer: &kafkago.Hash{}, AllowAutoTopicCreation: true,
		BatchTimeout: time.Millisecond}
	defer w.Close()
	ctx, cancel := context.WithTimeout(s.ctx, 2*time.Minute)
	defer cancel()
	send := func(i int) {
		if err := w.WriteMessages(ctx, orders(b, fmt.Sprint("o", i, "-"), 1)...); err != nil {
			b.Fatal(err)
		}
		if err := s.sink.WaitReceived(ctx, 2*(i+1)); err != nil {
			b.Fatal(err)
		}
	}
	send(0)
	b.ResetTimer()
	cpu0, st0 := cpuTime(b), s.statements(b)
	for i := range b.N {
		send(i + 1)
	}
	cpu1, st1 := cpuTime(b), s.statements(b)
	b.StopTimer()
	_ = stop()
	n := float64(2 * b.N)
	b.ReportMetric(float64((cpu1-cpu0).Microseconds())/n, "cpu-µs/event")
	b.ReportMetric(float64(st1-st0-1)/n, "stmts/event")
}

// statements answers the service pool's statement counter (every kind).
func (s *stack) statements(t testing.TB) int64 {
	t.Helper()
	var sum int64
	for _, kind := range []string{"query", "batched", "copy"} {
		v, err := strconv.ParseFloat(s.metric(t, `hangar_db_statements_total\{kind="`+kind+`",pool="main"\}`), 64)
		if err != nil {
			t.Fatal(err)
		}
		sum += int64(v)
	}
	return sum
}

// cpuTime is the CPU this process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
