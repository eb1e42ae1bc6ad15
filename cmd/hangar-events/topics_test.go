package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/hangar/hangar/internal/platform/events"
)

// The topics Job creates every declared topic with its partitions, replication and
// settings, and running it again (the next release) changes nothing.
func TestTopicsCreatesTheDeclaredList(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := kfake.NewCluster(kfake.NumBrokers(3))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := strings.Join(c.ListenAddrs(), ",")
	var out bytes.Buffer
	if err := run(ctx, []string{"topics", "-brokers", brokers}, &out); err != nil {
		t.Fatalf("topics: %v\n%s", err, out.String())
	}
	n := len(events.Declared)
	if !strings.Contains(out.String(), "created "+events.TopicOrderCompleted+"\n") || !strings.Contains(out.String(), "0 already there") {
		t.Errorf("first run = %s", out.String())
	}

	client := &kafkago.Client{Addr: kafkago.TCP(c.ListenAddrs()...)}
	var names []string
	for _, s := range events.Declared {
		names = append(names, s.Name)
	}
	md, err := client.Metadata(ctx, &kafkago.MetadataRequest{Topics: names})
	if err != nil {
		t.Fatal(err)
	}
	if len(md.Topics) != n {
		t.Fatalf("%d topics in the cluster, %d declared", len(md.Topics), n)
	}
	for _, tp := range md.Topics {
		s, _ := events.Spec(tp.Name)
		if tp.Error != nil || len(tp.Partitions) != s.Partitions {
			t.Errorf("%s: err=%v partitions=%d; want %d", tp.Name, tp.Error, len(tp.Partitions), s.Partitions)
			continue
		}
		if len(tp.Partitions[0].Replicas) != s.ReplicationFactor {
			t.Errorf("%s: err=%v partitions=%d replicas=%d; want %d × %d", tp.Name, tp.Error, len(tp.Partitions), len(tp.Partitions[0].Replicas), s.Partitions, s.ReplicationFactor)
		}
	}
	resp, err := client.DescribeConfigs(ctx, &kafkago.DescribeConfigsRequest{Resources: []kafkago.DescribeConfigRequestResource{{
		ResourceType: kafkago.ResourceTypeTopic, ResourceName: events.TopicOrderCompleted + events.DLQSuffix,
		ConfigNames: []string{"min.insync.replicas", "retention.ms", "cleanup.policy"}}}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range resp.Resources[0].ConfigEntries {
		got[e.ConfigName] = e.ConfigValue
	}
	want := map[string]string{"min.insync.replicas": "2", "retention.ms": "2419200000", "cleanup.policy": "delete"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %q; want %q", events.TopicOrderCompleted+events.DLQSuffix, k, got[k], v)
		}
	}

	out.Reset()
	if err := run(ctx, []string{"topics", "-brokers", brokers}, &out); err != nil {
		t.Fatalf("topics again: %v", err)
	}
	if !strings.Contains(out.String(), "0 created") {
		t.Errorf("second run = %s", out.String())
	}
}

// On a cluster with fewer brokers than the declared replication (the real-node test's one
// broker), -replication-factor creates the topics with that many replicas and caps
// min.insync.replicas there, so acks=all produces are accepted.
func TestTopicsReplicationFactorOverride(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out bytes.Buffer
	if err := run(ctx, []string{"topics", "-brokers", strings.Join(c.ListenAddrs(), ","), "-replication-factor", "1"}, &out); err != nil {
		t.Fatalf("topics: %v\n%s", err, out.String())
	}
	client := &kafkago.Client{Addr: kafkago.TCP(c.ListenAddrs()...)}
	md, err := client.Metadata(ctx, &kafkago.MetadataRequest{Topics: []string{events.TopicOrderCompleted}})
	if err != nil {
		t.Fatal(err)
	}
	if len(md.Topics) != 1 || md.Topics[0].Error != nil || len(md.Topics[0].Partitions) == 0 || len(md.Topics[0].Partitions[0].Replicas) != 1 {
		t.Fatalf("metadata of %s = %+v; want 1 replica", events.TopicOrderCompleted, md.Topics)
	}
	resp, err := client.DescribeConfigs(ctx, &kafkago.DescribeConfigsRequest{Resources: []kafkago.DescribeConfigRequestResource{{
		ResourceType: kafkago.ResourceTypeTopic, ResourceName: events.TopicOrderCompleted, ConfigNames: []string{"min.insync.replicas"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Resources[0].ConfigEntries; len(got) != 1 || got[0].ConfigValue != "1" {
		t.Errorf("min.insync.replicas of %s = %+v; want 1", events.TopicOrderCompleted, got)
	}
	if err := run(ctx, []string{"topics", "-brokers", strings.Join(c.ListenAddrs(), ","), "-replication-factor", "-1"}, &out); err == nil {
		t.Error("-replication-factor -1 accepted")
	}
}
