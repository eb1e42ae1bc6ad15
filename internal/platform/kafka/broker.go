package kafka

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
)

// Broker is an in-process Kafka-protocol cluster (kfake) for dev and tests. Real Kafka is
// used in the cluster; the wire protocol the services speak is the same.
type Broker struct {
	c *kfake.Cluster
	// stop ends a bounded broker's trimming (StartBoundedBroker); nil otherwise.
	stop     chan struct{}
	done     sync.WaitGroup
	stopOnce sync.Once
}

// StartBroker starts a one-node cluster on loopback that creates topics on first use.
// port 0 picks a free port.
func StartBroker(port int) (*Broker, error) {
	return startBroker(port)
}

// StartBoundedBroker is StartBroker keeping at most keepBytes of each partition's log:
// every interval the oldest batches beyond it are dropped (Kafka's retention.bytes, as the
// broker default log.retention.bytes). kfake otherwise keeps every event in memory for the
// topics' retention (days), so a development process grew by about a gigabyte over ~24k
// orders (issue 44). A consumer that falls more than keepBytes behind loses the oldest
// events, as it would against a cluster's retention; the development stack's consumers
// are never that far behind.
func StartBoundedBroker(port int, keepBytes int64, interval time.Duration) (*Broker, error) {
	if keepBytes <= 0 || interval <= 0 {
		return nil, fmt.Errorf("bounded broker: keep %d bytes every %v: both must be positive", keepBytes, interval)
	}
	b, err := startBroker(port, kfake.BrokerConfigs(map[string]string{"log.retention.bytes": strconv.FormatInt(keepBytes, 10)}))
	if err != nil {
		return nil, err
	}
	// kfake applies retention on its own only for topics that set it themselves, on the
	// broker's cleaner interval; the broker trims every partition itself instead.
	b.stop = make(chan struct{})
	b.done.Add(1)
	go func() {
		defer b.done.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				b.c.ApplyRetention()
			}
		}
	}()
	return b, nil
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
func (b *Broker) Close() {
	b.stopOnce.Do(func() {
		if b.stop != nil {
			close(b.stop)
			b.done.Wait()
		}
	})
	b.c.Close()
}
