package kafka

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	kafkago "github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar/hangar/internal/platform/db"
)

// OutboxSchema is the outbox table. A service that publishes events includes this DDL in
// one of its own migrations (it is idempotent), so the table lives in the service's database.
// The relay needs nothing more: rows are claimed per key slot under an advisory lock and
// deleted once published (published_at is kept for databases created before that).
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

// Event is one message to publish, keyed by its aggregate id. Only Topic, Key and Payload
// are required; the CloudEvents attributes default as described on Enqueue.
type Event struct {
	Topic   string
	Key     string
	Payload []byte

	ID            string    // default: a new UUIDv7
	Type          string    // default: the topic without its .v<N> suffix
	Source        string    // default: /hangar/<service> from the topic name
	SchemaVersion string    // default: N of the topic's .v<N> suffix
	DataSchema    string    // optional, e.g. the payload's protobuf message name
	ContentType   string    // default: application/protobuf
	Time          time.Time // default: now
}

// Enqueue writes events in the caller's transaction, with the caller's trace context, so
// they are published if and only if the state change commits. Each row carries its
// CloudEvents attributes (id, source, type, time, subject = key, schema version, content
// type) and the W3C trace context as the Kafka headers the relay will send: the event id
// is fixed here, so a re-sent row is recognisably the same event.
func Enqueue(ctx context.Context, tx pgx.Tx, prop propagation.TextMapPropagator, events ...Event) error {
	rows, err := outboxRows(ctx, prop, events)
	if err != nil {
		return err
	}
	return enqueueRows(ctx, tx, rows)
}

// QueueEnqueue queues the events' outbox rows on b, as Enqueue writes them: for a write sent
// as one pipelined batch, which PostgreSQL runs as one implicit transaction (the rows are
// written if and only if every statement of the batch succeeds).
func QueueEnqueue(ctx context.Context, b *pgx.Batch, prop propagation.TextMapPropagator, events ...Event) error {
	rows, err := outboxRows(ctx, prop, events)
	if err != nil {
		return err
	}
	for _, r := range rows {
		b.Queue(`INSERT INTO outbox (topic, key, payload, headers) VALUES ($1, $2, $3, $4)`, r...)
	}
	return nil
}

// OutboxRow answers e's outbox row as Enqueue writes it (topic, key, payload, headers), for a
// statement that inserts the row itself: one whose event depends on what another part of
// the same statement changed (INSERT INTO outbox ... SELECT $1::text, $2::bytea, $3::bytea,
// $4::jsonb FROM changed), so the decision and the event cost one round trip.
func OutboxRow(ctx context.Context, prop propagation.TextMapPropagator, e Event) ([]any, error) {
	rows, err := outboxRows(ctx, prop, []Event{e})
	if err != nil {
		return nil, err
	}
	return rows[0], nil
}

// outboxRows are the events' outbox columns: topic, key, payload and the headers (the
// CloudEvents attributes and ctx's trace context).
func outboxRows(ctx context.Context, prop propagation.TextMapPropagator, events []Event) ([][]any, error) {
	var carrier headerList
	prop.Inject(ctx, &carrier)
	now := time.Now()
	rows := make([][]any, 0, len(events))
	var h headerList
	for _, e := range events {
		var err error
		if h, err = ceHeaders(h[:0], e, now); err != nil {
			return nil, err
		}
		h = append(h, carrier...) // the trace context wins a clash of names, as it always did
		hdr, err := h.appendJSON(make([]byte, 0, h.jsonSize()))
		if err != nil {
			return nil, fmt.Errorf("encode event headers: %w", err)
		}
		rows = append(rows, []any{e.Topic, []byte(e.Key), e.Payload, hdr})
	}
	return rows, nil
}

