package kafka

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	kafkago "github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// InboxBatchHandler applies many events' effects in tx, the transaction that records their
// ids in the inbox (the contract of InboxHandler, for a batch): envs are the fetched events
// not handled before, each once, in fetch order. An error rolls the batch back; its events
// are then handled one at a time (a batch of one each), retried and dead-lettered as
// InboxConsumer does, so one bad event holds no other back (a batch failing because the
// database is unreachable is retried whole until it is back, as InboxConsumer waits). With
// BatchOptions.EffectsOutsideTx, tx is nil (see there).
type InboxBatchHandler func(ctx context.Context, tx pgx.Tx, envs []Envelope) error

// BatchOptions size an InboxBatchConsumer's batches.
type BatchOptions struct {
	// Max is the most messages of one batch (default 100).
	Max int
	// Linger is how long a batch waits for more messages after its first (default 5 ms).
	// Messages already fetched from the partitions join at once, so under load a batch
	// fills without waiting, and a lone event waits at most Linger.
	Linger time.Duration
	// MaxWait and Fill pace the batches as a relay's rounds are paced (see Relay.Spacing):
	// a batch lingers until about Fill events (default 20) could have come at the rate of
	// the last batches, counted from the previous batch's close, at most MaxWait
	// (default 500 ms; negative: Linger only). A batch's cost is mostly per batch (its
	// transaction, its offset commit, the mail sender's claim after it), and at a few events
	// a second each relay's round came as a batch of its own. A lone event after a quiet
	// spell waits Linger only.
	MaxWait time.Duration
	Fill    int
	// EffectsOutsideTx: the handler's effects are not in a transaction of the consumer's
	// but guarded by their own (a renewal claims its row, calls payments and writes through
	// the order pipeline, each on connections of its own), so the handler gets a nil tx and
	// the consumer holds no connection while it runs: a handler that held one open while
	// waiting for others could, with every worker doing so, empty the pool and wait forever.
	// The inbox then skips events handled before, and the batch's ids are recorded once
	// the handler succeeded; a crash in between hands the events over again, so such a
	// handler must be idempotent per event.
	EffectsOutsideTx bool
}

// InboxBatchConsumer is an InboxConsumer whose handler takes the events in batches: it
// fetches up to Max messages of its partitions, records their ids in the inbox
// in one statement, hands the new ones to the handler in that transaction, and then
// commits the batch's offsets. Work whose cost is per statement or per round trip (a
// renewal: claim, read, charge, write) is then paid once per batch. The guarantees are
// InboxConsumer's: an event's effects commit with its inbox row, a redelivered batch is
// skipped event by event, offsets move only past handled (or dead-lettered) events.
type InboxBatchConsumer struct {
	c      *InboxConsumer
	topics []string
	h      InboxBatchHandler
	o      BatchOptions
}

// NewInboxBatchConsumer builds a consumer of topic in cfg's group whose events go to h in
// batches.
func NewInboxBatchConsumer(cfg ConsumerConfig, topic string, h InboxBatchHandler, o BatchOptions) *InboxBatchConsumer {
	return NewInboxBatchConsumerOf(cfg, []string{topic}, h, o)
}

// NewInboxBatchConsumerOf builds a consumer of several topics in cfg's group: a batch holds
// whatever arrived on any of them, so a service whose events of several kinds each cost a
// transaction (notifications: an order's account-created and order-completed) pays one per
// batch. h tells the events apart by Envelope.Topic.
func NewInboxBatchConsumerOf(cfg ConsumerConfig, topics []string, h InboxBatchHandler, o BatchOptions) *InboxBatchConsumer {
	topics = slices.Clone(topics)
	slices.Sort(topics)
	if o.Max <= 0 {
		o.Max = 100
	}
	if o.Linger <= 0 {
		o.Linger = 5 * time.Millisecond
	}
	if o.MaxWait == 0 {
		o.MaxWait = 500 * time.Millisecond
	}
	if o.Fill <= 0 {
		o.Fill = 20
	}
	return &InboxBatchConsumer{c: NewInboxConsumer(cfg), topics: slices.Compact(topics), h: h, o: o}
}

