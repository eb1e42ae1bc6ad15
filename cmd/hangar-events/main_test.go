package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/hangar/hangar/internal/platform/kafka"
)

// The command lists a topic's dead letters and replays the selected ones to the topic.
func TestListAndReplay(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	broker, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	const topic = "hangar.test.cli.v1"
	// RequireAll: WriteMessages returns once the broker holds them (kafka-go's zero value,
	// RequireNone, returns before, and the listing below could run ahead of the append).
	w := &kafkago.Writer{Addr: kafkago.TCP(broker.Addrs()...), AllowAutoTopicCreation: true, Balancer: &kafkago.Hash{}, RequiredAcks: kafkago.RequireAll}
	defer w.Close()
	dead := func(id, group string) kafkago.Message {
		return kafkago.Message{Topic: topic + kafka.DLQSuffix, Key: []byte("k"), Value: []byte(id), Headers: []kafkago.Header{
			{Key: kafka.HeaderID, Value: []byte(id)}, {Key: kafka.HeaderDLQTopic, Value: []byte(topic)},
			{Key: kafka.HeaderDLQGroup, Value: []byte(group)}, {Key: kafka.HeaderDLQError, Value: []byte("boom")},
			{Key: kafka.HeaderDLQAttempts, Value: []byte("5")}}}
	}
	if err := w.WriteMessages(ctx, dead("e-1", "mailer"), dead("e-2", "other")); err != nil {
		t.Fatal(err)
	}
	brokers := strings.Join(broker.Addrs(), ",")
	var out bytes.Buffer
	if err := run(ctx, []string{"dlq", "-brokers", brokers, "-topic", topic, "-group", "mailer"}, &out); err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(out.Bytes(), &d); err != nil || d["id"] != "e-1" || d["error"] != "boom" || d["attempts"] != float64(5) {
		t.Errorf("list = %s (%v)", out.String(), err)
	}
	out.Reset()
	if err := run(ctx, []string{"dlq", "-brokers", brokers, "-topic", topic, "-id", "e-2", "-replay"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "replayed 1 dead letters") {
		t.Errorf("replay = %q", out.String())
	}
	r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: broker.Addrs(), GroupID: "check", Topic: topic, StartOffset: kafkago.FirstOffset, MaxWait: 100 * time.Millisecond})
	defer r.Close()
	msg, err := r.ReadMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h := kafka.Headers(msg.Headers)
	if string(msg.Value) != "e-2" || h.Get(kafka.HeaderID) != "e-2" || h.Get(kafka.HeaderDLQError) != "" {
		t.Errorf("replayed %s with headers %v", msg.Value, msg.Headers)
	}
	if err := run(ctx, []string{"dlq"}, &out); err == nil {
		t.Error("missing -topic accepted")
	}
}