func enqueueRows(ctx context.Context, tx pgx.Tx, rows [][]any) error {
	switch {
	case len(rows) == 0:
		return nil
	case len(rows) == 1:
		if _, err := tx.Exec(ctx, `INSERT INTO outbox (topic, key, payload, headers) VALUES ($1, $2, $3, $4)`, rows[0]...); err != nil {
			return fmt.Errorf("enqueue %s event: %w", rows[0][0], err)
		}
		return nil
	case len(rows) < copyFrom:
		// A few events (an order's, a batch of welcomes): one statement, one round trip, the
		// ids in the rows' order (the relay's order).
		n := len(rows)
		topics, keys, payloads, headers := make([]string, n), make([][]byte, n), make([][]byte, n), make([]string, n)
		for i, r := range rows { // outboxRows' columns
			topics[i], keys[i], payloads[i], headers[i] = r[0].(string), r[1].([]byte), r[2].([]byte), string(r[3].([]byte))
		}
		if _, err := tx.Exec(ctx, `INSERT INTO outbox (topic, key, payload, headers)
			SELECT topic, key, payload, headers::jsonb
			FROM unnest($1::text[], $2::bytea[], $3::bytea[], $4::text[]) WITH ORDINALITY AS u(topic, key, payload, headers, n) ORDER BY n`,
			topics, keys, payloads, headers); err != nil {
			return fmt.Errorf("enqueue %d events: %w", n, err)
		}
		return nil
	}
	// Many events (a batch of renewals): one COPY; ids (the relay's order) follow the rows.
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"outbox"}, []string{"topic", "key", "payload", "headers"}, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("enqueue %d events: %w", len(rows), err)
	}
	return nil
}

// copyFrom is the number of events from which Enqueue copies them in one statement.
const copyFrom = 8

// Key slots: every row belongs to one of relaySlots slots by a hash of its key, and a relay
// publishes a slot only while it holds that slot's advisory lock. So several replicas relay
// at once, each slot by one of them at a time, and one key's events leave in id order.
const (
	relaySlots     = 16
	relayLockClass = int32(0x6f757462) // "outb": the advisory-lock namespace of outbox slots
	slotExpr       = `(get_byte(decode(md5(key), 'hex'), 0) % 16)`
)

// Relay moves committed outbox rows to Kafka and deletes them once published. A batch is
// claimed (the slot's advisory lock, a session lock on one connection), read, published with
// no transaction open, then deleted, and only then is the slot released. Delivery is at
// least once (a crash after the publish and before the delete re-sends the same event ids),
// which consumers absorb through their inbox.
type Relay struct {
	Pool     *pgxpool.Pool
	Producer *Producer
	Log      *slog.Logger
	Tracer   trace.TracerProvider // default: the global provider
	// Wake, when set, receives a value once a transaction that wrote outbox rows ended
	// (db.OutboxWrites of the pool, which RunRelay uses): the relay then waits for it
	// instead of polling, so an idle store sends its database nothing but a round every
	// Interval. A round starts no sooner than Spacing after the previous one began, so
	// what commits meanwhile (a busy minute's orders) goes in one round.
	Wake <-chan struct{}
	// Interval is how long the relay waits for a wake-up before looking anyway: for rows
	// another process wrote and did not relay (it died first) and ones whose wake-up was
	// missed (a write spelt otherwise). Default 200 ms without Wake, 30 s with it. A round
	// that found a slot with rows held by another replica (which may have read it before
	// this process's rows committed) looks again within a second instead.
	Interval time.Duration
	// Spacing is the least time between two rounds started by wake-ups (default 200 ms, the
	// poll interval it replaces) and MaxSpacing the most (default 1 s): in between, the
	// spacing grows as traffic falls, so that a round carries about Fill events (default
	// 20). A round costs four statements and a produce however many events it carries: a
	// round per commit cost them per order, and a fixed 200 ms at 10 orders a second still
	// cost them per two. An event after a quiet spell is relayed at once (the previous
	// round is long past); one that follows others within MaxSpacing waits for the round.
	Spacing    time.Duration
	MaxSpacing time.Duration
	Fill       int
	BatchSize  int // default 100
	// VacuumEvery is how many deleted rows the relay lets pile up before it vacuums the
	// outbox itself (default 1000; negative: never). Every published row is deleted, and
	// the relay's scans walk the dead rows and index entries until a vacuum removes them:
	// autovacuum comes at most once a minute (and not at all where it is off), by which
	// time a busy outbox holds ten thousand dead rows under a hundred live ones and every
	// round reads them. A vacuum of a table that small costs about a millisecond.
	VacuumEvery int

	published prometheus.Counter
	failures  prometheus.Counter
	vacuums   prometheus.Counter
	deleted   atomic.Int64 // rows deleted since the last vacuum
	held      atomic.Bool  // the last round found a slot with rows that another replica held
	bufs      atomic.Pointer[relayBuffers]
}