// Run consumes until ctx ends (answering nil) or the group cannot be read.
func (b *InboxBatchConsumer) Run(ctx context.Context) error {
	r := newGroupReader(b.c.cfg.Brokers, b.c.cfg.Group, b.topics, b.c.cfg.CommitInterval, b.c.cfg.Log)
	defer r.Close() // commits the offsets still pending
	dlq := &kafkago.Writer{
		Addr: kafkago.TCP(b.c.cfg.Brokers...), Balancer: &kafkago.Hash{}, RequiredAcks: kafkago.RequireAll,
		AllowAutoTopicCreation: AutoCreateTopics(), BatchTimeout: 5 * time.Millisecond,
	}
	defer dlq.Close()
	go b.c.prune(ctx)
	p := &pace{most: b.o.MaxWait, fill: b.o.Fill}
	var notBefore time.Time // the next batch lingers at least until then
	// A batch's messages are fetched into the previous batch's slice: nothing keeps them
	// once the batch is handled and its offsets handed to the reader (envelopes and dead
	// letters copy what they need), and a fresh slice of Max messages was 15 KB a batch.
	var buf []kafkago.Message
	for {
		msgs, ferr := b.fetch(ctx, r, notBefore, buf)
		if len(msgs) > 0 && b.o.MaxWait > 0 {
			// A batch holds what came since the previous one closed: its close is the mark
			// the rate is measured between, and the next batch closes a spacing after it.
			closed := time.Now()
			notBefore = closed.Add(p.next(closed, len(msgs)))
		}
		if len(msgs) > 0 {
			if err := b.process(ctx, dlq, msgs); err != nil {
				if ctx.Err() != nil {
					return nil // shutting down: the uncommitted offsets are redelivered
				}
				return err
			}
			// Handled offsets are committed even when shutdown began meanwhile (see Run of
			// InboxConsumer); the highest of each partition is committed.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			err := r.Commit(cctx, msgs...)
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("commit offsets of %d messages: %w", len(msgs), err)
			}
			clear(msgs) // holds on to no payload until the next batch
			buf = msgs[:0]
		}
		if ferr != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("fetch: %w", ferr)
		}
	}
}

