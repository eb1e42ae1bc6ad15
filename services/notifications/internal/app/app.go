// Package app is the notifications service's use cases: turn an event into the e-mails it
// causes (queued in the event's inbox transaction), and send queued e-mails over SMTP with
// backoff.
package app

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar/hangar/services/notifications/internal/adapters"
	"github.com/hangar/hangar/services/notifications/internal/domain"
)

// Mailer sends one message. Errors wrapping adapters.ErrPermanent are not retried.
type Mailer interface {
	Send(ctx context.Context, m domain.Message) error
}

// SenderPolicy tunes delivery.
type SenderPolicy struct {
	Interval    time.Duration // idle poll; default 250 ms
	Lease       time.Duration // how long one send and its record may take; default LeaseFor(30 s)
	MaxAttempts int           // then the message is given up; default 12
	BaseBackoff time.Duration // first retry delay, doubling; default 2 s
	MaxBackoff  time.Duration // default 15 min
	Batch       int           // messages claimed per statement; default 20
	// Window is how long after its claim a batch's sends may start (default 5 s); the
	// claim's lease is Window + Lease. Sends take milliseconds, so a batch ends well within
	// it unless the relay is slow; a sender that dies holds its mails that much longer.
	Window time.Duration
}

// LeaseFor answers the send lease for a mailer whose Send takes at most maxSend. The lease
// is how long a claimed message is held from other senders, so it must outlast a live
// send and the write that records it (a margin of 10 s for that write on a loaded
// database), or a second sender could send the message again while the first still
// works. It is also how long a message waits after its sender died mid-send (kill -9,
// a lost node) before another sends it: so no longer than that.
func LeaseFor(maxSend time.Duration) time.Duration { return maxSend + 10*time.Second }

// Service is the notifications use cases.
type Service struct {
	render *domain.Renderer
	store  *adapters.Store
	prop   propagation.TextMapPropagator
	tracer trace.Tracer
	log    *slog.Logger
	now    func() time.Time

	sent     *prometheus.CounterVec
	failures *prometheus.CounterVec
}

// New builds the service; its metrics go to reg.
func New(render *domain.Renderer, store *adapters.Store, prop propagation.TextMapPropagator, tp trace.TracerProvider, reg prometheus.Registerer, log *slog.Logger) *Service {
	s := &Service{render: render, store: store, prop: prop, tracer: tp.Tracer("github.com/hangar/hangar/services/notifications"), log: log, now: time.Now,
		sent: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_notifications_sent_total",
			Help: "E-mails handed to the SMTP relay, by template."}, []string{"template"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_notifications_send_failures_total",
			Help: "Failed SMTP sends, by template and kind (temporary: retried; permanent: given up)."}, []string{"template", "kind"}),
	}
	reg.MustRegister(s.sent, s.failures, &pendingCollector{store: store,
		n:   prometheus.NewDesc("hangar_notifications_pending", "E-mails queued and not yet sent.", nil, nil),
		age: prometheus.NewDesc("hangar_notifications_oldest_pending_seconds", "Age of the oldest queued e-mail (0 when none).", nil, nil)})
	return s
}

// Mails are the rendered e-mails of a batch of events, to be queued together, with the
// trace context each event's sends continue.
type Mails struct {
	msgs   []domain.Message
	traces map[string]map[string]string // by event id
}

// add adds msgs, rendered in ctx, to b.
func (s *Service) add(ctx context.Context, b *Mails, msgs []domain.Message, err error) error {
	if err != nil {
		return err
	}
	if len(msgs) > 0 {
		carrier := propagation.MapCarrier{}
		s.prop.Inject(ctx, carrier)
		if b.traces == nil {
			b.traces = map[string]map[string]string{}
		}
		b.traces[msgs[0].EventID] = carrier
	}
	b.msgs = append(b.msgs, msgs...)
	return nil
}

// EventSpan starts the span of one event of a batch of several (the batch's consumer span
// in ctx has many producers, so it only links them), or of an event retried alone after its
// batch failed (ctx has no span then): a child of the event's producer span,
// read from carrier (its Kafka headers), linked to the batch's, so that each mail's trace
// runs unbroken from the request that caused it to its SMTP send.
func (s *Service) EventSpan(ctx context.Context, topic, eventID string, carrier propagation.TextMapCarrier) (context.Context, trace.Span) {
	var links []trace.Link
	if batch := trace.LinkFromContext(ctx); batch.SpanContext.IsValid() {
		links = append(links, batch)
	}
	return s.tracer.Start(s.prop.Extract(ctx, carrier), "process "+topic, trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithLinks(links...), trace.WithAttributes(attribute.String("messaging.system", "kafka"),
			attribute.String("messaging.destination.name", topic), attribute.String("messaging.message.id", eventID)))
}

// Receipt renders the buyer's receipt of a completed order into b.
func (s *Service) Receipt(ctx context.Context, b *Mails, eventID string, r domain.Receipt) error {
	msgs, err := s.render.Receipt(eventID, r)
	return s.add(ctx, b, msgs, err)
}

// GiftCertificate renders the certificate to its buyer and, where given, its recipient.
func (s *Service) GiftCertificate(ctx context.Context, b *Mails, eventID string, g domain.GiftCertificate) error {
	msgs, err := s.render.GiftCertificate(eventID, g)
	return s.add(ctx, b, msgs, err)
}

// VerificationCode renders a military verification code.
func (s *Service) VerificationCode(ctx context.Context, b *Mails, eventID string, v domain.VerificationCode) error {
	msgs, err := s.render.VerificationCode(eventID, v)
	return s.add(ctx, b, msgs, err)
}

