package kafka_test

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// trickle is the traffic of these tests: 30 events, one every 40 ms (25 a second, about
// what a store taking 10 orders a second makes of one kind), each through write.
const trickleEvents, trickleEvery = 30, 40 * time.Millisecond

// trickle writes the events and answers how long that took (on a busy machine, longer).
func trickle(t *testing.T, write func(i int)) time.Duration {
	t.Helper()
	began := time.Now()
	tick := time.NewTicker(trickleEvery)
	defer tick.Stop()
	for i := range trickleEvents {
		<-tick.C
		write(i)
	}
	return time.Since(began)
}

// rounds is the most rounds a paced loop may take over took: one a spacing of most, and a
// few at the start, while the rate is being learnt. A fixed 200 ms spacing (or a 5 ms
// linger) takes more than this over the trickle's 1.2 s, however the writes bunch.
func rounds(took, most time.Duration) int64 { return 2 + int64((took+most-1)/most) }

// Issue 44 ("low traffic costs double"): events committed one at a time at a steady few a
// second went out in a round, four statements and a produce, every 200 ms, two or three
// events a round. The spacing now grows as traffic falls, so the rounds fill: the 30
// events of 1.2 s go in a handful of produces (seven or more before), none lost.
func TestRelayRoundsFillAsTrafficFalls(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	const topic = "hangar.test.trickle-relay.v1"
	if err := kafka.EnsureTopic(r.ctx, r.broker.Addrs(), topic, 1); err != nil {
		t.Fatal(err)
	}
	pool, err := db.Open(r.ctx, r.pool.Config().ConnString(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	r.consume(t, "trickle-relay", nil, r.record, topic)
	producer := kafka.NewProducer(r.broker.Addrs(), telemetry.Propagator())
	defer producer.Close()
	produces := r.broker.CountRequests(kmsg.Produce)
	relay := &kafka.Relay{Pool: pool, Producer: producer, Log: slog.New(slog.DiscardHandler), Wake: db.OutboxWrites(pool), Interval: time.Hour}
	defer r.runUntilStop(t, "relay", relay.Run)()

	took := trickle(t, func(i int) {
		if err := pgx.BeginFunc(r.ctx, pool, func(tx pgx.Tx) error {
			return kafka.Enqueue(r.ctx, tx, telemetry.Propagator(), kafka.Event{Topic: topic, Key: "k", Payload: []byte(fmt.Sprint(i))})
		}); err != nil {
			t.Fatal(err)
		}
	})
	got := r.await(t, trickleEvents)
	for i, p := range got {
		if p != fmt.Sprint(i) {
			t.Fatalf("events arrived as %v, want 0..%d in order", got, trickleEvents-1)
		}
	}
	if n, most := produces.Load(), rounds(took, time.Second); n > most {
		t.Errorf("%d produces for %d events over %v, want at most %d: the rounds did not fill", n, trickleEvents, took, most)
	}
}

// Issue 44: a batch consumer fed a steady few events a second made a batch (a transaction
// and an offset commit) of each, its 5 ms linger shorter than the gap between them. Its
// batches now linger as long as the traffic needs to fill them, up to MaxWait: the 30
// events of 1.2 s are handled in a handful of batches (about 30 before), each once.
func TestBatchesFillAsTrafficFalls(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	const topic = "hangar.test.trickle-batch.v1"
	if err := kafka.EnsureTopic(r.ctx, r.broker.Addrs(), topic, 1); err != nil {
		t.Fatal(err)
	}
	sizes := make(chan int, trickleEvents)
	defer r.consumeBatches(t, kafka.ConsumerConfig{Group: "trickle-batch"}, topic, r.recordBatch(sizes), kafka.BatchOptions{})()
	took := trickle(t, func(i int) {
		r.publish(t, kafka.Event{Topic: topic, Key: "k", Payload: []byte(fmt.Sprint(i)), ID: fmt.Sprint("trickle-", i)})
	})
	if got := r.await(t, trickleEvents); len(got) != trickleEvents {
		t.Fatalf("handled %d events, want %d", len(got), trickleEvents)
	}
	if n, most := int64(len(sizes)), rounds(took, 500*time.Millisecond)+1; n > most {
		t.Errorf("%d batches for %d events over %v, want at most %d: the batches did not fill", n, trickleEvents, took, most)
	}
}
