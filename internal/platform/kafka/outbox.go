package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	kafkago "github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel/propagation"
)

// OutboxSchema is the outbox table. A service that publishes events includes this DDL in
// one of its own migrations (it is idempotent), so the table lives in the service's database.
const OutboxSchema = `
CREATE TABLE IF NOT EXISTS outbox (
	id           bigserial PRIMARY KEY,
	topic        text NOT NULL,
	key          bytea NOT NULL,
	payload      bytea NOT NULL,
	headers      jsonb NOT NULL DEFAULT '{}',
	created_at   timestamptz NOT NULL DEFAULT now(),
	published_at timestamptz
);
CREATE INDEX IF NOT EXISTS outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
`

// Event is one message to publish, keyed by its aggregate id.
type Event struct {
	Topic   string
	Key     string
	Payload []byte
}

// Enqueue writes events in the caller's transaction, with the caller's trace context, so
// they are published if and only if the state change commits.
func Enqueue(ctx context.Context, tx pgx.Tx, prop propagation.TextMapPropagator, events ...Event) error {
	carrier := propagation.MapCarrier{}
	prop.Inject(ctx, carrier)
	hdr, err := json.Marshal(carrier)
	if err != nil {
		return fmt.Errorf("encode trace headers: %w", err)
	}
	for _, e := range events {
		if _, err := tx.Exec(ctx, `INSERT INTO outbox (topic, key, payload, headers) VALUES ($1, $2, $3, $4)`,
			e.Topic, []byte(e.Key), e.Payload, hdr); err != nil {
			return fmt.Errorf("enqueue %s event: %w", e.Topic, err)
		}
	}
	return nil
}

// Relay moves committed outbox rows to Kafka in id order and deletes them once published. Several replicas may run relays:
// rows are claimed with FOR UPDATE SKIP LOCKED. Delivery is at least once (a crash after the
// publish and before marking re-sends), which consumers absorb by being idempotent.
type Relay struct {
	Pool      *pgxpool.Pool
	Producer  *Producer
	Log       *slog.Logger
	Interval  time.Duration // idle poll interval; default 200 ms
	BatchSize int           // default 100
}

// Run relays until ctx ends.
func (r *Relay) Run(ctx context.Context) error {
	interval := r.Interval
	if interval == 0 {
		interval = 200 * time.Millisecond
	}
	for {
		n, err := r.RelayOnce(ctx)
		if err != nil && ctx.Err() == nil {
			r.Log.ErrorContext(ctx, "outbox relay failed; will retry", "err", err.Error())
		}
		if n > 0 && err == nil {
			continue // more may be waiting
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(interval):
		}
	}
}

// RelayOnce publishes one batch and answers how many rows it published.
func (r *Relay) RelayOnce(ctx context.Context) (int, error) {
	batch := r.BatchSize
	if batch == 0 {
		batch = 100
	}
	var n int
	err := pgx.BeginFunc(ctx, r.Pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, topic, key, payload, headers FROM outbox
			WHERE published_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, batch)
		if err != nil {
			return fmt.Errorf("claim outbox rows: %w", err)
		}
		var ids []int64
		var msgs []kafkago.Message
		for rows.Next() {
			var id int64
			var m kafkago.Message
			var hdr map[string]string
			if err := rows.Scan(&id, &m.Topic, &m.Key, &m.Value, &hdr); err != nil {
				return fmt.Errorf("scan outbox row: %w", err)
			}
			for k, v := range hdr {
				m.Headers = append(m.Headers, kafkago.Header{Key: k, Value: []byte(v)})
			}
			ids = append(ids, id)
			msgs = append(msgs, m)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read outbox rows: %w", err)
		}
		if len(msgs) == 0 {
			return nil
		}
		// Headers already carry the writer's trace context; publish without re-injecting.
		if err := r.Producer.w.WriteMessages(ctx, msgs...); err != nil {
			return fmt.Errorf("publish %d outbox events: %w", len(msgs), err)
		}
		// Published rows are deleted, not kept: Kafka is the record of events, and payloads
		// (a verification code, say) should not linger in a table once delivered.
		if _, err := tx.Exec(ctx, `DELETE FROM outbox WHERE id = ANY($1)`, ids); err != nil {
			return fmt.Errorf("remove published outbox rows: %w", err)
		}
		n = len(msgs)
		return nil
	})
	return n, err
}

// RunRelay relays pool's outbox to brokers until ctx ends. Without brokers it logs that
// events stay in the outbox (they are relayed once the service runs with Kafka) and returns.
func RunRelay(ctx context.Context, brokers []string, pool *pgxpool.Pool, prop propagation.TextMapPropagator, log *slog.Logger) {
	if len(brokers) == 0 {
		log.WarnContext(ctx, "no KAFKA_BROKERS: events stay in the outbox")
		return
	}
	producer := NewProducer(brokers, prop)
	defer producer.Close()
	_ = (&Relay{Pool: pool, Producer: producer, Log: log}).Run(ctx)
}
