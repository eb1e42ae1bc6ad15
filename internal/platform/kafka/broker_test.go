package kafka_test

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/hangar/hangar/internal/platform/kafka"
)

// A durable broker started again on its directory still has the topics it created up
// front, every acknowledged event and the group's committed offset: a consumer resumes
// after what it handled, and nothing published before the restart is lost.
func TestDurableBrokerRestartKeepsEventsAndOffsets(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()

	b, err := kafka.StartDurableBroker(port, dir, "orders")
	if err != nil {
		t.Fatal(err)
	}
	addrs := b.Addrs()
	w := &kafkago.Writer{Addr: kafkago.TCP(addrs...), RequiredAcks: kafkago.RequireAll, Balancer: &kafkago.Hash{}}
	for i := range 3 {
		if err := w.WriteMessages(ctx, kafkago.Message{Topic: "orders", Key: []byte("k"), Value: []byte(strconv.Itoa(i))}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	read := func(n int) []string {
		r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: addrs, GroupID: "g", Topic: "orders", StartOffset: kafkago.FirstOffset,
			SessionTimeout: 6 * time.Second, MaxWait: 100 * time.Millisecond})
		defer r.Close()
		var got []string
		for range n {
			m, err := r.FetchMessage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(m.Value))
			if err := r.CommitMessages(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		return got
	}
	if got := read(1); got[0] != "0" {
		t.Fatalf("first event %v", got)
	}
	b.Close()

	b, err = kafka.StartDurableBroker(port, dir, "orders")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got := read(2); got[0] != "1" || got[1] != "2" {
		t.Errorf("after the restart the group read %v, want [1 2]", got)
	}
}