// relayBuffers are a round's slices, kept for the next round (a round per commit or per
// spacing, so growing them afresh was an allocation of every event). A round takes them
// from its relay and gives them back when done; a round that runs beside another (two
// callers of RelayOnce) makes its own.
type relayBuffers struct {
	ids   []int64
	msgs  []kafkago.Message
	spans []trace.Span
	attrs []attribute.KeyValue
	names map[string]string // producer span names by topic
}

func (r *Relay) buffers() *relayBuffers {
	if b := r.bufs.Swap(nil); b != nil {
		return b
	}
	return &relayBuffers{names: map[string]string{}}
}

// keep empties b, so that it holds on to no event until the next round, and hands it back.
func (r *Relay) keep(b *relayBuffers) {
	clear(b.msgs)
	clear(b.spans)
	clear(b.attrs)
	b.ids, b.msgs, b.spans, b.attrs = b.ids[:0], b.msgs[:0], b.spans[:0], b.attrs[:0]
	r.bufs.Store(b)
}

func (b *relayBuffers) spanName(topic string) string {
	name, ok := b.names[topic]
	if !ok {
		name = "send " + topic
		b.names[topic] = name
	}
	return name
}

// relayLogEvery: a relay failing every round (an outage) logs one ERROR line per period,
// counting the rounds left out; hangar_outbox_relay_failures_total counts every one.
const relayLogEvery = 30 * time.Second

// Run relays until ctx ends. A round that found a full batch is followed at once by the
// next; otherwise the relay waits for a wake-up (Wake), no sooner than the spacing (see
// Spacing) after the round began, or for Interval.
func (r *Relay) Run(ctx context.Context) error {
	interval, spacing := r.Interval, r.Spacing
	if interval == 0 {
		interval = 200 * time.Millisecond
		if r.Wake != nil {
			interval = 30 * time.Second
		}
	}
	if spacing == 0 {
		spacing = 200 * time.Millisecond
	}
	p := &pace{least: spacing, most: max(cmp.Or(r.MaxSpacing, time.Second), spacing), fill: cmp.Or(r.Fill, 20)}
	batch := r.BatchSize
	if batch == 0 {
		batch = 100
	}
	failures := &failureLog{every: relayLogEvery}
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for {
		began := time.Now()
		n, err := r.RelayOnce(ctx)
		if err != nil && ctx.Err() == nil {
			if r.failures != nil {
				r.failures.Inc()
			}
			if log, left := failures.failed(time.Now()); log {
				r.Log.ErrorContext(ctx, "outbox relay failed; will retry", "err", err.Error(), "failures_not_logged", left)
			}
		} else if ended, count := failures.succeeded(); ended {
			r.Log.InfoContext(ctx, "outbox relay recovered", "failures", count)
		}
		if err == nil && (n >= batch || (r.Wake == nil && n > 0)) {
			p.next(began, n)
			continue // more are waiting
		}
		spacing := p.next(began, n)
		wait := interval
		if err != nil || r.held.Load() {
			// A failed round (an outage) is retried sooner, and so is one that left a slot to
			// another replica: that one's round may have missed rows this process committed.
			wait = min(interval, time.Second)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
			continue
		case <-r.Wake:
		}
		// Woken: let what commits within the spacing of the last round join this one.
		if wait := spacing - time.Since(began); wait > 0 && err == nil {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return nil
			case <-timer.C:
			}
		}
		// Wake-ups that came meanwhile are answered by the round about to start.
		select {
		case <-r.Wake:
		default:
		}
	}
}

