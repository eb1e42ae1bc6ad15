package adapters

import (
	"context"
	"errors"
	"io"
	"net"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	gomail "github.com/wneessen/go-mail"

	"github.com/hangar/hangar/services/notifications/internal/domain"
)

// relay is a real SMTP server on loopback (emersion/go-smtp, as the dev mail sink) that
// counts connections and can misbehave the ways relays do.
type relay struct {
	t     *testing.T
	srv   *smtp.Server
	addr  string
	ended chan struct{} // a value per session that ended

	mu       sync.Mutex
	conns    []*smtp.Conn
	received []*mail.Message
	say421   bool          // answer the next MAIL FROM with 421
	inData   chan struct{} // when set, Data reports here then waits for release
	release  chan struct{}
}

func startRelay(t *testing.T) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{t: t, addr: ln.Addr().String(), ended: make(chan struct{}, 100)}
	r.srv = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.conns = append(r.conns, c)
		return &relaySession{r: r}, nil
	}))
	r.srv.Domain = "relay.test"
	r.srv.AllowInsecureAuth = true
	go func() { _ = r.srv.Serve(ln) }()
	t.Cleanup(func() { _ = r.srv.Close() })
	return r
}

func (r *relay) connections() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.conns)
}

// hangUp closes every session from the relay's side, as a relay does with idle ones.
func (r *relay) hangUp() {
	r.mu.Lock()
	conns := append([]*smtp.Conn(nil), r.conns...)
	r.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}

// copies answers how many mails with Message-ID <id> arrived.
func (r *relay) copies(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.received {
		if m.Header.Get("Message-Id") == "<"+id+">" {
			n++
		}
	}
	return n
}

// waitEnded waits until n sessions have ended (their connections closed).
func (r *relay) waitEnded(n int) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for range n {
		select {
		case <-r.ended:
		case <-ctx.Done():
			r.t.Fatalf("sessions still open: %v", ctx.Err())
		}
	}
}

type relaySession struct{ r *relay }

func (x *relaySession) Reset() {}
func (x *relaySession) Logout() error {
	x.r.ended <- struct{}{}
	return nil
}

func (x *relaySession) Mail(string, *smtp.MailOptions) error {
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	if x.r.say421 {
		x.r.say421 = false
		return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 4, 2}, Message: "idle too long, closing"}
	}
	return nil
}

func (x *relaySession) Rcpt(to string, _ *smtp.RcptOptions) error {
	switch {
	case strings.HasPrefix(to, "refused@"):
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox"}
	case strings.HasPrefix(to, "busy@"):
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	return nil
}

func (x *relaySession) Data(body io.Reader) error {
	m, err := mail.ReadMessage(body)
	if err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, m.Body); err != nil {
		return err
	}
	x.r.mu.Lock()
	inData, release := x.r.inData, x.r.release
	x.r.mu.Unlock()
	if inData != nil {
		inData <- struct{}{}
		<-release
	}
	x.r.mu.Lock()
	defer x.r.mu.Unlock()
	x.r.received = append(x.r.received, m)
	return nil
}

