package adapters

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	netmail "net/mail"
	"strconv"
	"sync"
	"time"

	"github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"

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
	// IdleTimeout is how long an open connection waits for the next mail before it is
	// closed (DefaultSMTPIdleTimeout when 0).
	IdleTimeout time.Duration
}

const (
	// DefaultSMTPTimeout bounds each of a send's two phases (SMTPConfig.Timeout).
	DefaultSMTPTimeout = 15 * time.Second
	// DefaultSMTPIdleTimeout is SMTPConfig.IdleTimeout's default: shorter than the few
	// minutes relays commonly allow an idle session (RFC 5321 suggests 5), so we usually
	// hang up before the relay does.
	DefaultSMTPIdleTimeout = 30 * time.Second
	// quitTimeout bounds the QUIT of a connection being closed: a courtesy, since the
	// session ends either way.
	quitTimeout = 2 * time.Second
)

// SMTP sends messages through an SMTP relay with github.com/wneessen/go-mail, reusing
// connections: dialing (TCP, EHLO, STARTTLS, AUTH) and QUIT cost several round trips and
// most of a send's CPU, and the senders send mails back to back. A connection serves one
// send at a time; it is closed after an error, after IdleTimeout unused, and by Close.
type SMTP struct {
	cfg    SMTPConfig
	client *mail.Client // settings only: it dials the connections and sends over them
	now    func() time.Time
	// from is cfg.From parsed once, not for every mail (fromErr: why it could not be, which
	// every Send answers, as it did when each parsed it).
	from    *netmail.Address
	fromErr error
	// userAgent is the User-Agent and X-Mailer go-mail would otherwise format for every mail.
	userAgent string

	mu     sync.Mutex
	idle   []*smtpConn // most recently used last
	reaper *time.Timer // set while connections are idle
	closed bool
}

type smtpConn struct {
	c         *smtp.Client
	raw       net.Conn // under c, which holds a lock during I/O: closing raw aborts it
	idleSince time.Time
}

// dialedConn is the context key under which Send asks the dialer for the net.Conn it made.
type dialedConn struct{}

func dialTCP(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if slot, ok := ctx.Value(dialedConn{}).(*net.Conn); ok && err == nil {
		*slot = c
	}
	return c, err
}

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
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultSMTPIdleTimeout
	}
	// No NOOP before and no RSET after each mail: a session is reset by the end of DATA
	// (RFC 5321 4.1.1.4), and a connection the relay has closed is caught at MAIL FROM
	// (see Send), so both would only add a round trip per mail.
	opts := []mail.Option{mail.WithPort(port), mail.WithTimeout(cfg.Timeout), mail.WithHELO("notifications"),
		mail.WithoutNoop(), mail.WithoutRset(), mail.WithDialContextFunc(dialTCP)}
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
	client, err := mail.NewClient(host, opts...)
	if err != nil {
		return nil, fmt.Errorf("smtp client: %w", err)
	}
	var from *netmail.Address
	probe := mail.NewMsg()
	fromErr := probe.From(cfg.From)
	if fromErr == nil {
		from = probe.GetFrom()[0]
	}
	return &SMTP{cfg: cfg, client: client, now: time.Now, from: from, fromErr: fromErr,
		userAgent: fmt.Sprintf("go-mail v%s // https://github.com/wneessen/go-mail", mail.VERSION)}, nil
}

// MaxSendTime is the longest a Send can take: go-mail sets the connection's deadline to
// Timeout when it dials (connecting, greeting, STARTTLS, AUTH) and again before the message
// (MAIL, RCPT, DATA), and Send closes the connection when the sum has passed, which also
// bounds a send that went first to a dead reused connection and then to a fresh one.
func (s *SMTP) MaxSendTime() time.Duration { return 2 * s.cfg.Timeout }

// Send delivers m. The Message-ID is derived from m.ID (its event id), and the event id
// travels in X-Hangar-Event-Id, so a receiver can drop a duplicate. Errors wrapping
// domain.ErrPermanent should not be retried.
func (s *SMTP) Send(ctx context.Context, m domain.Message) error {
	msg, err := s.message(m)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.MaxSendTime())
	defer cancel()
	conn := s.take()
	reused := conn != nil
	err = s.sendOn(ctx, conn, msg)
	// A relay closes sessions it finds idle (421, or just EOF) on its own clock, so a
	// reused connection may be dead: that shows at MAIL FROM, before the message is
	// handed over, and one fresh dial sends it. Not after the whole message was written
	// (no answer to the final dot): the relay may have taken it, and the sender's own
	// retry, later, with the same Message-ID, is the safer duplicate.
	if err != nil && reused && ctx.Err() == nil && !permanent(err) && !mayHaveBeenAccepted(err) {
		err = s.sendOn(ctx, nil, msg)
	}
	if err != nil {
		if permanent(err) {
			return fmt.Errorf("%w: %v", domain.ErrPermanent, err)
		}
		return fmt.Errorf("send %s: %w", m.ID, err)
	}
	return nil
}

