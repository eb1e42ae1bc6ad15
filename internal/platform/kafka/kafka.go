// Package kafka is the event plumbing every service shares, on segmentio/kafka-go.
//
// Publishing: a service writes events in the transaction of its state change with
// Enqueue(ctx, tx, prop, Event{Topic, Key, Payload}) into its own outbox table (copy
// OutboxSchema into a migration). RunRelay publishes committed rows: it claims a key slot
// (one of 16, by a hash of the key) under a PostgreSQL advisory lock, reads that slot's
// oldest rows, publishes them with no transaction open, deletes them and releases the slot,
// so several replicas relay at once and one key's events keep their order. It does not
// poll: a pool made by db.Open signals when a transaction that wrote outbox rows ended
// (db.OutboxWrites), and the relay runs a round then (at most one per 200 ms, so what
// commits meanwhile goes together), looking anyway every 30 s for rows of other processes
// (within a second when another replica held a slot that had rows).
// Consumers' fetches wait up to FetchWait (30 s) at the broker, which answers as soon as an
// event arrives; a consumer's stop or a rebalance cuts a waiting fetch short. Metrics:
// hangar_outbox_depth, hangar_outbox_oldest_age_seconds, hangar_outbox_published_total.
//
// The envelope: every message carries its CloudEvents attributes as Kafka headers (the
// CloudEvents Kafka binding, binary mode): ce_specversion, ce_id (a UUIDv7 fixed at
// Enqueue), ce_source (/hangar/<service>), ce_type (the topic without .v<N>), ce_time,
// ce_subject (the key), ce_schemaversion (N), content-type (application/protobuf), plus
// the W3C traceparent/tracestate of the relay's producer span, itself a child of the
// writer's span. The payload is the protobuf message of proto/hangar/events/v1.
//
// Consuming: NewInboxConsumer(ConsumerConfig{Brokers, Group, Pool, ...}), then
// Handle(topic, func(ctx, tx pgx.Tx, env Envelope) error) per topic and Run(ctx). Each event
// runs in a transaction of the consumer's own database that also inserts (group, event id)
// into its inbox table (copy InboxSchema into a migration): a redelivered event finds its id
// and changes nothing. A failing handler is retried with exponential backoff (MaxAttempts,
// default 5; errors wrapped in Permanent are not retried), then the message goes to
// <topic>.dlq with its original headers plus dlq_error, dlq_topic, dlq_partition,
// dlq_offset, dlq_group, dlq_attempts and dlq_time, and the partition moves on. A failure
// because the consumer's database is unreachable (errs.Unavailable) is retried without
// counting toward MaxAttempts, until the database is back. Metrics:
// hangar_kafka_consumer_events_total{outcome}, _retries_total, _outage_retries_total,
// _dead_letters_total, _lag, _handle_seconds. Handled offsets are committed in the background, the highest of each
// partition once per CommitInterval (default 1 s) and when the consumer stops or the group
// rebalances, instead of one broker round trip per message: a crash redelivers at most an
// interval's events, which the inbox skips.
//
// Dead letters are listed and replayed with `go run ./cmd/hangar-events dlq` (see its
// -help), built on ReadDeadLetters and ReplayDeadLetters: a replay republishes the original
// message to its topic with the same event id, so groups that handled it skip it.
//
// Every consumer (inbox, batch) shares the group's timing (SessionTimeout 6 s, HeartbeatInterval 2 s: a
// crashed consumer's partitions move after 6 s) and its offset policy: a partition without
// a committed offset, and one whose committed offset is past its end (the broker came back
// with a shorter log), are read from their first offset (groupReader).
//
// StartBroker runs the in-process kfake broker for dev and tests.
package kafka

import (
	"context"
	"os"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/config"
)

const tracerName = "github.com/hangar/hangar/internal/platform/kafka"

// Headers adapts Kafka headers to an OpenTelemetry carrier.
type Headers []kafkago.Header

func (h *Headers) Get(key string) string { return string(h.value(key)) }

// value answers a header's value (nil when absent), not copied.
func (h *Headers) value(key string) []byte {
	for _, x := range *h {
		if x.Key == key {
			return x.Value
		}
	}
	return nil
}

func (h *Headers) Set(key, value string) {
	for i, x := range *h {
		if x.Key == key {
			(*h)[i].Value = []byte(value)
			return
		}
	}
	*h = append(*h, kafkago.Header{Key: key, Value: []byte(value)})
}

func (h *Headers) Keys() []string {
	keys := make([]string, 0, len(*h))
	for _, x := range *h {
		keys = append(keys, x.Key)
	}
	return keys
}

// Producer publishes messages with the caller's trace context in their headers.
type Producer struct {
	w    *kafkago.Writer
	prop propagation.TextMapPropagator
}

// NewProducer writes to brokers; topics are named per message. Writes wait for all in-sync
// replicas, and are balanced by key hash so one aggregate's events keep their order.
func NewProducer(brokers []string, prop propagation.TextMapPropagator) *Producer {
	return &Producer{prop: prop, w: &kafkago.Writer{
		Addr:                   kafkago.TCP(brokers...),
		Balancer:               &kafkago.Hash{},
		RequiredAcks:           kafkago.RequireAll,
		AllowAutoTopicCreation: AutoCreateTopics(),
		BatchTimeout:           5 * time.Millisecond,
	}}
}

// AutoCreateTopics is whether the store's writers ask the broker to create a topic they
// find missing: only in development mode (config.DevModeVar, on in make dev and in tests).
// Outside it a publish to an undeclared topic fails instead of creating the topic with
// whatever partitions and replication the broker defaults to (Kafka's own default is to
// create it): the topics are events.Declared, created by `hangar-events topics`. A
// malformed HANGAR_DEV_MODE counts as off, the safe side.
func AutoCreateTopics() bool {
	on, err := config.DevMode(os.LookupEnv)
	return err == nil && on
}

// Publish sends msgs synchronously. Each message's Topic must be set.
func (p *Producer) Publish(ctx context.Context, msgs ...kafkago.Message) error {
	for i := range msgs {
		h := Headers(msgs[i].Headers)
		p.prop.Inject(ctx, &h)
		msgs[i].Headers = h
	}
	return p.w.WriteMessages(ctx, msgs...)
}

// Close flushes and closes the writer.
func (p *Producer) Close() error { return p.w.Close() }
