package kafka_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/hangar/hangar/internal/platform/kafka"
)

// A bounded broker keeps at most its bytes of each partition: after 400 events of ~1 kB
// on one partition with 16 kB kept, the oldest are gone (the partition's first offset has
// moved on) while the newest are still read. An unbounded broker keeps all 400, which is
// how the development process grew by a gigabyte over ~24k orders.
func TestBoundedBrokerKeepsTheNewestBytesOfEachPartition(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	first := func(b *kafka.Broker) (first, last int64) {
		t.Helper()
		conn, err := kafkago.DialLeader(ctx, "tcp", b.Addrs()[0], "history", 0)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		first, last, err = conn.ReadOffsets()
		if err != nil {
			t.Fatal(err)
		}
		return first, last
	}
	fill := func(b *kafka.Broker) {
		t.Helper()
		w := &kafkago.Writer{Addr: kafkago.TCP(b.Addrs()...), RequiredAcks: kafkago.RequireAll, AllowAutoTopicCreation: true, BatchSize: 1, BatchTimeout: time.Millisecond,
			Balancer: kafkago.BalancerFunc(func(kafkago.Message, ...int) int { return 0 })}
		defer w.Close()
		body := []byte(strings.Repeat("x", 1000))
		for i := range 400 {
			// One message a write: each is a batch of its own, the unit retention drops.
			if err := w.WriteMessages(ctx, kafkago.Message{Topic: "history", Key: []byte(strconv.Itoa(i)), Value: body}); err != nil {
				t.Fatal(err)
			}
		}
	}

	// The interval is longer than the test: Trim applies what the ticker would.
	bounded, err := kafka.StartBoundedBroker(0, 16<<10, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer bounded.Close()
	fill(bounded)
	bounded.Trim()
	start, end := first(bounded)
	if end != 400 {
		t.Fatalf("partition ends at %d, want 400", end)
	}
	if kept := end - start; kept <= 0 || kept > 16 {
		t.Errorf("bounded broker keeps %d of 400 events of ~1 kB (offsets %d-%d), want 1 to 16 (16 kB)", kept, start, end)
	}
	r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: bounded.Addrs(), Topic: "history", Partition: 0, MaxWait: 100 * time.Millisecond})
	defer r.Close()
	if err := r.SetOffset(end - 1); err != nil {
		t.Fatal(err)
	}
	m, err := r.ReadMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Key) != "399" {
		t.Errorf("newest event read back has key %q, want 399", m.Key)
	}

	unbounded, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer unbounded.Close()
	fill(unbounded)
	unbounded.Trim()
	if start, end := first(unbounded); start != 0 || end != 400 {
		t.Errorf("unbounded broker keeps offsets %d-%d, want 0-400", start, end)
	}
}
