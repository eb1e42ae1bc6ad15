// Package app is the notifications service's use cases: turn an event into the e-mails it
// causes (queued in the event's inbox transaction), and send queued e-mails over SMTP with
// backoff.
package app

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/lease"
	"github.com/hangar/hangar/services/notifications/internal/domain"
)

// Mailer sends one message. Errors wrapping domain.ErrPermanent are not retried.
type Mailer interface {
	Send(ctx context.Context, m domain.Message) error
}

// Queue is the send queue of the senders and the poll: each call is one statement, its
// own transaction, committed when it returns.
type Queue interface {
	// Claim takes up to n due messages and leases them for lease; doubtful are those
	// handed to the relay with no outcome recorded, now taken as sent (see Handing).
	Claim(ctx context.Context, lease time.Duration, n int) (claimed []domain.Outgoing, doubtful []string, err error)
	// Every write about a claimed message carries its claim's fencing token (domain.Held)
	// and does nothing once another claim took the message over.
	//
	// Handing records that the held messages are about to be handed to the relay, in one
	// statement; it answers the ids of those still held, and no send may start unless its
	// id is among them (one missing: the lease was lost).
	Handing(ctx context.Context, held ...domain.Held) (handed map[string]bool, err error)
	// Sent records the delivery of the held messages.
	Sent(ctx context.Context, held ...domain.Held) error
	// Release puts held, unattempted messages back, due now, their claim's attempt given
	// back.
	Release(ctx context.Context, held ...domain.Held) error
	// RenewLeases extends the leases still held (the senders' heartbeat).
	RenewLeases(ctx context.Context, held []domain.Held, d time.Duration) error
	// Retry records a refused attempt and when to try again.
	Retry(ctx context.Context, h domain.Held, at time.Time, cause error) error
	// Failed gives a message up.
	Failed(ctx context.Context, h domain.Held, cause error) error
	// Pending counts the messages not sent nor given up, and the age of the oldest.
	Pending(ctx context.Context) (n int64, oldest time.Duration, err error)
}

// Inbox is the queue's writes in the inbox transaction of a batch of events, which the
// event consumer begins and commits (the batch's event ids commit with its mails): the
// consumer's handler (ports) binds it to that transaction and hands it to Service.Queue.
type Inbox interface {
	// Queue writes msgs, each with its event's trace context (traces, by event id), due
	// at once (lease 0) or claimed for this process's senders for lease, and answers the
	// ids it wrote (one already queued is left as it is).
	Queue(ctx context.Context, traces map[string]map[string]string, lease time.Duration, msgs ...domain.Message) ([]string, error)
	// Gate is the welcome gate: it records the accounts with a completed order (ordered)
	// and holds the welcomes of those without one (held, by account, kept with their
	// link's expiry and account kind), and answers the welcomes to send now.
	Gate(ctx context.Context, ordered []string, held map[string]domain.HeldWelcome, traces map[string]map[string]string) (release []domain.HeldWelcome, err error)
}

// SenderPolicy tunes delivery.
type SenderPolicy struct {
	// Interval is how often the process's poller claims due mails for its senders while it
	// finds some (default 1 s): retries after their backoff, what went back to the queue (a
	// handoff queue overflow, a stopping replica's), a dead process's once its lease ran
	// out, and mails queued where no sender runs. This process's new mails do not wait for
	// it: they are handed over.
	Interval time.Duration
	// Idle is how long the poller waits after a claim that found nothing (default 10 s),
	// unless this process gave it something to claim sooner: mails it queued due (its
	// senders had no room for them) or put back, which wake it once committed, and a retry
	// it scheduled, which wakes it when due. What it then still waits for is what other
	// processes leave: a stopping replica's mails, a dead one's leases (45 s at least). At 1 s
	// an idle replica claimed nothing once a second, its costliest statement.
	Idle        time.Duration
	Lease       time.Duration // how long one send and its record may take; default LeaseFor(30 s)
	MaxAttempts int           // then the message is given up; default 12
	BaseBackoff time.Duration // first retry delay, doubling; default 2 s
	MaxBackoff  time.Duration // default 15 min
	Batch       int           // messages claimed per statement, or handed to a sender together; default 20
	// Window is how long after its claim a batch's sends may start (default 5 s); the
	// claim's lease is Window + Lease. Sends take milliseconds, so a batch ends well within
	// it unless the relay is slow; a sender that dies holds its mails that much longer.
	Window time.Duration
	// Handoff is how many new mails may wait in memory for this process's senders (default
	// 500); what does not fit goes to the poll.
	Handoff int
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
	store  Queue
	prop   propagation.TextMapPropagator
	tracer trace.Tracer
	log    *slog.Logger
	now    func() time.Time
	after  func(time.Duration) <-chan time.Time // the poll's timer; tests fire it themselves

	sent     *prometheus.CounterVec
	failures *prometheus.CounterVec
	released prometheus.Counter
	doubtful prometheus.Counter
	lost     prometheus.Counter

	// recordSent, when set, records delivered mails instead of store.Sent: tests make it
	// fail, as a database restart between a send and its record does.
	recordSent func(ctx context.Context, held ...domain.Held) error

	handoff atomic.Pointer[handoff] // nil: no sender runs in this process
}

