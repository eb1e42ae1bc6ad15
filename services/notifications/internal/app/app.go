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
	Lease       time.Duration // how long a claimed message is reserved; default LeaseFor(30 s)
	MaxAttempts int           // then the message is given up; default 12
	BaseBackoff time.Duration // first retry delay, doubling; default 2 s
	MaxBackoff  time.Duration // default 15 min
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

// Receipt queues the buyer's receipt of a completed order.
func (s *Service) Receipt(ctx context.Context, tx pgx.Tx, eventID string, r domain.Receipt) error {
	msgs, err := s.render.Receipt(eventID, r)
	return s.queue(ctx, tx, msgs, err)
}

// GiftCertificate queues the certificate to its buyer and, where given, its recipient.
func (s *Service) GiftCertificate(ctx context.Context, tx pgx.Tx, eventID string, g domain.GiftCertificate) error {
	msgs, err := s.render.GiftCertificate(eventID, g)
	return s.queue(ctx, tx, msgs, err)
}

// VerificationCode queues a military verification code.
func (s *Service) VerificationCode(ctx context.Context, tx pgx.Tx, eventID string, v domain.VerificationCode) error {
	msgs, err := s.render.VerificationCode(eventID, v)
	return s.queue(ctx, tx, msgs, err)
}

// Welcome queues the welcome of a new account.
func (s *Service) Welcome(ctx context.Context, tx pgx.Tx, eventID string, w domain.Welcome) error {
	msgs, err := s.render.Welcome(eventID, w)
	return s.queue(ctx, tx, msgs, err)
}

// Dunning queues a renewal notice.
func (s *Service) Dunning(ctx context.Context, tx pgx.Tx, eventID string, d domain.Dunning) error {
	msgs, err := s.render.Dunning(eventID, d)
	return s.queue(ctx, tx, msgs, err)
}

func (s *Service) queue(ctx context.Context, tx pgx.Tx, msgs []domain.Message, err error) error {
	if err != nil {
		return err
	}
	// The sender continues the trace of the event being handled.
	carrier := propagation.MapCarrier{}
	s.prop.Inject(ctx, carrier)
	return s.store.Queue(ctx, tx, carrier, msgs...)
}

// RunSender sends queued messages through m until ctx ends.
func (s *Service) RunSender(ctx context.Context, m Mailer, p SenderPolicy) {
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
	for ctx.Err() == nil {
		sent, err := s.SendOne(ctx, m, p)
		if err != nil && ctx.Err() == nil {
			s.log.ErrorContext(ctx, "mail sender failed; will retry", "err", err.Error())
		}
		if sent && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(p.Interval):
		}
	}
}

// SendOne sends the oldest due message, if any, and answers whether there was one.
func (s *Service) SendOne(ctx context.Context, m Mailer, p SenderPolicy) (bool, error) {
	o, ok, err := s.store.Claim(ctx, p.Lease)
	if err != nil || !ok {
		return false, err
	}
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
		return true, s.store.Sent(ctx, o.ID)
	}
	span.RecordError(serr)
	span.SetStatus(codes.Error, serr.Error())
	if errors.Is(serr, adapters.ErrPermanent) || o.Attempts >= p.MaxAttempts {
		s.failures.WithLabelValues(o.Template, "permanent").Inc()
		log.ErrorContext(sctx, "e-mail given up", "err", serr.Error())
		return true, s.store.Failed(ctx, o.ID, serr)
	}
	s.failures.WithLabelValues(o.Template, "temporary").Inc()
	delay := min(p.BaseBackoff<<(o.Attempts-1), p.MaxBackoff)
	delay = delay/2 + rand.N(delay/2+1) // jitter: replicas retrying one relay do not stampede
	log.WarnContext(sctx, "e-mail send failed; will retry", "retry_in", delay.String(), "err", serr.Error())
	return true, s.store.Retry(ctx, o.ID, s.now().Add(delay), serr)
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
