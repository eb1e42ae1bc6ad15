package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	kafkago "github.com/segmentio/kafka-go"
)

// EnsureTopic creates topic with the given number of partitions unless it exists (an
// existing topic keeps its partitions). Auto-created topics get the broker's default
// count; a topic whose consumer group shares work among replicas by partition (checkout's
// renewal jobs) wants more partitions than replicas.
func EnsureTopic(ctx context.Context, brokers []string, topic string, partitions int) error {
	if len(brokers) == 0 {
		return errors.New("ensure topic: no brokers")
	}
	var d kafkago.Dialer
	conn, err := d.DialContext(ctx, "tcp", brokers[0])
	if err != nil {
		return fmt.Errorf("ensure topic %s: %w", topic, err)
	}
	defer conn.Close()
	ctrl, err := conn.Controller()
	if err != nil {
		return fmt.Errorf("ensure topic %s: find controller: %w", topic, err)
	}
	cc, err := d.DialContext(ctx, "tcp", net.JoinHostPort(ctrl.Host, strconv.Itoa(ctrl.Port)))
	if err != nil {
		return fmt.Errorf("ensure topic %s: dial controller: %w", topic, err)
	}
	defer cc.Close()
	err = cc.CreateTopics(kafkago.TopicConfig{Topic: topic, NumPartitions: partitions, ReplicationFactor: 1})
	if err != nil && !errors.Is(err, kafkago.TopicAlreadyExists) {
		return fmt.Errorf("ensure topic %s: %w", topic, err)
	}
	return nil
}
