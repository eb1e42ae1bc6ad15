package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
)

// runTopics is `hangar-events topics`: the chart's pre-install/pre-upgrade topics Job.
// It creates every topic of events.Declared that does not exist (with its dead-letter
// topic, partitions, replication, min.insync.replicas, retention and cleanup policy), so
// a release's pods start with their topics in place and nothing relies on auto-creation.
// It refuses a cluster that auto-creates topics: there a typo in a topic name, or a
// consumer started before the Job, silently makes a topic with the broker's defaults
// (replication 1 on many clusters).
func runTopics(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("topics", flag.ContinueOnError)
	brokers := fs.String("brokers", os.Getenv("KAFKA_BROKERS"), "comma-separated Kafka brokers (default $KAFKA_BROKERS)")
	allowAuto := fs.Bool("allow-auto-create", false, "accept a cluster with auto.create.topics.enable=true (development only)")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up after this long")
	replication := fs.Int("replication-factor", 0, "create the topics with this many replicas (and min.insync.replicas at most that) instead of the declared ones: for a cluster with fewer brokers; 0: as declared")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *brokers == "" {
		return errors.New("topics: -brokers (or KAFKA_BROKERS) is required")
	}
	if *replication < 0 {
		return errors.New("topics: -replication-factor must be 0 (as declared) or more")
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	bs := strings.Split(*brokers, ",")
	auto, known, err := kafka.AutoCreatesTopics(ctx, bs)
	if err != nil {
		return err
	}
	switch {
	case auto && !*allowAuto:
		return errors.New("topics: the brokers have auto.create.topics.enable=true; turn it off outside development (or pass -allow-auto-create)")
	case !known:
		fmt.Fprintln(out, "note: the brokers do not report auto.create.topics.enable; it must be false outside development")
	}
	created, err := kafka.CreateTopics(ctx, bs, withReplication(events.Declared, *replication)...)
	for _, t := range created {
		fmt.Fprintf(out, "created %s\n", t)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%d declared topics, %d created, %d already there\n", len(events.Declared), len(created), len(events.Declared)-len(created))
	return nil
}

// withReplication is specs with n replicas each and min.insync.replicas capped at n (a
// topic whose minimum exceeds its replicas refuses every acks=all produce); n 0 keeps them.
func withReplication(specs []events.TopicSpec, n int) []events.TopicSpec {
	if n == 0 {
		return specs
	}
	out := slices.Clone(specs)
	for i := range out {
		out[i].ReplicationFactor = n
		out[i].MinInSyncReplicas = min(out[i].MinInSyncReplicas, n)
	}
	return out
}
