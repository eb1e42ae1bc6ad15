package adapters

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/wneessen/go-mail"

	"github.com/hangar/hangar/services/notifications/internal/domain"
)

// SMTPConfig is where and how to send.
type SMTPConfig struct {
	Addr     string // host:port
	Username string // empty: no authentication
	Password string
	// TLS: "none" (dev sinks), "opportunistic" (STARTTLS when offered) or "mandatory".
	TLS string
	// From is the sender address, e.g. "Hangar <no-reply@hangar.example>".
	From string
	// MessageIDDomain is the right-hand side of Message-IDs.
	MessageIDDomain string
	Timeout         time.Duration
}

// DefaultSMTPTimeout bounds each of a send's two phases (SMTPConfig.Timeout).
const DefaultSMTPTimeout = 15 * time.Second

// SMTP sends messages through an SMTP relay with github.com/wneessen/go-mail.
type SMTP struct {
	cfg  SMTPConfig
	opts []mail.Option
	host string
}

// ErrPermanent marks a refusal that retrying will not change (a 5xx reply).
var ErrPermanent = errors.New("permanent SMTP failure")

// NewSMTP validates cfg.
func NewSMTP(cfg SMTPConfig) (*SMTP, error) {
	host, portText, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("SMTP_ADDR %q: %w", cfg.Addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("SMTP_ADDR %q: %w", cfg.Addr, err)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultSMTPTimeout
	}
	opts := []mail.Option{mail.WithPort(port), mail.WithTimeout(cfg.Timeout), mail.WithHELO("notifications")}
	switch cfg.TLS {
	case "none", "":
		opts = append(opts, mail.WithTLSPolicy(mail.NoTLS))
	case "opportunistic":
		opts = append(opts, mail.WithTLSPolicy(mail.TLSOpportunistic))
	case "mandatory":
		opts = append(opts, mail.WithTLSPolicy(mail.TLSMandatory))
	default:
		return nil, fmt.Errorf("SMTP_TLS %q: want none, opportunistic or mandatory", cfg.TLS)
	}
	if cfg.Username != "" {
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover), mail.WithUsername(cfg.Username), mail.WithPassword(cfg.Password))
	}
	return &SMTP{cfg: cfg, opts: opts, host: host}, nil
}

// MaxSendTime is the longest a Send can take: go-mail sets the connection's deadline to
// Timeout when it dials (connecting, greeting, STARTTLS, AUTH) and again before the message
// (MAIL, RCPT, DATA), and nothing else waits.
func (s *SMTP) MaxSendTime() time.Duration { return 2 * s.cfg.Timeout }

// Send delivers m. The Message-ID is derived from m.ID (its event id), and the event id
// travels in X-Hangar-Event-Id, so a receiver can drop a duplicate. Errors wrapping
// ErrPermanent should not be retried.
func (s *SMTP) Send(ctx context.Context, m domain.Message) error {
	msg := mail.NewMsg()
	if err := msg.From(s.cfg.From); err != nil {
		return fmt.Errorf("%w: from %q: %v", ErrPermanent, s.cfg.From, err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("%w: to %q: %v", ErrPermanent, m.To, err)
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(m.MessageIDHeader(s.cfg.MessageIDDomain))
	msg.SetDate()
	msg.SetGenHeader("X-Hangar-Event-Id", m.EventID)
	msg.SetGenHeader("X-Hangar-Template", m.Template)
	msg.SetGenHeader("Auto-Submitted", "auto-generated")
	msg.SetBodyString(mail.TypeTextPlain, m.Text)
	msg.AddAlternativeString(mail.TypeTextHTML, m.HTML)
	c, err := mail.NewClient(s.host, s.opts...)
	if err != nil {
		return fmt.Errorf("smtp client: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		var se *mail.SendError
		if errors.As(err, &se) && !se.IsTemp() && se.ErrorCode() >= 500 {
			return fmt.Errorf("%w: %v", ErrPermanent, err)
		}
		return fmt.Errorf("send %s: %w", m.ID, err)
	}
	return nil
}