// RelayOnce publishes at most one batch of every key slot it can claim and answers how
// many rows it published. A round costs the same few statements and one produce however
// many slots have rows: the slots are claimed in one statement, their rows read in one,
// published in one write, deleted in one and released in one (a round per slot made an
// event's relay cost four statements and a produce of its own at a checkout's rate).
func (r *Relay) RelayOnce(ctx context.Context) (int, error) {
	conn, err := r.Pool.Acquire(ctx)
	if err != nil {
		return 0, fmt.Errorf("outbox connection: %w", err)
	}
	defer conn.Release()
	// The slots that have rows, looking at the oldest rows only (the partial index serves
	// it), each claimed unless another replica holds it. The lock call stays out of the
	// DISTINCT subquery (a volatile function is not pushed into it): one call per slot.
	rows, err := conn.Query(ctx, `SELECT s, pg_try_advisory_lock($1, s) FROM (SELECT DISTINCT `+slotExpr+` AS s FROM (SELECT key FROM outbox
		WHERE published_at IS NULL ORDER BY id LIMIT 1000) o) d`, relayLockClass)
	if err != nil {
		return 0, fmt.Errorf("claim outbox slots: %w", err)
	}
	type claim struct {
		Slot int32
		Got  bool
	}
	claims, err := pgx.CollectRows(rows, pgx.RowToStructByPos[claim])
	if err != nil {
		return 0, fmt.Errorf("claim outbox slots: %w", err)
	}
	var slots []int32
	for _, c := range claims {
		if c.Got {
			slots = append(slots, c.Slot)
		}
	}
	r.held.Store(len(slots) < len(claims))
	if len(slots) == 0 {
		return 0, nil
	}
	n, err := r.relaySlots(ctx, conn.Conn(), slots)
	var released int
	uerr := conn.QueryRow(context.WithoutCancel(ctx), `SELECT count(*) FILTER (WHERE pg_advisory_unlock($1, s)) FROM unnest($2::int4[]) s`,
		relayLockClass, slots).Scan(&released)
	if uerr != nil || released != len(slots) {
		// A session lock must not go back to the pool with the connection: close it.
		_ = conn.Hijack().Close(context.WithoutCancel(ctx))
		return n, errors.Join(err, fmt.Errorf("release outbox slots %v: released %d, %v", slots, released, uerr))
	}
	r.vacuum(ctx, conn.Conn(), n)
	return n, err
}

// vacuum counts the rows a round deleted and vacuums the outbox once VacuumEvery have
// piled up. SKIP_LOCKED: a replica already vacuuming it is enough. TRUNCATE false: giving
// the emptied pages back takes an exclusive lock that holds up the writers' inserts (every
// order's commit) for up to 20 ms, and new rows reuse the pages anyway. A failure is
// logged, not the round's: the rows were published and deleted, and the next vacuum
// catches up.
func (r *Relay) vacuum(ctx context.Context, conn *pgx.Conn, deleted int) {
	every := r.VacuumEvery
	if every == 0 {
		every = 1000
	}
	if every < 0 || r.deleted.Add(int64(deleted)) < int64(every) {
		return
	}
	r.deleted.Store(0)
	if _, err := conn.Exec(ctx, `VACUUM (SKIP_LOCKED, TRUNCATE false) outbox`); err != nil {
		r.Log.WarnContext(ctx, "outbox vacuum failed", "err", err.Error())
		return
	}
	if r.vacuums != nil {
		r.vacuums.Inc()
	}
}

