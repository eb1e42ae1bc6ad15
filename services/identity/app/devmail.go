package app

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/kafka"
)

// Mail is one captured e-mail of the dev mail sink: the address and the code, nothing else.
type Mail struct {
	To         string    `json:"to"`
	Subject    string    `json:"subject"`
	Body       string    `json:"body"`
	Code       string    `json:"code"`
	ReceivedAt time.Time `json:"receivedAt"`
}

// Mailbox keeps the last mails in memory. It stands in for the notifications service in
// dev until that service exists; it is fed from Kafka exactly as notifications will be.
type Mailbox struct {
	max   int
	mu    sync.Mutex
	mails []Mail
}

// NewMailbox keeps at most max mails.
func NewMailbox(max int) *Mailbox { return &Mailbox{max: max} }

// Add stores a mail, dropping the oldest beyond the bound.
func (m *Mailbox) Add(mail Mail) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mails = append([]Mail{mail}, m.mails...)
	if len(m.mails) > m.max {
		m.mails = m.mails[:m.max]
	}
}

// Mails answers the captured mails, newest first.
func (m *Mailbox) Mails() []Mail {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Mail(nil), m.mails...)
}

// ServeHTTP answers {"mails": [...]}, newest first; ?to= filters by address.
func (m *Mailbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	to := r.URL.Query().Get("to")
	out := []Mail{}
	for _, mail := range m.Mails() {
		if to == "" || mail.To == to {
			out = append(out, mail)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]any{"mails": out})
}

// runMailSink consumes identity's code e-mails into the mailbox until ctx ends.
func (a *App) runMailSink(ctx context.Context) {
	c := kafka.NewConsumer(a.cfg.Brokers, "identity-dev-mail", TopicEligibilityCodeRequested, a.deps.Propagator, a.deps.Tracer, a.log)
	defer c.Close()
	err := c.Run(ctx, func(_ context.Context, msg kafkago.Message) error {
		var ev eventsv1.EligibilityCodeRequested
		if err := proto.Unmarshal(msg.Value, &ev); err != nil {
			a.log.WarnContext(ctx, "dev mail sink: undecodable event skipped", "offset", msg.Offset)
			return nil
		}
		a.mail.Add(CodeMail(&ev, msg.Time))
		return nil
	})
	if err != nil {
		a.log.ErrorContext(ctx, "dev mail sink stopped", "err", err.Error())
	}
}

// CodeMail is the verification-code e-mail of an event.
func CodeMail(ev *eventsv1.EligibilityCodeRequested, at time.Time) Mail {
	return Mail{To: ev.GetEmail(), Subject: "Your verification code", Body: "Your verification code is " + ev.GetCode() + ".",
		Code: ev.GetCode(), ReceivedAt: at}
}
