package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/standin"
)

// startBroker starts the in-process broker, bounded to HANGAR_DEV_BROKER_KEEP_MIB per
// partition (an unbounded log grew the process by a gigabyte over ~24k orders). Its
// goroutines (the cluster's loop, the listener, every connection's, the trimming) carry
// the broker's stand-in label: in production the broker is Kafka's process, not the store,
// and the measurements count it apart (internal/standin). The caller closes it.
func startBroker(ctx context.Context, cfg Config) (b *kafka.Broker, err error) {
	standin.Do(ctx, standin.Broker, func(context.Context) {
		b, err = kafka.StartBoundedBroker(0, int64(cfg.BrokerKeep)<<20, brokerTrimInterval)
	})
	return b, err
}

// BrokerConfig configures `hangar-dev broker`.
type BrokerConfig struct {
	Port    int    `env:"BROKER_PORT" default:"9092" doc:"port of the broker"`
	Host    string `env:"BROKER_HOST" default:"" doc:"address the broker listens on and advertises (a pod's IP in the real-node test); empty: loopback"`
	DataDir string `env:"BROKER_DATA_DIR" default:"" doc:"where the broker keeps its log and group offsets (each produce synced before it is acknowledged); empty: in memory only"`
}

// runBroker is `hangar-dev broker`: the Kafka-protocol broker (kfake) as a process of its
// own, so it can be killed and restarted while the stack runs against it
// (KAFKA_BROKERS=127.0.0.1:<port> hangar-dev). With BROKER_DATA_DIR a restart reloads every
// acknowledged event and committed offset; without it a restart is the loss of the whole
// log (every event published and not yet consumed is gone), which the outbox cannot
// repair because it marked those events published.
func runBroker(ctx context.Context) error {
	cfg, log, err := loadCommand[BrokerConfig]("hangar-dev-broker")
	if err != nil {
		return err
	}
	var b *kafka.Broker
	switch {
	case cfg.DataDir != "":
		b, err = kafka.StartDurableBroker(cfg.Port, cfg.DataDir)
	case cfg.Host != "":
		b, err = kafka.StartBrokerOn(cfg.Host, cfg.Port)
	default:
		b, err = kafka.StartBroker(cfg.Port)
	}
	if err != nil {
		return fmt.Errorf("broker: %w", err)
	}
	// A broker on a pod's address is a cluster's: the chart's topics Job creates the topics.
	if cfg.Host == "" {
		if err := createDevTopics(ctx, b.Addrs(), log); err != nil {
			b.Close()
			return err
		}
	}
	log.Info("Kafka-protocol broker started", "brokers", strings.Join(b.Addrs(), ","), "data_dir", cfg.DataDir)
	<-ctx.Done()
	b.Close()
	log.Info("broker stopped")
	return nil
}

// createDevTopics creates the store's declared topics (events.Declared, what the chart's
// topics Job creates in the cluster) on the dev broker, the same way, so dev runs on the
// declared partitions and settings rather than on what auto-creation would choose. The
// broker is one node: replication is its default (1) there.
func createDevTopics(ctx context.Context, brokers []string, log *slog.Logger) error {
	created, err := kafka.CreateTopics(ctx, brokers, kafka.SingleBroker(events.Declared)...)
	if err != nil {
		return fmt.Errorf("broker: %w", err)
	}
	log.Info("declared topics created", "created", len(created), "declared", len(events.Declared))
	return nil
}