func newTestSMTP(t *testing.T, r *relay, cfg SMTPConfig) *SMTP {
	t.Helper()
	cfg.Addr, cfg.TLS, cfg.From, cfg.MessageIDDomain = r.addr, "none", "Hangar <no-reply@hangar.test>", "notifications.test"
	s, err := NewSMTP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func message(event, to string) domain.Message {
	return domain.Message{ID: event + ".receipt", EventID: event, Template: "receipt", To: to,
		Subject: "Your receipt", Text: "Thank you.", HTML: "<p>Thank you.</p>"}
}

func TestSMTPSendsManyMailsOverOneConnection(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	s := newTestSMTP(t, r, SMTPConfig{})
	events := []string{"ev-1", "ev-2", "ev-3", "ev-4", "ev-5"}
	for _, ev := range events {
		if err := s.Send(t.Context(), message(ev, "buyer@example.test")); err != nil {
			t.Fatalf("Send(%s): %v", ev, err)
		}
	}
	for _, ev := range events {
		if n := r.copies(ev + ".receipt@notifications.test"); n != 1 {
			t.Errorf("%s arrived %d times, want once", ev, n)
		}
	}
	r.mu.Lock()
	for _, m := range r.received {
		if got, want := m.Header.Get("X-Hangar-Event-Id"), strings.TrimSuffix(strings.Trim(m.Header.Get("Message-Id"), "<>"), ".receipt@notifications.test"); got != want {
			t.Errorf("X-Hangar-Event-Id = %q, want %q", got, want)
		}
	}
	r.mu.Unlock()
	if n := r.connections(); n != 1 {
		t.Errorf("%d mails used %d connections, want 1", len(events), n)
	}
}

// A relay that ends an idle session, with 421 or by just closing it, costs no mail: the
// mail goes once, over a new connection, which is then kept.
func TestSMTPRedialsWhenTheRelayEndedAnIdleSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		end  func(*relay)
	}{
		{"connection closed", func(r *relay) {
			r.hangUp()
			r.waitEnded(1)
		}},
		{"421 at MAIL FROM", func(r *relay) {
			r.mu.Lock()
			r.say421 = true
			r.mu.Unlock()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := startRelay(t)
			s := newTestSMTP(t, r, SMTPConfig{})
			if err := s.Send(t.Context(), message("ev-1", "buyer@example.test")); err != nil {
				t.Fatal(err)
			}
			tc.end(r)
			if err := s.Send(t.Context(), message("ev-2", "buyer@example.test")); err != nil {
				t.Fatalf("Send after the relay ended the session: %v", err)
			}
			if n := r.copies("ev-2.receipt@notifications.test"); n != 1 {
				t.Errorf("the mail after the session ended arrived %d times, want once", n)
			}
			if err := s.Send(t.Context(), message("ev-3", "buyer@example.test")); err != nil {
				t.Fatal(err)
			}
			if n := r.connections(); n != 2 {
				t.Errorf("connections = %d, want 2 (the first, and one new one kept for the third mail)", n)
			}
		})
	}
}

func TestSMTPRefusals(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	s := newTestSMTP(t, r, SMTPConfig{})
	err := s.Send(t.Context(), message("ev-1", "refused@example.test"))
	if !errors.Is(err, domain.ErrPermanent) {
		t.Errorf("550 to RCPT: err = %v, want ErrPermanent", err)
	}
	err = s.Send(t.Context(), message("ev-2", "busy@example.test"))
	if err == nil || errors.Is(err, domain.ErrPermanent) {
		t.Errorf("451 to RCPT: err = %v, want a temporary error", err)
	}
	if err := s.Send(t.Context(), message("ev-3", "buyer@example.test")); err != nil {
		t.Fatal(err)
	}
	if r.copies("ev-1.receipt@notifications.test")+r.copies("ev-2.receipt@notifications.test") != 0 {
		t.Error("a refused mail arrived")
	}
	// Each refusal left its connection closed: three sends, three connections.
	if n := r.connections(); n != 3 {
		t.Errorf("connections = %d, want 3 (none reused after an error)", n)
	}
}

// Close quits the idle sessions, also when several senders opened one each.
func TestSMTPCloseEndsIdleSessions(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	s := newTestSMTP(t, r, SMTPConfig{})
	// Hold both mails in DATA until both are there, so they cannot share a connection.
	r.inData, r.release = make(chan struct{}), make(chan struct{})
	errs := make(chan error, 2)
	for _, ev := range []string{"ev-1", "ev-2"} {
		go func() { errs <- s.Send(t.Context(), message(ev, "buyer@example.test")) }()
	}
	<-r.inData
	<-r.inData
	close(r.release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := r.connections(); n != 2 {
		t.Fatalf("connections = %d, want 2", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r.waitEnded(2)

	// Sending still works after Close, without keeping the connection.
	r.mu.Lock()
	r.inData = nil
	r.mu.Unlock()
	if err := s.Send(t.Context(), message("ev-3", "buyer@example.test")); err != nil {
		t.Fatal(err)
	}
	r.waitEnded(1)
}

func TestSMTPClosesSessionsIdleForIdleTimeout(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	// An hour, so that only the test's clock moves it.
	s := newTestSMTP(t, r, SMTPConfig{IdleTimeout: time.Hour})
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }

	if err := s.Send(t.Context(), message("ev-1", "buyer@example.test")); err != nil {
		t.Fatal(err)
	}
	advance(59 * time.Minute)
	s.closeIdle()
	if err := s.Send(t.Context(), message("ev-2", "buyer@example.test")); err != nil {
		t.Fatal(err)
	}
	if n := r.connections(); n != 1 {
		t.Fatalf("connections = %d after 59 idle minutes, want 1 (still open)", n)
	}
	advance(time.Hour)
	s.closeIdle()
	r.waitEnded(1)
	if err := s.Send(t.Context(), message("ev-3", "buyer@example.test")); err != nil {
		t.Fatal(err)
	}
	if n := r.connections(); n != 2 {
		t.Errorf("connections = %d, want 2 (a new one after the idle one was closed)", n)
	}
}

// Send watches its context after dialing too (go-mail does not): a send stuck on a relay
// that stopped answering ends when the context does, well before the hour-long timeout.
func TestSMTPSendEndsWithItsContext(t *testing.T) {
	t.Parallel()
	r := startRelay(t)
	s := newTestSMTP(t, r, SMTPConfig{Timeout: time.Hour})
	r.inData, r.release = make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(r.release) })
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- s.Send(ctx, message("ev-1", "buyer@example.test")) }()
	<-r.inData
	cancel()
	if err := <-errc; err == nil || errors.Is(err, domain.ErrPermanent) {
		t.Errorf("err = %v, want a temporary error", err)
	}
}

