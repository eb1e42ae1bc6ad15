package kafka

import (
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
)

// Broker is an in-process Kafka-protocol cluster (kfake) for dev and tests. Real Kafka is
// used in the cluster; the wire protocol the services speak is the same.
type Broker struct{ c *kfake.Cluster }

// StartBroker starts a one-node cluster on loopback that creates topics on first use.
// port 0 picks a free port.
func StartBroker(port int) (*Broker, error) {
	return startBroker(port)
}

// StartBrokerOn is a one-node cluster listening on host instead of loopback, configured as
// a cluster's broker: topics are never created on first use, only when asked (by the
// chart's topics Job). The broker advertises the address it listens on, so host must be one
// its clients reach: a pod's own IP when the broker runs as a pod (scripts/test-k8s.sh).
func StartBrokerOn(host string, port int) (*Broker, error) {
	return newBroker(port, kfake.ListenFn(func(network, _ string) (net.Listener, error) {
		return net.Listen(network, net.JoinHostPort(host, strconv.Itoa(port)))
	}))
}

// StartDurableBroker is StartBroker keeping its log, topics and committed group offsets in
// dir, every produce synced to disk before it is acknowledged (acks=all then means on
// disk, as with a replicated cluster). Started again on the same dir it reloads them, so a
// broker process can be killed and restarted without losing acknowledged events — what
// the chaos run (scripts/chaos.sh) restarts. Without it kfake keeps everything in memory
// and a restart loses every event not yet consumed.
//
// kfake persists the topics it is asked to create, not the ones it creates on first use
// (a produce or metadata request): after a restart those would be gone with their events.
// So topics (each with its dead-letter topic, <topic>.dlq) are created up front.
func StartDurableBroker(port int, dir string, topics ...string) (*Broker, error) {
	b, err := startBroker(port, kfake.DataDir(dir), kfake.SyncWrites())
	if err != nil {
		return nil, err
	}
	for _, t := range topics {
		for _, name := range []string{t, t + ".dlq"} {
			if err := b.c.CreateTopic(name, partitions, nil); err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
				b.Close()
				return nil, fmt.Errorf("create topic %s: %w", name, err)
			}
		}
	}
	return b, nil
}

// partitions is every topic's partition count in dev and tests.
const partitions = 3

func startBroker(port int, extra ...kfake.Opt) (*Broker, error) {
	return newBroker(port, append([]kfake.Opt{kfake.AllowAutoTopicCreation()}, extra...)...)
}

func newBroker(port int, extra ...kfake.Opt) (*Broker, error) {
	opts := append([]kfake.Opt{kfake.NumBrokers(1), kfake.Ports(port), kfake.DefaultNumPartitions(partitions)}, extra...)
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("start in-process kafka: %w", err)
	}
	return &Broker{c: c}, nil
}

// Addrs are the bootstrap addresses.
func (b *Broker) Addrs() []string { return b.c.ListenAddrs() }

// Close stops the cluster (a durable one saves its state first).
func (b *Broker) Close() { b.c.Close() }
