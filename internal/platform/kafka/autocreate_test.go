package kafka_test

import (
	"context"
	"errors"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// Issue 29 item 6: auto-creation is off outside development. The broker here creates a
// topic on first use when a client asks (Kafka's own default, auto.create.topics.enable),
// so only the writer's side keeps an undeclared topic from appearing: outside development
// mode a publish to it fails and the topic does not exist afterwards; a declared (created)
// topic is written as before; in development mode the writer still asks for creation.
//
//layercheck:serial it sets the process environment (t.Setenv), which Go allows only in a test that runs alone
func TestWritersDoNotCreateTopicsOutsideDevelopmentMode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	broker, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	exists := func(topic string) bool {
		t.Helper()
		c := &kafkago.Client{Addr: kafkago.TCP(broker.Addrs()...)}
		md, err := c.Metadata(ctx, &kafkago.MetadataRequest{Topics: []string{topic}})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range md.Topics {
			if x.Name == topic {
				return x.Error == nil
			}
		}
		return false
	}
	publish := func(topic string) error {
		p := kafka.NewProducer(broker.Addrs(), telemetry.Propagator())
		defer p.Close()
		return p.Publish(ctx, kafkago.Message{Topic: topic, Key: []byte("k"), Value: []byte("v")})
	}

	t.Setenv(config.DevModeVar, "false")
	if kafka.AutoCreateTopics() {
		t.Fatal("AutoCreateTopics outside development mode")
	}
	err = publish("undeclared.v1")
	if !errors.Is(err, kafkago.UnknownTopicOrPartition) {
		t.Errorf("publish to an undeclared topic outside development mode = %v, want unknown topic", err)
	}
	if exists("undeclared.v1") {
		t.Error("publishing outside development mode created the undeclared topic")
	}
	if err := kafka.EnsureTopic(ctx, broker.Addrs(), "declared.v1", 1); err != nil {
		t.Fatal(err)
	}
	if err := publish("declared.v1"); err != nil {
		t.Errorf("publish to a created topic outside development mode: %v", err)
	}

	t.Setenv(config.DevModeVar, "not-a-bool")
	if kafka.AutoCreateTopics() {
		t.Error("a malformed development mode turned auto-creation on")
	}

	t.Setenv(config.DevModeVar, "true")
	if err := publish("made-up.v1"); err != nil || !exists("made-up.v1") {
		t.Errorf("development mode publish = %v, topic exists %v; want it created on first use", err, exists("made-up.v1"))
	}
}
