package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	kafkago "github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/time/rate"
	grpccodes "google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hangar/hangar/internal/platform/errs"
)

// InboxSchema is the inbox table. A service that consumes events includes this DDL in one
// of its own migrations (it is idempotent), so the inbox lives in the consumer's database,
// beside the effects it guards.
const InboxSchema = `
CREATE TABLE IF NOT EXISTS inbox (
	consumer   text NOT NULL,
	event_id   text NOT NULL,
	topic      text NOT NULL,
	handled_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (consumer, event_id)
);
CREATE INDEX IF NOT EXISTS inbox_handled_at ON inbox (handled_at);
`

// DLQSuffix names a topic's dead-letter topic: <topic>.dlq.
const DLQSuffix = ".dlq"

// Headers added to a dead-lettered message, beside every original header.
const (
	HeaderDLQError     = "dlq_error"
	HeaderDLQTopic     = "dlq_topic"
	HeaderDLQPartition = "dlq_partition"
	HeaderDLQOffset    = "dlq_offset"
	HeaderDLQGroup     = "dlq_group"
	HeaderDLQAttempts  = "dlq_attempts"
	HeaderDLQTime      = "dlq_time"
)

// InboxHandler applies one event's effects in tx, the transaction that also records the
// event id in the inbox: both commit or neither does. Return an error to have the event
// retried (wrap it in Permanent when retrying cannot help). A handler must not cause
// effects outside tx that cannot be repeated; to send something (an e-mail), write it to a
// table in tx and send from there.
type InboxHandler func(ctx context.Context, tx pgx.Tx, env Envelope) error

// ConsumerConfig configures an InboxConsumer.
type ConsumerConfig struct {
	Brokers []string
	// Group is the consumer group and, unless Inbox is set, the inbox's consumer name. Two
	// groups of one service (two purposes) have separate inbox entries.
	Group string
	// Inbox names this consumer's inbox entries when they differ from Group: a consumer
	// moved to a new group (which starts from the first offset) keeps recognising what it
	// handled under the old one.
	Inbox string
	// Pool is the consumer's own database, migrated with InboxSchema.
	Pool       *pgxpool.Pool
	Log        *slog.Logger
	Tracer     trace.TracerProvider          // default: the global provider
	Propagator propagation.TextMapPropagator // default: the global propagator
	Registry   prometheus.Registerer         // optional: consumer metrics

	MaxAttempts    int           // handler attempts before dead-lettering; default 5
	InitialBackoff time.Duration // first retry delay; default 200 ms, doubling
	MaxBackoff     time.Duration // longest retry delay; default 10 s
	// CommitInterval is how often handled offsets are committed (the highest of each
	// partition, in the background; pending ones when the consumer stops or the group
	// rebalances); default DefaultCommitInterval. A crash redelivers at most this much,
	// which the inbox skips.
	CommitInterval time.Duration
	// Retention: inbox rows older than this are deleted, hourly. It must exceed the topics'
	// retention, so that no redelivery can outlive its inbox row; default 30 days.
	Retention time.Duration
}

// InboxConsumer reads topics in a consumer group and hands each event to its topic's
// handler exactly once in effect: the event id is inserted into the inbox in the handler's
// transaction, so a redelivered event (a crash after the commit and before the offset
// commit, a relay re-send, a replay) changes nothing. A failing handler is retried with
// exponential backoff up to MaxAttempts; then the message goes to <topic>.dlq with the error
// and its original headers, and the partition moves on. An attempt that failed because the
// consumer's database (or another dependency) is unreachable does not count: the outage is
// waited out, the partition holding still, however long it lasts.
type InboxConsumer struct {
	cfg      ConsumerConfig
	handlers map[string]InboxHandler
	tracer   trace.Tracer
	m        *consumerMetrics
}

// NewInboxConsumer builds a consumer; register handlers with Handle, then Run.
func NewInboxConsumer(cfg ConsumerConfig) *InboxConsumer {
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 5
	}
	if cfg.InitialBackoff <= 0 {
		cfg.InitialBackoff = 200 * time.Millisecond
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 10 * time.Second
	}
	if cfg.CommitInterval <= 0 {
		cfg.CommitInterval = DefaultCommitInterval
	}
	if cfg.Retention <= 0 {
		cfg.Retention = 30 * 24 * time.Hour
	}
	if cfg.Inbox == "" {
		cfg.Inbox = cfg.Group
	}
	if cfg.Tracer == nil {
		cfg.Tracer = otel.GetTracerProvider()
	}
	if cfg.Propagator == nil {
		cfg.Propagator = otel.GetTextMapPropagator()
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &InboxConsumer{cfg: cfg, handlers: map[string]InboxHandler{}, tracer: cfg.Tracer.Tracer(tracerName), m: newConsumerMetrics(cfg.Registry)}
}