// Welcome renders the welcome of a new account.
func (s *Service) Welcome(ctx context.Context, b *Mails, eventID string, w domain.Welcome) error {
	msgs, err := s.render.Welcome(eventID, w)
	return s.add(ctx, b, msgs, err)
}

// Dunning renders a renewal notice.
func (s *Service) Dunning(ctx context.Context, b *Mails, eventID string, d domain.Dunning) error {
	msgs, err := s.render.Dunning(eventID, d)
	return s.add(ctx, b, msgs, err)
}

// Queue writes b's mails in tx, the inbox transaction of their events, in one statement.
// Their sends continue the trace of the context each was rendered in.
func (s *Service) Queue(ctx context.Context, tx pgx.Tx, b *Mails) error {
	return s.store.Queue(ctx, tx, b.traces, b.msgs...)
}

// RunSender sends queued messages through m until ctx ends.
func (s *Service) RunSender(ctx context.Context, m Mailer, p SenderPolicy) {
	p = p.withDefaults()
	for ctx.Err() == nil {
		n, err := s.SendBatch(ctx, m, p)
		if err != nil && ctx.Err() == nil {
			s.log.ErrorContext(ctx, "mail sender failed; will retry", "err", err.Error())
		}
		if n == p.Batch && err == nil {
			continue // more may be due at once
		}
		select {
		case <-ctx.Done():
		case <-time.After(p.Interval):
		}
	}
}

func (p SenderPolicy) withDefaults() SenderPolicy {
	if p.Interval <= 0 {
		p.Interval = 250 * time.Millisecond
	}
	if p.Lease <= 0 {
		p.Lease = LeaseFor(30 * time.Second)
	}
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 12
	}
	if p.BaseBackoff <= 0 {
		p.BaseBackoff = 2 * time.Second
	}
	if p.MaxBackoff <= 0 {
		p.MaxBackoff = 15 * time.Minute
	}
	if p.Batch <= 0 {
		p.Batch = 20
	}
	if p.Window <= 0 {
		p.Window = 5 * time.Second
	}
	return p
}

// SendBatch claims up to p.Batch due messages in one statement, sends them one after
// another, and records the delivered ones in one statement; it answers how many it
// claimed. The claim leases them for p.Window + p.Lease, and a send starts only within
// p.Window of the claim (measured from before it, so a slow database shortens the window,
// never the lease): every started send and the write that records it end within the
// lease, so no other sender can take a message this one is sending. What the window leaves
// unsent (a slow relay) goes back to the queue at once, and so does what shutdown leaves.
func (s *Service) SendBatch(ctx context.Context, m Mailer, p SenderPolicy) (int, error) {
	p = p.withDefaults()
	start := s.now()
	batch, err := s.store.Claim(ctx, p.Window+p.Lease, p.Batch)
	if err != nil || len(batch) == 0 {
		return 0, err
	}
	var sent, unsent []string
	var errs []error
	for i, o := range batch {
		if ctx.Err() != nil || s.now().Sub(start) >= p.Window {
			for _, o := range batch[i:] {
				unsent = append(unsent, o.ID)
			}
			break
		}
		ok, err := s.send(ctx, m, p, o)
		if ok {
			sent = append(sent, o.ID)
		}
		errs = append(errs, err)
	}
	// Recorded even when shutdown began meanwhile: a delivered mail not recorded would go
	// again once its lease ran out. The lease leaves 10 s for these writes.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	errs = append(errs, s.store.Sent(wctx, sent...), s.store.Release(wctx, unsent...))
	return len(batch), errors.Join(errs...)
}

// send sends o; ok: delivered. A failure is recorded (retry with backoff, or given up).
func (s *Service) send(ctx context.Context, m Mailer, p SenderPolicy, o adapters.Outgoing) (ok bool, err error) {
	pctx := s.prop.Extract(ctx, propagation.MapCarrier(o.Trace))
	sctx, span := s.tracer.Start(pctx, "smtp send "+o.Template, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("hangar.mail.template", o.Template), attribute.String("hangar.mail.message_id", o.ID),
		attribute.String("messaging.message.id", o.EventID), attribute.Int("hangar.mail.attempt", o.Attempts)))
	defer span.End()
	log := s.log.With("message_id", o.ID, "event_id", o.EventID, "template", o.Template, "attempt", o.Attempts)
	serr := m.Send(sctx, o.Message)
	if serr == nil {
		s.sent.WithLabelValues(o.Template).Inc()
		log.InfoContext(sctx, "e-mail sent")
		return true, nil
	}
	span.RecordError(serr)
	span.SetStatus(codes.Error, serr.Error())
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if errors.Is(serr, adapters.ErrPermanent) || o.Attempts >= p.MaxAttempts {
		s.failures.WithLabelValues(o.Template, "permanent").Inc()
		log.ErrorContext(sctx, "e-mail given up", "err", serr.Error())
		return false, s.store.Failed(wctx, o.ID, serr)
	}
	s.failures.WithLabelValues(o.Template, "temporary").Inc()
	delay := min(p.BaseBackoff<<(o.Attempts-1), p.MaxBackoff)
	delay = delay/2 + rand.N(delay/2+1) // jitter: replicas retrying one relay do not stampede
	log.WarnContext(sctx, "e-mail send failed; will retry", "retry_in", delay.String(), "err", serr.Error())
	return false, s.store.Retry(wctx, o.ID, s.now().Add(delay), serr)
}

// pendingCollector reads the queue at scrape time.
type pendingCollector struct {
	store  *adapters.Store
	n, age *prometheus.Desc
}

func (c *pendingCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.n; ch <- c.age }

func (c *pendingCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	n, age, err := c.store.Pending(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.n, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.n, prometheus.GaugeValue, float64(n))
	ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, age.Seconds())
}
