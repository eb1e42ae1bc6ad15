package kafka

import (
	"context"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// The broker of the real-node test (hangar-dev broker on a pod's address) is a cluster's
// broker: a produce to a topic nobody created fails instead of creating it, so the topics
// the store runs on are the ones the chart's topics Job created.
func TestBrokerOnHostDoesNotAutoCreateTopics(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := StartBrokerOn("127.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	w := &kafkago.Writer{Addr: kafkago.TCP(b.Addrs()...), Topic: "undeclared", AllowAutoTopicCreation: true, MaxAttempts: 1}
	defer w.Close()
	if err := w.WriteMessages(ctx, kafkago.Message{Value: []byte("x")}); err == nil {
		t.Fatal("a produce to an undeclared topic succeeded: the broker created it")
	}
	if err := EnsureTopic(ctx, b.Addrs(), "declared", 1); err != nil {
		t.Fatal(err)
	}
	w2 := &kafkago.Writer{Addr: kafkago.TCP(b.Addrs()...), Topic: "declared", MaxAttempts: 1}
	defer w2.Close()
	if err := w2.WriteMessages(ctx, kafkago.Message{Value: []byte("x")}); err != nil {
		t.Fatalf("a produce to a created topic: %v", err)
	}
}