// Handle routes topic's events to h. Call before Run.
func (c *InboxConsumer) Handle(topic string, h InboxHandler) { c.handlers[topic] = h }

// Run consumes until ctx ends (answering nil) or the group cannot be read.
func (c *InboxConsumer) Run(ctx context.Context) error {
	if len(c.handlers) == 0 {
		return errors.New("inbox consumer: no handlers")
	}
	topics := make([]string, 0, len(c.handlers))
	for t := range c.handlers {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	r := newGroupReader(c.cfg.Brokers, c.cfg.Group, topics, c.cfg.CommitInterval, c.cfg.Log)
	defer r.Close() // commits the offsets still pending
	dlq := &kafkago.Writer{
		Addr: kafkago.TCP(c.cfg.Brokers...), Balancer: &kafkago.Hash{}, RequiredAcks: kafkago.RequireAll,
		AllowAutoTopicCreation: AutoCreateTopics(), BatchTimeout: 5 * time.Millisecond,
	}
	defer dlq.Close()
	go c.prune(ctx)
	for {
		msg, err := r.Fetch(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("fetch: %w", err)
		}
		c.m.lag.WithLabelValues(c.cfg.Group, msg.Topic, strconv.Itoa(msg.Partition)).Set(float64(max(msg.HighWaterMark-msg.Offset-1, 0)))
		if err := c.process(ctx, dlq, msg); err != nil {
			if ctx.Err() != nil {
				return nil // shutting down: the uncommitted offset is redelivered
			}
			return err
		}
		// Only now, with the message handled, may its offset be committed: at the next tick
		// of the commit interval, or by Close. That happens even when shutdown began
		// meanwhile, so a clean stop does not redeliver it (a crash does; the inbox absorbs
		// that).
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		err = r.Commit(cctx, msg)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("commit offset %d of %s/%d: %w", msg.Offset, msg.Topic, msg.Partition, err)
		}
	}
}