// New builds the service; its metrics go to reg.
func New(render *domain.Renderer, store Queue, prop propagation.TextMapPropagator, tp trace.TracerProvider, reg prometheus.Registerer, log *slog.Logger) *Service {
	s := &Service{render: render, store: store, prop: prop, tracer: tp.Tracer("github.com/hangar/hangar/services/notifications"), log: log, now: time.Now, after: time.After,
		sent: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_notifications_sent_total",
			Help: "E-mails handed to the SMTP relay, by template."}, []string{"template"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_notifications_send_failures_total",
			Help: "Failed SMTP sends, by template and kind (temporary: retried; permanent: given up)."}, []string{"template", "kind"}),
		released: prometheus.NewCounter(prometheus.CounterOpts{Name: "hangar_notifications_handoff_released_total",
			Help: "New e-mails this process's senders had no room for (or still waiting for them when they stopped), put back in the queue for the poll."}),
		doubtful: prometheus.NewCounter(prometheus.CounterOpts{Name: "hangar_notifications_outcome_unknown_total",
			Help: "E-mails handed to the relay whose outcome was never recorded (the sender died or lost its database), taken as sent rather than sent twice."}),
		lost: prometheus.NewCounter(prometheus.CounterOpts{Name: "hangar_notifications_lease_lost_total",
			Help: "Claimed e-mails a sender did not send because its lease had been taken over (it was paused or slow past the lease)."}),
	}
	reg.MustRegister(s.sent, s.failures, s.released, s.doubtful, s.lost, &pendingCollector{store: store,
		n:   prometheus.NewDesc("hangar_notifications_pending", "E-mails queued and not yet sent.", nil, nil),
		age: prometheus.NewDesc("hangar_notifications_oldest_pending_seconds", "Age of the oldest queued e-mail (0 when none).", nil, nil)})
	return s
}

