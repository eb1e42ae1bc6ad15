package kafka_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
)

// Issue 44: an idle consumer costs its broker one fetch per partition per FetchWait and one
// heartbeat per HeartbeatInterval, and a fetch waiting at the broker does not hold up its
// stop: kafka-go's partition readers end at once, quietly, when the consumer stops.
func TestIdleConsumerWaitsAtTheBrokerAndStopsAtOnce(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	const topic, partitions = "hangar.test.idle.v1", 3
	if _, err := kafka.CreateTopics(r.ctx, r.broker.Addrs(), kafka.SingleBroker([]events.TopicSpec{{Name: topic, Partitions: partitions}})...); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer // written under the handler's lock, read once the consumer stopped
	cfg := r.config(kafka.ConsumerConfig{Group: "idle"})
	cfg.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c := kafka.NewInboxConsumer(cfg)
	c.Handle(topic, r.record)
	stop := r.runUntilStop(t, "consumer", c.Run)
	r.publish(t, kafka.Event{Topic: topic, Key: "k", Payload: []byte("first")})
	r.await(t, 1) // every partition's reader has started and fetched

	fetches, heartbeats := r.broker.CountRequests(kmsg.Fetch), r.broker.CountRequests(kmsg.Heartbeat)
	const idle = 4 * time.Second // the window the idle consumer is watched over
	time.Sleep(idle)
	// At most the fetch that followed the event's, on its partition, and one that was
	// being answered as the count began on each; at a FetchWait of 2 s (kafka-go asked the
	// broker to wait 1 s of it) every partition fetched about once a second.
	if n := fetches.Load(); n > partitions+1 {
		t.Errorf("%d fetches over an idle %v from %d partitions; want at most %d", n, idle, partitions, partitions+1)
	}
	if n, most := heartbeats.Load(), int64(idle/kafka.HeartbeatInterval)+1; n > most || kafka.HeartbeatInterval < 2*time.Second {
		t.Errorf("%d heartbeats over an idle %v at an interval of %v; want at most %d at an interval of 2 s or more", n, idle, kafka.HeartbeatInterval, most)
	}

	began := time.Now()
	stop()
	// Every partition's fetch is waiting at the broker, for up to FetchWait.
	if took := time.Since(began); took > kafka.FetchWait/3 {
		t.Errorf("stopping an idle consumer took %v: it waited for its fetches (FetchWait %v)", took, kafka.FetchWait)
	}
	if strings.Contains(logs.String(), "kafka reader") {
		t.Errorf("a stop logged reader failures:\n%s", logs.String())
	}
}