// The message Send builds from its parts prepared once (the From address, the User-Agent)
// is byte for byte the one go-mail builds from the strings, but for its Date and its
// random multipart boundary.
func TestSMTPMessageIsGoMailsFromTheStrings(t *testing.T) {
	t.Parallel()
	s, err := NewSMTP(SMTPConfig{Addr: "127.0.0.1:25", From: "Hangar Avionics <no-reply@hangar.test>", MessageIDDomain: "notifications.test"})
	if err != nil {
		t.Fatal(err)
	}
	m := domain.Message{ID: "ev-1.receipt", EventID: "ev-1", Template: "receipt", To: "Pilot Åsa <buyer@example.test>",
		Subject: "Your Hangar receipt H-2026-000042 — €2,629.00",
		// Longer than bodyWriter's buffer, so the encoder takes them in several pieces.
		Text: "Thank you for your order.\r\n" + strings.Repeat("Europe region x 2: €2,450.00 (a line long enough to be folded by quoted-printable) \n", 13),
		HTML: "<p style=\"margin:0\">Thank you = merci.</p>\n" + strings.Repeat("<tr><td>Europe region</td><td align=\"right\">€2,450.00</td></tr>", 25)}
	msg, err := s.message(m)
	if err != nil {
		t.Fatal(err)
	}
	want := gomail.NewMsg()
	if err := want.From(s.cfg.From); err != nil {
		t.Fatal(err)
	}
	if err := want.To(m.To); err != nil {
		t.Fatal(err)
	}
	want.Subject(m.Subject)
	want.SetMessageIDWithValue(m.MessageIDHeader(s.cfg.MessageIDDomain))
	want.SetDate()
	want.SetGenHeader("X-Hangar-Event-Id", m.EventID)
	want.SetGenHeader("X-Hangar-Template", m.Template)
	want.SetGenHeader("Auto-Submitted", "auto-generated")
	want.SetBodyString(gomail.TypeTextPlain, m.Text)
	want.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	if got, want := written(t, msg), written(t, want); got != want {
		t.Errorf("message:\n%s\nwant:\n%s", got, want)
	}

	bad, err := NewSMTP(SMTPConfig{Addr: "127.0.0.1:25", From: "Hangar <no-reply>"})
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.Send(t.Context(), m); !errors.Is(err, domain.ErrPermanent) || !strings.Contains(err.Error(), `from "Hangar <no-reply>": failed to parse mail address`) {
		t.Errorf("Send from an invalid address = %v, want a permanent failure naming it", err)
	}
}

var (
	dateHeader = regexp.MustCompile(`(?m)^Date: .*\r\n`)
	boundary   = regexp.MustCompile(`boundary=([0-9a-f]+)`)
)

// written is msg as go-mail writes it, its Date and multipart boundary made constant.
func written(t *testing.T, msg *gomail.Msg) string {
	t.Helper()
	var b strings.Builder
	if _, err := msg.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	s := dateHeader.ReplaceAllString(b.String(), "Date: (date)\r\n")
	if m := boundary.FindStringSubmatch(s); m != nil {
		s = strings.ReplaceAll(s, m[1], "(boundary)")
	}
	return s
}
