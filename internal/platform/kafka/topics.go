package kafka

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/hangar/hangar/internal/platform/events"
)

// brokerDefault asks the broker for its default (partitions or replication factor).
const brokerDefault = -1

// CreateTopics creates every topic of specs that does not exist yet, with its partitions,
// replication factor and topic configs (events.Declared: the chart's topics Job). An
// existing topic is left as it is: Kafka cannot lower partitions, and a changed setting
// is an operator's kafka-configs change, not a deploy's side effect. It answers the
// topics it created.
func CreateTopics(ctx context.Context, brokers []string, specs ...events.TopicSpec) ([]string, error) {
	if len(brokers) == 0 {
		return nil, errors.New("create topics: no brokers")
	}
	req := &kafkago.CreateTopicsRequest{}
	for _, s := range specs {
		tc := kafkago.TopicConfig{Topic: s.Name, NumPartitions: s.Partitions, ReplicationFactor: s.ReplicationFactor}
		if s.CleanupPolicy != "" {
			cfg := s.Configs()
			for _, k := range slices.Sorted(maps.Keys(cfg)) {
				tc.ConfigEntries = append(tc.ConfigEntries, kafkago.ConfigEntry{ConfigName: k, ConfigValue: cfg[k]})
			}
		}
		req.Topics = append(req.Topics, tc)
	}
	c := &kafkago.Client{Addr: kafkago.TCP(brokers...)}
	resp, err := c.CreateTopics(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("create topics: %w", err)
	}
	var created []string
	var errs []error
	for _, s := range specs {
		err, ok := resp.Errors[s.Name]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("create topic %s: no answer", s.Name))
		case err == nil:
			created = append(created, s.Name)
		case errors.Is(err, kafkago.TopicAlreadyExists):
		default:
			errs = append(errs, fmt.Errorf("create topic %s: %w", s.Name, err))
		}
	}
	return created, errors.Join(errs...)
}

// EnsureTopic creates topic with the given number of partitions and the broker's default
// replication unless it exists: for tests and benchmarks of topics outside the declared
// list. The store's topics are created from events.Declared.
func EnsureTopic(ctx context.Context, brokers []string, topic string, partitions int) error {
	_, err := CreateTopics(ctx, brokers, events.TopicSpec{Name: topic, Partitions: partitions, ReplicationFactor: brokerDefault})
	return err
}

// SingleBroker is specs for a one-node broker (the dev broker): the broker's default
// replication, which is all one node can hold; everything else as declared.
func SingleBroker(specs []events.TopicSpec) []events.TopicSpec {
	out := slices.Clone(specs)
	for i := range out {
		out[i].ReplicationFactor = brokerDefault
	}
	return out
}

// AutoCreatesTopics asks the brokers whether they create topics on first use
// (auto.create.topics.enable). known is false when no broker reports the setting.
func AutoCreatesTopics(ctx context.Context, brokers []string) (auto, known bool, err error) {
	c := &kafkago.Client{Addr: kafkago.TCP(brokers...)}
	md, err := c.Metadata(ctx, &kafkago.MetadataRequest{})
	if err != nil {
		return false, false, fmt.Errorf("brokers: %w", err)
	}
	var res []kafkago.DescribeConfigRequestResource
	for _, b := range md.Brokers {
		res = append(res, kafkago.DescribeConfigRequestResource{ResourceType: kafkago.ResourceTypeBroker,
			ResourceName: strconv.Itoa(b.ID), ConfigNames: []string{"auto.create.topics.enable"}})
	}
	resp, err := c.DescribeConfigs(ctx, &kafkago.DescribeConfigsRequest{Resources: res})
	if err != nil {
		return false, false, nil // an old or minimal broker: unknown, not a failure
	}
	for _, r := range resp.Resources {
		for _, e := range r.ConfigEntries {
			if e.ConfigName == "auto.create.topics.enable" {
				known = true
				auto = auto || e.ConfigValue == "true"
			}
		}
	}
	return auto, known, nil
}