// fetch waits for one message, then takes whatever else arrives within Linger, or until
// notBefore if that is later, up to Max, appending them to buf (empty). An error after the
// first message is answered with the messages fetched before it.
func (b *InboxBatchConsumer) fetch(ctx context.Context, r *groupReader, notBefore time.Time, buf []kafkago.Message) ([]kafkago.Message, error) {
	first, err := r.Fetch(ctx)
	if err != nil {
		return nil, err
	}
	if buf == nil {
		buf = make([]kafkago.Message, 0, b.o.Max)
	}
	msgs := append(buf, first)
	until := time.Now().Add(b.o.Linger)
	if notBefore.After(until) {
		until = notBefore
	}
	lctx, cancel := context.WithDeadline(ctx, until)
	defer cancel()
	for len(msgs) < b.o.Max {
		m, err := r.Fetch(lctx)
		if err != nil {
			if lctx.Err() != nil {
				return msgs, nil // lingered long enough (or shutting down: Run sees ctx)
			}
			return msgs, err
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// process handles a batch; when the batch fails, each message on its own (retried, then
// dead-lettered). It answers an error only when ctx ended first.
func (b *InboxBatchConsumer) process(ctx context.Context, dlq *kafkago.Writer, msgs []kafkago.Message) error {
	envs := make([]Envelope, len(msgs))
	links := make([]trace.Link, 0, len(msgs))
	fetched := map[string]int{}
	pctx := ctx
	var hdr Headers // the carrier escapes: one for the batch
	for i, msg := range msgs {
		envs[i] = EnvelopeOf(msg)
		fetched[msg.Topic]++
		hdr = msg.Headers
		if sc := trace.SpanContextFromContext(b.c.cfg.Propagator.Extract(ctx, &hdr)); sc.IsValid() {
			links = append(links, trace.Link{SpanContext: sc})
			if len(msgs) == 1 {
				// A batch of one (a quiet hour) continues its producer's trace, as
				// InboxConsumer does; a span of many links them (it has one parent).
				pctx, links = trace.ContextWithRemoteSpanContext(ctx, sc), nil
			}
		}
		b.c.m.lag.WithLabelValues(b.c.cfg.Group, msg.Topic, strconv.Itoa(msg.Partition)).Set(float64(max(msg.HighWaterMark-msg.Offset-1, 0)))
	}
	topics := slices.Sorted(maps.Keys(fetched))
	name := strings.Join(topics, " ")
	sctx, span := b.c.tracer.Start(pctx, "process "+name, trace.WithSpanKind(trace.SpanKindConsumer), trace.WithLinks(links...),
		trace.WithAttributes(attribute.String("messaging.system", "kafka"), attribute.String("messaging.destination.name", name),
			attribute.String("messaging.consumer.group.name", b.c.cfg.Group), attribute.Int("messaging.batch.message_count", len(msgs))))
	defer span.End()
	var handled map[string]int
	// An outage is waited out on the whole batch: splitting it would not help.
	err := b.c.untilReachable(sctx, b.c.cfg.Log.With("topic", name, "events", len(msgs), "group", b.c.cfg.Group), topics, func() (err error) {
		start := time.Now()
		handled, err = b.handleOnce(sctx, envs)
		for _, t := range topics {
			b.c.m.duration.WithLabelValues(b.c.cfg.Group, t).Observe(time.Since(start).Seconds())
		}
		return err
	})()
	if err == nil {
		for _, t := range topics {
			b.c.m.events.WithLabelValues(b.c.cfg.Group, t, "handled").Add(float64(handled[t]))
			b.c.m.events.WithLabelValues(b.c.cfg.Group, t, "duplicate").Add(float64(fetched[t] - handled[t]))
		}
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
	b.c.cfg.Log.WarnContext(sctx, "event batch failed; handling its events one at a time", "topic", name, "events", len(msgs),
		"group", b.c.cfg.Group, "err", err.Error())
	for i, msg := range msgs {
		if err := b.processOne(ctx, dlq, msg, envs[i]); err != nil {
			return err
		}
	}
	return nil
}

// processOne handles one message of a failed batch as a batch of one, retrying with
// backoff, and dead-letters it when it keeps failing (InboxConsumer's process).
func (b *InboxBatchConsumer) processOne(ctx context.Context, dlq *kafkago.Writer, msg kafkago.Message, env Envelope) error {
	log := b.c.cfg.Log.With("topic", msg.Topic, "partition", msg.Partition, "offset", msg.Offset, "event_id", env.ID, "group", b.c.cfg.Group)
	attempts, err := b.c.retry(ctx, b.c.cfg.MaxAttempts, b.c.untilReachable(ctx, log, []string{msg.Topic}, func() error {
		handled, err := b.handleOnce(ctx, []Envelope{env})
		if err == nil {
			outcome := "handled"
			if handled[msg.Topic] == 0 {
				outcome = "duplicate"
			}
			b.c.m.events.WithLabelValues(b.c.cfg.Group, msg.Topic, outcome).Inc()
		}
		return err
	}), func(err error, attempt int, next time.Duration) {
		b.c.m.retries.WithLabelValues(b.c.cfg.Group, msg.Topic).Inc()
		log.WarnContext(ctx, "event handler failed; retrying", "attempt", attempt, "retry_in", next.String(), "err", err.Error())
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	log.ErrorContext(ctx, "event handler failed; dead-lettering", "attempts", attempts, "err", err.Error())
	return b.c.deadLetter(ctx, dlq, msg, err, attempts)
}

// HandleBatch does with envs what Run does with a fetched batch's first try: their ids in
// the inbox and the new ones handled, in one transaction (or as EffectsOutsideTx says), with
// no broker, retry or dead letter. For tests that pin what a batch of a service's events
// costs its database and leaves in it, a redelivery included.
func (b *InboxBatchConsumer) HandleBatch(ctx context.Context, envs []Envelope) error {
	_, err := b.handleOnce(ctx, envs)
	return err
}

// handleOnce records the batch's event ids in the inbox in one statement and runs the
// handler on the new ones in that transaction; it answers how many were new, by topic.
func (b *InboxBatchConsumer) handleOnce(ctx context.Context, envs []Envelope) (handled map[string]int, err error) {
	// Sorted by id: two members inserting the same ids (a rebalance redelivered a batch
	// still in flight elsewhere) take their locks in one order, so one waits instead of
	// deadlocking. The ids and topics are sorted, not copies of the envelopes (a tenth of
	// their size).
	byID := make([]eventRef, len(envs))
	for i, e := range envs {
		byID[i] = eventRef{e.ID, e.Topic}
	}
	slices.SortStableFunc(byID, func(x, y eventRef) int { return strings.Compare(x.id, y.id) })
	byID = slices.CompactFunc(byID, func(x, y eventRef) bool { return x.id == y.id })
	ids, topics := make([]string, len(byID)), make([]string, len(byID))
	for i, e := range byID {
		ids[i], topics[i] = e.id, e.topic
	}
	ctx, committed := withAfterCommit(ctx)
	if b.o.EffectsOutsideTx {
		handled, err = b.handleOutside(ctx, envs, byID, ids)
		if err == nil {
			committed()
		}
		return handled, err
	}
	err = pgx.BeginFunc(ctx, b.c.cfg.Pool, func(tx pgx.Tx) (err error) {
		rows, err := tx.Query(ctx, `INSERT INTO inbox (consumer, event_id, topic) SELECT $1, id, topic FROM unnest($2::text[], $3::text[]) AS u(id, topic)
			ON CONFLICT DO NOTHING RETURNING event_id`, b.c.cfg.Inbox, ids, topics)
		if err != nil {
			return fmt.Errorf("record events in inbox: %w", err)
		}
		fresh, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("record events in inbox: %w", err)
		}
		todo := pick(envs, fresh)
		handled = countByTopic(todo)
		if len(todo) == 0 {
			return nil
		}
		return b.call(ctx, tx, todo)
	})
	if err != nil {
		return nil, err
	}
	committed()
	return handled, nil
}

// handleOutside is handleOnce with EffectsOutsideTx: the ids not in the inbox yet are
// handled with no transaction open, then recorded.
func (b *InboxBatchConsumer) handleOutside(ctx context.Context, envs []Envelope, byID []eventRef, ids []string) (map[string]int, error) {
	rows, err := b.c.cfg.Pool.Query(ctx, `SELECT id FROM unnest($2::text[]) AS u(id)
		WHERE NOT EXISTS (SELECT 1 FROM inbox WHERE consumer = $1 AND event_id = u.id)`, b.c.cfg.Inbox, ids)
	if err != nil {
		return nil, fmt.Errorf("look events up in inbox: %w", err)
	}
	fresh, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("look events up in inbox: %w", err)
	}
	todo := pick(envs, fresh)
	if len(todo) == 0 {
		return nil, nil
	}
	if err := b.call(ctx, nil, todo); err != nil {
		return nil, err
	}
	isNew := make(map[string]bool, len(fresh))
	for _, id := range fresh {
		isNew[id] = true
	}
	var freshIDs, freshTopics []string
	for _, e := range byID { // in id order, as handleOnce locks them
		if isNew[e.id] {
			freshIDs, freshTopics = append(freshIDs, e.id), append(freshTopics, e.topic)
		}
	}
	if _, err := b.c.cfg.Pool.Exec(ctx, `INSERT INTO inbox (consumer, event_id, topic) SELECT $1, id, topic FROM unnest($2::text[], $3::text[]) AS u(id, topic)
		ON CONFLICT DO NOTHING`, b.c.cfg.Inbox, freshIDs, freshTopics); err != nil {
		return nil, fmt.Errorf("record events in inbox: %w", err)
	}
	return countByTopic(todo), nil
}

// eventRef is an event's id and topic, as the inbox records them.
type eventRef struct{ id, topic string }

func countByTopic(envs []Envelope) map[string]int {
	n := map[string]int{}
	for _, e := range envs {
		n[e.Topic]++
	}
	return n
}

// call runs the handler, a panic answered as an error.
func (b *InboxBatchConsumer) call(ctx context.Context, tx pgx.Tx, envs []Envelope) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panic: %v", p)
		}
	}()
	return b.h(ctx, tx, envs)
}

// pick answers the envelopes whose ids are in fresh, each id once, in fetch order.
func pick(envs []Envelope, fresh []string) []Envelope {
	isNew := make(map[string]bool, len(fresh))
	for _, id := range fresh {
		isNew[id] = true
	}
	todo := make([]Envelope, 0, len(fresh))
	for _, e := range envs {
		if isNew[e.ID] {
			todo = append(todo, e)
			delete(isNew, e.ID) // an id fetched twice is handled once
		}
	}
	return todo
}