// message is m as go-mail writes it: From, To, Subject, Message-ID, Date, the X-Hangar
// headers, Auto-Submitted, and multipart/alternative of the text and the HTML.
func (s *SMTP) message(m domain.Message) (*mail.Msg, error) {
	if s.fromErr != nil {
		return nil, fmt.Errorf("%w: from %q: %v", domain.ErrPermanent, s.cfg.From, s.fromErr)
	}
	msg := mail.NewMsg()
	msg.FromMailAddress(s.from)
	if err := msg.To(m.To); err != nil {
		return nil, fmt.Errorf("%w: to %q: %v", domain.ErrPermanent, m.To, err)
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(m.MessageIDHeader(s.cfg.MessageIDDomain))
	msg.SetDate()
	msg.SetGenHeader("X-Hangar-Event-Id", m.EventID)
	msg.SetGenHeader("X-Hangar-Template", m.Template)
	msg.SetGenHeader("Auto-Submitted", "auto-generated")
	msg.SetUserAgent(s.userAgent)
	msg.SetBodyWriter(mail.TypeTextPlain, bodyWriter(m.Text))
	msg.AddAlternativeWriter(mail.TypeTextHTML, bodyWriter(m.HTML))
	return msg, nil
}

// bodyWriter is go-mail's writer of a body s (as SetBodyString's, which copies s whole into
// a buffer first): s goes to the part's quoted-printable encoder, which takes bytes and
// encodes them one by one whatever their chunks, through a small buffer.
func bodyWriter(s string) func(io.Writer) (int64, error) {
	return func(w io.Writer) (int64, error) {
		bw := bufio.NewWriterSize(w, 512)
		n, err := bw.WriteString(s)
		if err == nil {
			err = bw.Flush()
		}
		return int64(n), err
	}
}

// sendOn sends msg over conn, or over a new connection when conn is nil, and keeps the
// connection for the next send unless anything went wrong on it.
func (s *SMTP) sendOn(ctx context.Context, conn *smtpConn, msg *mail.Msg) error {
	if conn == nil {
		var raw net.Conn
		c, err := s.client.DialToSMTPClientWithContext(context.WithValue(ctx, dialedConn{}, &raw))
		if err != nil {
			if raw != nil { // go-mail leaves it open when the greeting, STARTTLS or AUTH fails
				_ = raw.Close()
			}
			return fmt.Errorf("dial: %w", err)
		}
		conn = &smtpConn{c: c, raw: raw}
	}
	// go-mail bounds each phase with a connection deadline but does not watch ctx after
	// dialing: closing the connection when ctx ends is what bounds the whole Send.
	stop := context.AfterFunc(ctx, func() { _ = conn.raw.Close() })
	err := s.client.SendWithSMTPClient(conn.c, msg)
	if !stop() || err != nil {
		_ = conn.c.Close()
		return err
	}
	s.put(conn)
	return nil
}

func permanent(err error) bool {
	var se *mail.SendError
	return errors.As(err, &se) && !se.IsTemp() && se.ErrorCode() >= 500
}

func mayHaveBeenAccepted(err error) bool {
	var se *mail.SendError
	return errors.As(err, &se) && se.Reason == mail.ErrSMTPDataClose
}

// take answers the most recently used idle connection (the least likely to have been
// closed by the relay), or nil.
func (s *SMTP) take() *smtpConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.idle)
	if n == 0 {
		return nil
	}
	c := s.idle[n-1]
	s.idle[n-1] = nil
	s.idle = s.idle[:n-1]
	return c
}

func (s *SMTP) put(c *smtpConn) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		quit(c)
		return
	}
	c.idleSince = s.now()
	s.idle = append(s.idle, c)
	if s.reaper == nil {
		s.reaper = time.AfterFunc(s.cfg.IdleTimeout, s.closeIdle)
	}
	s.mu.Unlock()
}

// closeIdle closes the connections idle for IdleTimeout and comes back when the next one
// will have been.
func (s *SMTP) closeIdle() {
	s.mu.Lock()
	now := s.now()
	n := 0
	for n < len(s.idle) && now.Sub(s.idle[n].idleSince) >= s.cfg.IdleTimeout {
		n++
	}
	expired := append([]*smtpConn(nil), s.idle[:n]...)
	s.idle = append(s.idle[:0], s.idle[n:]...)
	if s.reaper != nil { // nil: Close ran
		if len(s.idle) == 0 {
			s.reaper.Stop()
			s.reaper = nil
		} else {
			s.reaper.Reset(s.idle[0].idleSince.Add(s.cfg.IdleTimeout).Sub(now))
		}
	}
	s.mu.Unlock()
	for _, c := range expired {
		quit(c)
	}
}

// Close closes the idle connections; one in use is closed when its send ends. Sends after
// Close still work, each on its own connection.
func (s *SMTP) Close() error {
	s.mu.Lock()
	s.closed = true
	if s.reaper != nil {
		s.reaper.Stop()
		s.reaper = nil
	}
	idle := s.idle
	s.idle = nil
	s.mu.Unlock()
	for _, c := range idle {
		quit(c)
	}
	return nil
}

func quit(c *smtpConn) {
	if c.c.UpdateDeadline(quitTimeout) == nil {
		_ = c.c.Quit()
	}
	_ = c.c.Close()
}
