package kafka

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Broker is an in-process Kafka-protocol cluster (kfake) for dev and tests. Real Kafka is
// used in the cluster; the wire protocol the services speak is the same.
type Broker struct{ c *kfake.Cluster }

// StartBroker starts a one-node cluster on loopback that creates topics on first use.
// port 0 picks a free port.
func StartBroker(port int) (*Broker, error) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(3))
	if err != nil {
		return nil, fmt.Errorf("start in-process kafka: %w", err)
	}
	return &Broker{c: c}, nil
}

// Addrs are the bootstrap addresses.
func (b *Broker) Addrs() []string { return b.c.ListenAddrs() }

// Close stops the cluster.
func (b *Broker) Close() { b.c.Close() }