// process handles msg, retrying, and dead-letters it when it keeps failing. It answers an
// error only when ctx ended first (the offset must not be committed then).
func (c *InboxConsumer) process(ctx context.Context, dlq *kafkago.Writer, msg kafkago.Message) error {
	env := EnvelopeOf(msg)
	hdr := Headers(msg.Headers)
	pctx := c.cfg.Propagator.Extract(ctx, &hdr)
	sctx, span := c.tracer.Start(pctx, "process "+msg.Topic, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(append(messagingAttrs(make([]attribute.KeyValue, 0, 7), msg.Topic, env.ID, string(msg.Key)),
			attribute.String("messaging.consumer.group.name", c.cfg.Group),
			attribute.Int("messaging.destination.partition.id", msg.Partition),
			attribute.Int64("messaging.kafka.offset", msg.Offset))...))
	defer span.End()
	log := c.cfg.Log.With("topic", msg.Topic, "partition", msg.Partition, "offset", msg.Offset, "event_id", env.ID, "group", c.cfg.Group)

	attempts, err := c.retry(ctx, c.cfg.MaxAttempts, c.untilReachable(sctx, log, []string{msg.Topic}, func() error {
		start := time.Now()
		dup, err := c.handleOnce(sctx, env)
		c.m.duration.WithLabelValues(c.cfg.Group, msg.Topic).Observe(time.Since(start).Seconds())
		if err == nil {
			outcome := "handled"
			if dup {
				outcome = "duplicate"
				log.InfoContext(sctx, "event already handled; skipped")
			}
			c.m.events.WithLabelValues(c.cfg.Group, msg.Topic, outcome).Inc()
			span.SetAttributes(attribute.String("hangar.inbox.outcome", outcome))
		}
		return err
	}), func(err error, attempt int, next time.Duration) {
		c.m.retries.WithLabelValues(c.cfg.Group, msg.Topic).Inc()
		log.WarnContext(sctx, "event handler failed; retrying", "attempt", attempt, "retry_in", next.String(), "err", err.Error())
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
	log.ErrorContext(sctx, "event handler failed; dead-lettering", "attempts", attempts, "err", err.Error())
	return c.deadLetter(sctx, dlq, msg, err, attempts)
}

// retry runs op until it succeeds, fails permanently (IsPermanent), has run tries times
// (0: no limit) or ctx ends, waiting the consumer's backoff between runs; notify is told
// each failure that is retried, with its attempt number. It answers the attempts made and
// the last error.
func (c *InboxConsumer) retry(ctx context.Context, tries int, op func() error, notify func(err error, attempt int, next time.Duration)) (int, error) {
	bo := backoff.NewExponentialBackOff()
	bo.InitialInterval, bo.MaxInterval = c.cfg.InitialBackoff, c.cfg.MaxBackoff
	attempt := 0
	_, err := backoff.Retry(ctx, func() (struct{}, error) {
		attempt++
		err := op()
		if IsPermanent(err) {
			return struct{}{}, backoff.Permanent(err)
		}
		return struct{}{}, err
	}, backoff.WithBackOff(bo), backoff.WithMaxTries(uint(max(tries, 0))), backoff.WithMaxElapsedTime(0),
		backoff.WithNotify(func(err error, next time.Duration) { notify(err, attempt, next) }))
	return attempt, err
}

// outageBackoff caps the wait between attempts while a dependency is unreachable, so that
// the consumer resumes within seconds of the database's return.
const outageBackoff = 5 * time.Second

// untilReachable makes op run again, with backoff capped at outageBackoff and with no limit,
// while it fails because a dependency is unreachable, until it answers anything else or ctx
// ends. A database lost or refusing connections is not the event's fault: counted toward
// MaxAttempts, a crash of PostgreSQL longer than the retries dead-lettered good events
// (issue 30: an order's receipt e-mail never sent). The offset is not committed meanwhile,
// and a consumer stopped during the outage leaves the event to be redelivered.
func (c *InboxConsumer) untilReachable(ctx context.Context, log *slog.Logger, topics []string, op func() error) func() error {
	return func() error {
		bo := backoff.NewExponentialBackOff()
		bo.InitialInterval, bo.MaxInterval = c.cfg.InitialBackoff, min(c.cfg.MaxBackoff, outageBackoff)
		warn := rate.Sometimes{First: 1, Interval: outageBackoff} // one line per few seconds of outage
		waits := 0
		_, err := backoff.Retry(ctx, func() (struct{}, error) {
			err := op()
			if unreachable(err) {
				return struct{}{}, err
			}
			return struct{}{}, backoff.Permanent(err) // nil on success
		}, backoff.WithBackOff(bo), backoff.WithMaxElapsedTime(0), backoff.WithNotify(func(err error, next time.Duration) {
			waits++
			for _, t := range topics {
				c.m.outageRetries.WithLabelValues(c.cfg.Group, t).Inc()
			}
			warn.Do(func() {
				log.WarnContext(ctx, "event handler cannot reach a dependency; waiting, not counting the attempt",
					"outage_retries", waits, "retry_in", next.String(), "err", err.Error())
			})
		}))
		return err
	}
}

// unreachable tells an outage (errs.Unavailable: the database refusing connections or
// ending the session, a peer answering Unavailable) from a failure of the event's
// handling. A deadline, the handler's own or a peer's, may be the event's doing (a slow
// query it causes) and counts as a failure, as it did; a Permanent error is never retried.
func unreachable(err error) bool {
	switch {
	case err == nil, IsPermanent(err), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	case status.Code(err) == grpccodes.DeadlineExceeded, status.Code(err) == grpccodes.Canceled:
		return false
	}
	return errs.CodeOf(err) == errs.Unavailable
}

// handleOnce runs the handler in a transaction with the inbox insert. dup: the event was
// handled before (nothing was done).
func (c *InboxConsumer) handleOnce(ctx context.Context, env Envelope) (dup bool, err error) {
	h := c.handlers[env.Topic]
	ctx, committed := withAfterCommit(ctx)
	err = pgx.BeginFunc(ctx, c.cfg.Pool, func(tx pgx.Tx) (err error) {
		tag, err := tx.Exec(ctx, `INSERT INTO inbox (consumer, event_id, topic) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
			c.cfg.Inbox, env.ID, env.Topic)
		if err != nil {
			return fmt.Errorf("record event in inbox: %w", err)
		}
		if tag.RowsAffected() == 0 {
			dup = true
			return nil
		}
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("handler panic: %v", p)
			}
		}()
		return h(ctx, tx, env)
	})
	if err == nil {
		committed()
	}
	return dup, err
}

// deadLetter publishes msg to <topic>.dlq with its original key, payload and headers plus
// the failure, retrying until it is written (or ctx ends): the offset moves on only once
// the event is safe somewhere.
func (c *InboxConsumer) deadLetter(ctx context.Context, w *kafkago.Writer, msg kafkago.Message, cause error, attempts int) error {
	h := Headers(slices.Clone(msg.Headers))
	h.Set(HeaderDLQError, cause.Error())
	h.Set(HeaderDLQTopic, msg.Topic)
	h.Set(HeaderDLQPartition, strconv.Itoa(msg.Partition))
	h.Set(HeaderDLQOffset, strconv.FormatInt(msg.Offset, 10))
	h.Set(HeaderDLQGroup, c.cfg.Group)
	h.Set(HeaderDLQAttempts, strconv.Itoa(attempts))
	h.Set(HeaderDLQTime, time.Now().UTC().Format(time.RFC3339Nano))
	dead := kafkago.Message{Topic: msg.Topic + DLQSuffix, Key: msg.Key, Value: msg.Value, Headers: h}
	_, err := c.retry(ctx, 0, func() error { return w.WriteMessages(ctx, dead) }, func(err error, _ int, next time.Duration) {
		c.cfg.Log.ErrorContext(ctx, "dead-letter publish failed; retrying", "topic", dead.Topic, "retry_in", next.String(), "err", err.Error())
	})
	if err != nil {
		return err // only ctx ends the retries
	}
	c.m.deadLetters.WithLabelValues(c.cfg.Group, msg.Topic).Inc()
	c.m.events.WithLabelValues(c.cfg.Group, msg.Topic, "dead_lettered").Inc()
	return nil
}

// prune deletes this consumer's inbox rows older than the retention, hourly.
func (c *InboxConsumer) prune(ctx context.Context) {
	for {
		if _, err := c.cfg.Pool.Exec(ctx, `DELETE FROM inbox WHERE consumer = $1 AND handled_at < now() - $2::interval`,
			c.cfg.Inbox, fmt.Sprintf("%d seconds", int64(c.cfg.Retention.Seconds()))); err != nil && ctx.Err() == nil {
			c.cfg.Log.WarnContext(ctx, "inbox prune failed", "err", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Hour):
		}
	}
}

type consumerMetrics struct {
	events  *prometheus.CounterVec
	retries *prometheus.CounterVec
	// outageRetries: attempts that failed on an unreachable dependency, retried without
	// counting toward MaxAttempts.
	outageRetries *prometheus.CounterVec
	deadLetters   *prometheus.CounterVec
	lag           *prometheus.GaugeVec
	duration      *prometheus.HistogramVec
}

func newConsumerMetrics(reg prometheus.Registerer) *consumerMetrics {
	m := &consumerMetrics{
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_kafka_consumer_events_total",
			Help: "Events consumed, by outcome: handled, duplicate (already in the inbox) or dead_lettered."}, []string{"group", "topic", "outcome"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_kafka_consumer_retries_total",
			Help: "Handler attempts that failed and were retried."}, []string{"group", "topic"}),
		outageRetries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_kafka_consumer_outage_retries_total",
			Help: "Handler attempts that failed because a dependency (the consumer's database) was unreachable, retried until it is back."}, []string{"group", "topic"}),
		deadLetters: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_kafka_consumer_dead_letters_total",
			Help: "Events sent to the dead-letter topic."}, []string{"group", "topic"}),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hangar_kafka_consumer_lag",
			Help: "Messages behind the partition's high-water mark at the last fetch."}, []string{"group", "topic", "partition"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hangar_kafka_consumer_handle_seconds",
			Help: "Time of one handler attempt, inbox transaction included.", Buckets: prometheus.DefBuckets}, []string{"group", "topic"}),
	}
	if reg != nil {
		m.events = registerOrReuse(reg, m.events)
		m.retries = registerOrReuse(reg, m.retries)
		m.outageRetries = registerOrReuse(reg, m.outageRetries)
		m.deadLetters = registerOrReuse(reg, m.deadLetters)
		m.lag = registerOrReuse(reg, m.lag)
		m.duration = registerOrReuse(reg, m.duration)
	}
	return m
}