// Mails are the rendered e-mails of a batch of events, to be queued together, with the
// trace context each event's sends continue.
type Mails struct {
	msgs   []domain.Message
	traces map[string]map[string]string // by event id
	// The welcome gate (Inbox.Gate): the welcomes that wait for their account's first
	// completed order, by account, and the accounts with a completed order in the batch.
	held    map[string]domain.HeldWelcome
	ordered []string
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

// WelcomeOnFirstOrder renders the welcome of an account checkout created for a buyer (its
// set-password link in it), to be sent only once the account has a completed order: a
// buyer whose card was declined was never a customer, and is not welcomed as one. The
// account's first order-completed event (OrderCompleted) releases it, whichever of the two
// comes first. Should the link run out before then, the welcome sent is rendered again
// without it, pointing at "Forgot password" (Queue).
func (s *Service) WelcomeOnFirstOrder(ctx context.Context, b *Mails, eventID, accountUUID string, w domain.Welcome) error {
	var held Mails
	msgs, err := s.render.Welcome(eventID, w)
	if err := s.add(ctx, &held, msgs, err); err != nil {
		return err
	}
	if accountUUID == "" || len(held.msgs) != 1 {
		return errs.E(errs.Invalid, "welcome of event %s: no account, or not one message", eventID)
	}
	if b.held == nil {
		b.held = map[string]domain.HeldWelcome{}
	}
	if b.traces == nil {
		b.traces = map[string]map[string]string{}
	}
	b.held[accountUUID] = domain.HeldWelcome{Outgoing: domain.Outgoing{Message: held.msgs[0]}, AccountKind: w.AccountKind, LinkExpiresAt: w.ExpiresAt}
	maps.Copy(b.traces, held.traces)
	return nil
}

// OrderCompleted notes that the account has a completed order: its welcome, held until
// then, is sent with this batch.
func (s *Service) OrderCompleted(b *Mails, accountUUID string) {
	if accountUUID != "" {
		b.ordered = append(b.ordered, accountUUID)
	}
}

// PasswordReset renders the e-mail of a "forgot password" link.
func (s *Service) PasswordReset(ctx context.Context, b *Mails, eventID string, p domain.PasswordReset) error {
	msgs, err := s.render.PasswordReset(eventID, p)
	return s.add(ctx, b, msgs, err)
}

// Invitation renders an organization's invitation.
func (s *Service) Invitation(ctx context.Context, b *Mails, eventID string, i domain.Invitation) error {
	msgs, err := s.render.Invitation(eventID, i)
	return s.add(ctx, b, msgs, err)
}

// PasswordChanged renders the notice of a password set by a reset link.
func (s *Service) PasswordChanged(ctx context.Context, b *Mails, eventID string, p domain.PasswordChanged) error {
	msgs, err := s.render.PasswordChanged(eventID, p)
	return s.add(ctx, b, msgs, err)
}

// Dunning renders a renewal notice.
func (s *Service) Dunning(ctx context.Context, b *Mails, eventID string, d domain.Dunning) error {
	msgs, err := s.render.Dunning(eventID, d)
	return s.add(ctx, b, msgs, err)
}

// Queue writes b's mails in in, the inbox transaction of their events, in one statement.
// Their sends continue the trace of the context each was rendered in.
//
// When this process runs senders and afterCommit (kafka.AfterCommit) will run a function
// once the transaction committed, the mails are written claimed for them and handed over then: sent at
// once, without the poll's wait nor its claim statement (the costliest of the service:
// every poll walks the dead index entries that each mail's claim and record leave behind
// until a vacuum). Otherwise (nil afterCommit, or no sender here) they are written due, for
// the poll, and so are they when the handoff queue has no room for them as it stands (a
// backlog: the consumer outruns the senders): claimed only to be put back, they would cost
// a statement and a row version more each.
func (s *Service) Queue(ctx context.Context, in Inbox, b *Mails, afterCommit func(context.Context, func()) bool) error {
	if len(b.held) > 0 || len(b.ordered) > 0 {
		release, err := in.Gate(ctx, b.ordered, b.held, b.traces)
		if err != nil {
			return err
		}
		if len(release) > 0 && b.traces == nil {
			b.traces = map[string]map[string]string{}
		}
		now := s.now()
		for _, o := range release {
			if !o.LinkExpiresAt.IsZero() && !now.Before(o.LinkExpiresAt) {
				// Its link ran out while it waited for the first order: a dead link would
				// leave the buyer at an error page.
				msgs, err := s.render.Welcome(o.EventID, domain.Welcome{Email: o.To, AccountKind: o.AccountKind}.Expired())
				if err != nil {
					return err
				}
				o.Message = msgs[0]
			}
			b.msgs = append(b.msgs, o.Message)
			if _, ok := b.traces[o.EventID]; !ok {
				b.traces[o.EventID] = o.Trace
			}
		}
	}
	var lease time.Duration
	var handed []claimed // filled below, before the transaction commits and the function runs
	if h := s.handoff.Load(); h != nil && afterCommit != nil && len(b.msgs) > 0 && h.room() >= len(b.msgs) &&
		afterCommit(ctx, func() { s.handOff(ctx, h, handed) }) {
		lease = h.lease
	}
	at := s.now() // before the claim, as the poll's claim takes its start
	written, err := in.Queue(ctx, b.traces, lease, b.msgs...)
	if err != nil {
		return err
	}
	if lease == 0 {
		// Written due: this process's poll claims them once they are committed (without a
		// commit hook, at once; a poll that runs before the commit leaves them to the next).
		if h := s.handoff.Load(); h != nil && len(b.msgs) > 0 && (afterCommit == nil || !afterCommit(ctx, h.poke)) {
			h.poke()
		}
		return nil
	}
	isNew := make(map[string]bool, len(written))
	for _, id := range written {
		isNew[id] = true
	}
	for _, m := range b.msgs { // in render order: an order's mails go in the order of its events
		if isNew[m.ID] {
			handed = append(handed, claimed{Outgoing: domain.Outgoing{Message: m, Trace: b.traces[m.EventID], Attempts: 1, Fence: domain.FirstFence}, at: at})
			delete(isNew, m.ID)
		}
	}
	return nil
}

// claimed is a mail this process holds the lease of, and when its claim began: its send
// may start only within the policy's Window of that (see claim).
type claimed struct {
	domain.Outgoing
	at     time.Time
	polled bool // claimed by the poll, not a new mail of the consumer's
}

// handoff is the queue from this process's consumer and its poller to its senders. A
// commit's mails go in chunks of up to a sender's batch, and a poll's claim in one chunk,
// each taken by one sender: they are sent, and recorded in one statement, together.
type handoff struct {
	lease   time.Duration // the senders' Window + Lease, written with each mail
	batch   int
	max     int            // mails that may wait
	waiting atomic.Int64   // mails put and not taken yet
	ch      chan []claimed // capacity max: it has room for every chunk put
	mu      sync.Mutex     // orders put against close: nothing is put once the senders stopped
	closed  bool
	polled  atomic.Bool   // a chunk of the poll's waits in ch (at most one does: runPoller)
	taken   chan struct{} // a token after each take: wakes the poll, waiting for room or its chunk's take
	wake    chan struct{} // a token when this process made mails due: the poll claims at once

	dueMu sync.Mutex
	due   []time.Time // when the retries this process scheduled fall due, for the poll
}

// poke wakes the poll: this process made mails due now.
func (h *handoff) poke() {
	select {
	case h.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// dueAt notes that a mail this process failed to send falls due again at t.
func (h *handoff) dueAt(t time.Time) {
	h.dueMu.Lock()
	h.due = append(h.due, t)
	h.dueMu.Unlock()
}

// retryMargin is how long after a retry's time the poll claims it: the claim compares it
// with the database's clock, which may lag this process's a little.
const retryMargin = 250 * time.Millisecond

// wait answers how long the poll waits at most, now, when it would otherwise wait d: until
// the next retry this process scheduled is due, if that is sooner. Retries due by now are
// forgotten: the poll about to run claims them.
func (h *handoff) wait(now time.Time, d time.Duration) time.Duration {
	h.dueMu.Lock()
	defer h.dueMu.Unlock()
	h.due = slices.DeleteFunc(h.due, func(t time.Time) bool { return !now.Before(t.Add(retryMargin)) })
	for _, t := range h.due {
		d = min(d, t.Add(retryMargin).Sub(now))
	}
	return d
}

// room is how many more mails may wait now.
func (h *handoff) room() int { return h.max - int(h.waiting.Load()) }

// put queues what fits without waiting (the consumer never waits for the senders), and
// answers the rest.
func (h *handoff) put(mails []claimed) (rest []claimed) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for len(mails) > 0 {
		n := min(len(mails), h.batch)
		if h.closed || h.room() < n {
			return mails
		}
		h.waiting.Add(int64(n))
		h.ch <- mails[:n] // never blocks: fewer chunks wait than mails, and ch holds max
		mails = mails[n:]
	}
	return nil
}

// took notes that a sender took chunk.
func (h *handoff) took(chunk []claimed) []claimed {
	h.waiting.Add(-int64(len(chunk)))
	if len(chunk) > 0 && chunk[0].polled {
		h.polled.Store(false)
	}
	select { // after the counts changed: the poll, woken, sees them
	case h.taken <- struct{}{}:
	default:
	}
	return chunk
}

// await waits until ready answers true, checking it again after each take; false: ctx
// ended first.
func (h *handoff) await(ctx context.Context, ready func() bool) bool {
	for !ready() {
		select {
		case <-ctx.Done():
			return false
		case <-h.taken:
		}
	}
	return true
}

// putPolled queues a poll's chunk (at most a batch), waiting for room rather than giving
// back what was just claimed; false: ctx ended first, and chunk was not queued.
func (h *handoff) putPolled(ctx context.Context, chunk []claimed) bool {
	for {
		if !h.await(ctx, func() bool { return h.room() >= len(chunk) }) {
			return false
		}
		h.mu.Lock()
		// The consumer may have taken the room meanwhile. (Not closed: that waits for the
		// poller to end.)
		if h.room() >= len(chunk) {
			h.waiting.Add(int64(len(chunk)))
			h.polled.Store(true) // before a sender can take it and clear it
			h.ch <- chunk        // never blocks: fewer chunks wait than mails
			h.mu.Unlock()
			return true
		}
		h.mu.Unlock()
	}
}

// close stops put and answers what no sender took.
func (h *handoff) close() (left []claimed) {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	for {
		select {
		case chunk := <-h.ch:
			left = append(left, h.took(chunk)...)
		default:
			return left
		}
	}
}

// handOff gives committed mails to the senders; what they have no room for goes back to
// the queue at once, due, in one statement, for the next poll (of any replica).
func (s *Service) handOff(ctx context.Context, h *handoff, mails []claimed) {
	s.putBack(ctx, h.put(mails))
}

// putBack returns mails this process holds to the queue, due at once and with their claim's
// attempt given back, in one statement. Should that fail, their lease runs out and a poll
// takes them then: late, never lost. Only the consumer's count as released (new mails the
// senders had no room for): the poll's were in the queue already.
func (s *Service) putBack(ctx context.Context, mails []claimed) {
	if len(mails) == 0 {
		return
	}
	ids := make([]domain.Held, len(mails))
	var fresh int
	for i, o := range mails {
		ids[i] = o.Held()
		if !o.polled {
			fresh++
		}
	}
	s.released.Add(float64(fresh))
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.store.Release(wctx, ids...); err != nil {
		s.log.WarnContext(ctx, "could not put mails back in the queue; they are sent once their lease runs out", "mails", len(ids), "err", err.Error())
		return
	}
	if h := s.handoff.Load(); h != nil {
		h.poke()
	}
}

// RunSenders sends mails through m with n senders until ctx ends: the mails this
// process's consumer hands over as it queues them, and those its one poller claims every
// p.Interval. One call per Service.
//
// The poll is the service's costliest statement, and it costs the same whether it finds
// mails or not: one poller per process keeps it at one per interval however many senders
// run, and hands what it claims to them through the consumer's queue, so a backlog is
// sent by all of them at once.
func (s *Service) RunSenders(ctx context.Context, m Mailer, p SenderPolicy, n int) {
	p = p.withDefaults()
	h := &handoff{lease: p.Window + p.Lease, batch: p.Batch, max: p.Handoff, ch: make(chan []claimed, p.Handoff),
		taken: make(chan struct{}, 1), wake: make(chan struct{}, 1)}
	s.handoff.Store(h)
	var wg sync.WaitGroup
	for range max(n, 1) {
		wg.Go(func() { s.runSender(ctx, m, p, h) })
	}
	wg.Go(func() { s.runPoller(ctx, p, h) })
	wg.Wait()
	s.handoff.Store(nil)
	// Mails handed over and not taken go back to the queue, due at once, rather than wait
	// for their lease (45 s): in a rolling deploy the other replicas' next polls send them.
	// A process that dies instead leaves them to the lease. (A sender that took some and
	// saw shutdown before sending them puts them back too: sendClaimed.)
	s.putBack(ctx, h.close())
}

// runSender sends what is handed over.
func (s *Service) runSender(ctx context.Context, m Mailer, p SenderPolicy, h *handoff) {
	for {
		select {
		case <-ctx.Done():
			return
		case chunk := <-h.ch:
			if err := s.sendClaimed(ctx, m, p, h.took(chunk)); err != nil && ctx.Err() == nil {
				s.log.ErrorContext(ctx, "mail sender failed; will retry", "err", err.Error())
			}
		}
	}
}

// runPoller claims due mails every p.Interval while it finds some, at once again after a
// full batch (more may be due), and otherwise every p.Idle, or sooner when woken (a mail of
// this process due: poke, dueAt); it hands them to the senders.
func (s *Service) runPoller(ctx context.Context, p SenderPolicy, h *handoff) {
	n := min(p.Batch, h.max) // one chunk, which the queue can hold
	wait := p.Interval
	for full := false; ; {
		if !full {
			select {
			case <-ctx.Done():
				return
			case <-s.after(h.wait(s.now(), wait)):
			case <-h.wake:
			}
		}
		// Claim only once the last chunk claimed was taken and a chunk fits: a claimed
		// mail's window runs from its claim, so it should not wait behind a queue of the
		// poll's own making (a slow relay would see them go late, back to the queue, and be
		// claimed again, round after round).
		if !h.await(ctx, func() bool { return !h.polled.Load() && h.room() >= n }) {
			return
		}
		h.wait(s.now(), 0) // the retries due by now are this claim's
		mails, err := s.claim(ctx, p, n)
		full = len(mails) == n && err == nil
		wait = p.Idle
		if err != nil || len(mails) > 0 {
			wait = p.Interval
		}
		if err != nil && ctx.Err() == nil {
			s.log.ErrorContext(ctx, "mail poll failed; will retry", "err", err.Error())
		}
		if len(mails) > 0 && !h.putPolled(ctx, mails) {
			s.putBack(ctx, mails) // shutdown: no sender will take them
			return
		}
	}
}

func (p SenderPolicy) withDefaults() SenderPolicy {
	if p.Interval <= 0 {
		p.Interval = time.Second
	}
	if p.Idle <= 0 {
		p.Idle = max(10*time.Second, p.Interval)
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
	if p.Handoff <= 0 {
		p.Handoff = 500
	}
	return p
}

// claim claims up to n due messages for sendClaimed. The claim leases them for p.Window +
// p.Lease, and a send starts only within p.Window of the claim (measured from before it,
// so a slow database shortens the window, never the lease): every started send and the
// write that records it end within the lease, so no other sender can take a message this
// one is sending.
func (s *Service) claim(ctx context.Context, p SenderPolicy, n int) ([]claimed, error) {
	start := s.now()
	batch, doubtful, err := s.store.Claim(ctx, p.Window+p.Lease, n)
	if err != nil {
		return nil, err
	}
	if len(doubtful) > 0 {
		s.doubtful.Add(float64(len(doubtful)))
		s.log.WarnContext(ctx, "e-mails handed to the relay with no outcome recorded are taken as sent, not sent again",
			"message_ids", doubtful)
	}
	mails := make([]claimed, len(batch))
	for i, o := range batch {
		mails[i] = claimed{Outgoing: o, at: start, polled: true}
	}
	return mails, nil
}

// sendClaimed sends claimed mails one after another, each only within p.Window of its
// claim, and records the delivered ones in one statement (a failure is recorded as it
// happens). What the window leaves unsent (a slow relay, a backed-up handoff queue) goes
// back to the queue at once, uncounted, and so does what shutdown leaves.
func (s *Service) sendClaimed(ctx context.Context, m Mailer, p SenderPolicy, batch []claimed) error {
	var sent, unsent []domain.Held
	var errs []error
	held := make([]domain.Held, len(batch))
	for i, o := range batch {
		held[i] = o.Held()
	}
	// The batch's leases are renewed while it is sent (a slow relay); a sender that stops
	// (paused, dead) stops renewing, and the next claim takes its mails over.
	stop := lease.Keeper{Every: p.Lease / 3, Timeout: p.Lease / 3, Log: s.log, What: "mails",
		Renew: func(ctx context.Context) error { return s.store.RenewLeases(ctx, held, p.Window+p.Lease) }}.Keep()
	defer stop()
	// Marked before the sends, committed, under the claim's tokens, in one statement for
	// the batch: should the sends' record below be lost, the next claim takes the mails for
	// sent instead of sending them again; and a sender whose lease was taken over (it was
	// paused) learns it here and does not send what another sender has sent or is sending.
	// A mail marked and then not sent (its window passed, shutdown, a refusal) has its mark
	// cleared by Release or Retry; only a crash in the middle of a batch leaves the rest of
	// it marked, taken for sent by the next claim and reported doubtful — the rule for the
	// one mail in flight, for the batch in flight (a chunk: an order's mails, or a poll's).
	var handed map[string]bool
	var due []domain.Held // those whose window has not passed yet
	for _, o := range batch {
		if s.now().Sub(o.at) < p.Window {
			due = append(due, o.Held())
		}
	}
	if len(due) > 0 && ctx.Err() == nil {
		var err error
		if handed, err = s.store.Handing(ctx, due...); err != nil {
			handed = nil
			errs = append(errs, err)
		}
	}
	for _, o := range batch {
		if handed == nil || ctx.Err() != nil || s.now().Sub(o.at) >= p.Window {
			unsent = append(unsent, o.Held())
			continue
		}
		if !handed[o.ID] {
			s.lost.Inc()
			s.log.WarnContext(ctx, "e-mail lease lost before its send (another sender took it over); not sent", "message_id", o.ID)
			continue
		}
		ok, err := s.send(ctx, m, p, o.Outgoing)
		if ok {
			sent = append(sent, o.Held())
		}
		errs = append(errs, err)
	}
	// Recorded even when shutdown began meanwhile: a delivered mail not recorded would go
	// again once its lease ran out. The lease leaves 10 s for these writes.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	record := s.store.Sent
	if s.recordSent != nil {
		record = s.recordSent
	}
	errs = append(errs, record(wctx, sent...))
	if err := s.store.Release(wctx, unsent...); err != nil {
		errs = append(errs, err)
	} else if h := s.handoff.Load(); h != nil && len(unsent) > 0 {
		h.poke()
	}
	return errors.Join(errs...)
}

// send sends o; ok: delivered. A failure is recorded (retry with backoff, or given up).
func (s *Service) send(ctx context.Context, m Mailer, p SenderPolicy, o domain.Outgoing) (ok bool, err error) {
	pctx := s.prop.Extract(ctx, propagation.MapCarrier(o.Trace))
	sctx, span := s.tracer.Start(pctx, "smtp send "+o.Template, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("hangar.mail.template", o.Template), attribute.String("hangar.mail.message_id", o.ID),
		attribute.String("messaging.message.id", o.EventID), attribute.Int("hangar.mail.attempt", o.Attempts)))
	defer span.End()
	// The mail's attributes go with each record rather than into a logger (Logger.With),
	// which formats them at once for every mail, even with "e-mail sent" below the level
	// logged; records list them first, as With's did.
	log := func(level slog.Level, msg string, more ...slog.Attr) {
		if !s.log.Enabled(sctx, level) {
			return
		}
		s.log.LogAttrs(sctx, level, msg, append([]slog.Attr{slog.String("message_id", o.ID), slog.String("event_id", o.EventID),
			slog.String("template", o.Template), slog.Int("attempt", o.Attempts)}, more...)...)
	}
	serr := m.Send(sctx, o.Message)
	if serr == nil {
		s.sent.WithLabelValues(o.Template).Inc()
		log(slog.LevelInfo, "e-mail sent")
		return true, nil
	}
	span.RecordError(serr)
	span.SetStatus(codes.Error, serr.Error())
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if errors.Is(serr, domain.ErrPermanent) || o.Attempts >= p.MaxAttempts {
		s.failures.WithLabelValues(o.Template, "permanent").Inc()
		log(slog.LevelError, "e-mail given up", slog.String("err", serr.Error()))
		return false, s.store.Failed(wctx, o.Held(), serr)
	}
	s.failures.WithLabelValues(o.Template, "temporary").Inc()
	delay := retryDelay(p, o.Attempts)
	log(slog.LevelWarn, "e-mail send failed; will retry", slog.String("retry_in", delay.String()), slog.String("err", serr.Error()))
	at := s.now().Add(delay)
	if err := s.store.Retry(wctx, o.Held(), at, serr); err != nil {
		return false, err
	}
	if h := s.handoff.Load(); h != nil {
		h.dueAt(at)
	}
	return false, nil
}

// retryDelay is the wait after a mail's attempts-th failed send: BaseBackoff doubling per
// attempt up to MaxBackoff (backoff's schedule, replayed to the stored attempt count: the
// count lives in the queue, not in a loop), of which a random half to all is waited, so
// replicas retrying one relay do not stampede.
func retryDelay(p SenderPolicy, attempts int) time.Duration {
	b := &backoff.ExponentialBackOff{InitialInterval: p.BaseBackoff, Multiplier: 2, MaxInterval: p.MaxBackoff}
	b.Reset()
	var d time.Duration
	for range max(attempts, 1) {
		d = b.NextBackOff()
	}
	return d/2 + rand.N(d/2+1)
}

// pendingCollector reads the queue at scrape time.
type pendingCollector struct {
	store  Queue
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