// relaySlots publishes the oldest rows of the claimed slots (up to a batch per slot), then
// deletes them. Rows are read and written in id order, so one key's events (one slot, one
// partition) leave in the order they were written.
func (r *Relay) relaySlots(ctx context.Context, conn *pgx.Conn, slots []int32) (int, error) {
	batch := r.BatchSize
	if batch == 0 {
		batch = 100
	}
	// The headers come as two arrays, names and values in jsonb's order, which the scan
	// turns into the message's headers as they are: decoding the jsonb with encoding/json
	// (a map per row, by reflection) was a third of the relay's CPU.
	rows, err := conn.Query(ctx, `SELECT o.id, o.topic, o.key, o.payload, h.names, h.vals FROM outbox o,
		LATERAL (SELECT array_agg(e.key), array_agg(coalesce(e.value, '')) FROM jsonb_each_text(o.headers) e) h(names, vals)
		WHERE o.published_at IS NULL AND `+slotExpr+` = ANY($1) ORDER BY o.id LIMIT $2`, slots, batch*len(slots))
	if err != nil {
		return 0, fmt.Errorf("read outbox slots %v: %w", slots, err)
	}
	buf := r.buffers()
	defer r.keep(buf)
	// Scanned into variables of the round, not the loop's, which would each escape per row.
	var id int64
	var names []headerName
	var vals [][]byte
	for rows.Next() {
		buf.msgs = append(buf.msgs, kafkago.Message{})
		m := &buf.msgs[len(buf.msgs)-1]
		if err := rows.Scan(&id, &m.Topic, &m.Key, &m.Value, &names, &vals); err != nil {
			rows.Close()
			return 0, fmt.Errorf("scan outbox row: %w", err)
		}
		if len(names) != len(vals) {
			rows.Close()
			return 0, fmt.Errorf("scan outbox row %d: %d header names, %d values", id, len(names), len(vals))
		}
		// Room for the trace context, should the row have none (Enqueue without a span).
		m.Headers = make([]kafkago.Header, len(names), len(names)+1)
		for i, k := range names {
			m.Headers[i] = kafkago.Header{Key: string(k), Value: vals[i]}
		}
		buf.ids = append(buf.ids, id)
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read outbox slots %v: %w", slots, err)
	}
	ids, msgs := buf.ids, buf.msgs
	if len(msgs) == 0 {
		return 0, nil
	}
	// One producer span per event, child of the writer's context stored in the row; the
	// message carries the span's context, so the consumer's span is its child.
	tp := r.Tracer
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	tracer := tp.Tracer(tracerName)
	spans := slices.Grow(buf.spans, len(msgs))[:len(msgs)]
	buf.spans = spans
	var h Headers // the carrier escapes: one for the round
	for i := range msgs {
		h = msgs[i].Headers
		pctx := r.Producer.prop.Extract(ctx, &h)
		// The attributes are copied by the span's config: one slice serves every event.
		buf.attrs = messagingAttrs(buf.attrs[:0], msgs[i].Topic, h.Get(HeaderID), string(msgs[i].Key))
		var span trace.Span
		pctx, span = tracer.Start(pctx, buf.spanName(msgs[i].Topic), trace.WithSpanKind(trace.SpanKindProducer),
			trace.WithAttributes(buf.attrs...))
		r.Producer.prop.Inject(pctx, &h)
		msgs[i].Headers = h
		spans[i] = span
	}
	// WriteMessages copies the messages into its batches: msgs may be reused once it returns.
	err = r.Producer.w.WriteMessages(ctx, msgs...)
	for _, s := range spans {
		if err != nil {
			s.SetStatus(codes.Error, err.Error())
		}
		s.End()
	}
	if err != nil {
		return 0, fmt.Errorf("publish %d outbox events: %w", len(msgs), err)
	}
	// Published rows are deleted, not kept: Kafka is the record of events, and payloads
	// (a verification code, say) should not linger in a table once delivered.
	if _, err := conn.Exec(ctx, `DELETE FROM outbox WHERE id = ANY($1)`, ids); err != nil {
		return 0, fmt.Errorf("remove published outbox rows: %w", err)
	}
	if r.published != nil {
		r.published.Add(float64(len(msgs)))
	}
	return len(msgs), nil
}

// headerName is an outbox header's name, scanned as the constant when it is one the store
// writes: a string allocated for each of an event's ten names was a tenth of a relay
// round's allocations.
type headerName string

func (n *headerName) ScanBytes(b []byte) error {
	switch string(b) {
	case HeaderID:
		*n = HeaderID
	case HeaderSource:
		*n = HeaderSource
	case HeaderSpecVersion:
		*n = HeaderSpecVersion
	case HeaderType:
		*n = HeaderType
	case HeaderTime:
		*n = HeaderTime
	case HeaderSubject:
		*n = HeaderSubject
	case HeaderDataSchema:
		*n = HeaderDataSchema
	case HeaderSchemaVersion:
		*n = HeaderSchemaVersion
	case HeaderContentType:
		*n = HeaderContentType
	case "traceparent":
		*n = "traceparent"
	case "tracestate":
		*n = "tracestate"
	case "baggage":
		*n = "baggage"
	default:
		*n = headerName(b)
	}
	return nil
}

// RelayOption configures RunRelay.
type RelayOption func(*Relay, *relayOpts)

type relayOpts struct{ reg prometheus.Registerer }

// WithRelayMetrics registers the outbox metrics on reg: hangar_outbox_depth,
// hangar_outbox_oldest_age_seconds (read at scrape time), hangar_outbox_published_total and
// hangar_outbox_relay_failures_total.
func WithRelayMetrics(reg prometheus.Registerer) RelayOption {
	return func(_ *Relay, o *relayOpts) { o.reg = reg }
}

// WithRelayTracer traces each publish with tp.
func WithRelayTracer(tp trace.TracerProvider) RelayOption {
	return func(r *Relay, _ *relayOpts) { r.Tracer = tp }
}

// RunRelay relays pool's outbox to brokers until ctx ends. Without brokers it logs that
// events stay in the outbox (they are relayed once the service runs with Kafka) and returns.
func RunRelay(ctx context.Context, brokers []string, pool *pgxpool.Pool, prop propagation.TextMapPropagator, log *slog.Logger, opts ...RelayOption) {
	r := &Relay{Pool: pool, Log: log}
	var o relayOpts
	for _, f := range opts {
		f(r, &o)
	}
	if o.reg != nil {
		if err := r.register(o.reg); err != nil {
			log.ErrorContext(ctx, "outbox metrics not registered", "err", err.Error())
		}
	}
	if len(brokers) == 0 {
		log.WarnContext(ctx, "no KAFKA_BROKERS: events stay in the outbox")
		return
	}
	r.Producer = NewProducer(brokers, prop)
	defer r.Producer.Close()
	if r.Wake == nil {
		r.Wake = db.OutboxWrites(pool)
	}
	_ = r.Run(ctx)
}

func (r *Relay) register(reg prometheus.Registerer) error {
	r.published = registerOrReuse(reg, prometheus.NewCounter(prometheus.CounterOpts{
		Name: "hangar_outbox_published_total", Help: "Outbox events published to Kafka."}))
	r.failures = registerOrReuse(reg, prometheus.NewCounter(prometheus.CounterOpts{
		Name: "hangar_outbox_relay_failures_total", Help: "Outbox relay rounds that failed (and will be retried)."}))
	r.vacuums = registerOrReuse(reg, prometheus.NewCounter(prometheus.CounterOpts{
		Name: "hangar_outbox_vacuums_total", Help: "Vacuums of the outbox run by its relay (see Relay.VacuumEvery)."}))
	return reg.Register(&outboxCollector{pool: r.Pool,
		depth: prometheus.NewDesc("hangar_outbox_depth", "Events in the outbox waiting to be published.", nil, nil),
		age:   prometheus.NewDesc("hangar_outbox_oldest_age_seconds", "Age of the oldest event waiting in the outbox (0 when empty).", nil, nil),
	})
}

// outboxCollector reads the outbox's depth and oldest age when scraped, so the numbers are
// current whichever replica is scraped and cost nothing between scrapes.
type outboxCollector struct {
	pool       *pgxpool.Pool
	depth, age *prometheus.Desc
}

func (c *outboxCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.depth; ch <- c.age }

func (c *outboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var n int64
	var age float64
	err := c.pool.QueryRow(ctx, `SELECT count(*), coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8
		FROM outbox WHERE published_at IS NULL`).Scan(&n, &age)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.depth, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.depth, prometheus.GaugeValue, float64(n))
	ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, age)
}

// registerOrReuse registers c, or answers the equal collector already registered (two
// consumers or relays of one service share a registry).
func registerOrReuse[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if old, ok := are.ExistingCollector.(C); ok {
				return old
			}
		}
	}
	return c
}

// messagingAttrs appends a message's span attributes to attrs.
func messagingAttrs(attrs []attribute.KeyValue, topic, id, key string) []attribute.KeyValue {
	return append(attrs,
		attribute.String("messaging.system", "kafka"),
		attribute.String("messaging.destination.name", topic),
		attribute.String("messaging.message.id", id),
		attribute.String("messaging.kafka.message.key", key),
	)
}
