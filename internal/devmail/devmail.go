// Package devmail is the development mail sink: a real SMTP server (emersion/go-smtp) on
// loopback that keeps what it receives in memory, and an HTTP view of it (/-/mail) as JSON
// and as a simple HTML page. make dev points the notifications service's SMTP_ADDR at it, and
// tests read verification codes and receipts from it. Never used in production.
package devmail

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-smtp"
)

// Mail is one received message.
type Mail struct {
	ID         int      `json:"id"`
	MessageID  string   `json:"messageId"`
	From       string   `json:"from"`
	To         string   `json:"to"` // the first recipient
	Recipients []string `json:"recipients"`
	Subject    string   `json:"subject"`
	Text       string   `json:"text"`
	HTML       string   `json:"html"`
	Body       string   `json:"body"` // the text part again, for older readers of /-/mail
	// Code is the verification code of a verification-code message (X-Hangar-Template:
	// eligibility-code), for tests and the demo; empty otherwise.
	Code       string              `json:"code,omitempty"`
	Headers    map[string][]string `json:"headers"`
	ReceivedAt time.Time           `json:"receivedAt"`
	// ParseError is why a message could not be parsed (it is kept, raw, in Text and Body).
	ParseError string `json:"parseError,omitempty"`
}

// Sink keeps the last max messages received over SMTP, in a ring: receiving one costs the
// same however many are kept.
type Sink struct {
	max    int
	mu     sync.Mutex
	next   int      // messages received since Listen: the last one's ID
	ring   []*entry // the kept messages, oldest at start once len(ring) == max
	start  int
	notify chan struct{}
	srv    *smtp.Server
	ln     net.Listener
	// refusing answers every MAIL FROM with a temporary failure (451): a relay that is
	// down for a while, without giving up the port.
	refusing atomic.Bool
}

// Refuse makes the relay answer each new message with a temporary failure (on) or accept
// again (off).
func (s *Sink) Refuse(on bool) { s.refusing.Store(on) }

// entry is one kept message: its envelope at once, and the message parsed the first time
// it is listed. At checkout's rate nothing reads most of them, and parsing (MIME,
// quoted-printable) was over 40% of the sink's CPU per message.
type entry struct {
	id         int
	from       string
	recipients []string
	receivedAt time.Time

	once sync.Once
	raw  []byte // until parsed
	mail Mail
}

// parsed answers the message, parsing it on first use. A message that does not parse is
// listed with its envelope, the raw message as its text, and the error in ParseError.
func (e *entry) parsed() Mail {
	e.once.Do(func() {
		m, err := Parse(e.raw)
		if err != nil {
			m = Mail{Text: string(e.raw), Body: string(e.raw), Headers: map[string][]string{}, ParseError: err.Error()}
		}
		m.ID, m.From, m.Recipients, m.ReceivedAt = e.id, e.from, e.recipients, e.receivedAt
		if len(m.Recipients) > 0 {
			m.To = m.Recipients[0]
		}
		e.mail, e.raw = m, nil
	})
	return e.mail
}

// Listen starts an SMTP server on addr (e.g. 127.0.0.1:0) keeping at most max messages.
func Listen(addr string, max int) (*Sink, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dev mail listen %s: %w", addr, err)
	}
	s := &Sink{max: max, ln: ln, notify: make(chan struct{})}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{sink: s}, nil }))
	s.srv.Domain = "hangar.dev.local"
	s.srv.AllowInsecureAuth = true
	s.srv.MaxMessageBytes = 10 << 20
	s.srv.ReadTimeout, s.srv.WriteTimeout = time.Minute, time.Minute
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the SMTP address (host:port).
func (s *Sink) Addr() string { return s.ln.Addr().String() }

// Close stops the SMTP server.
func (s *Sink) Close() error { return s.srv.Close() }

// Mails answers the messages, newest first; to filters by recipient (any, case-insensitive).
func (s *Sink) Mails(to string) []Mail {
	s.mu.Lock()
	es := make([]*entry, 0, len(s.ring))
	for i := len(s.ring) - 1; i >= 0; i-- {
		e := s.ring[(s.start+i)%len(s.ring)]
		if to == "" || containsFold(e.recipients, to) {
			es = append(es, e)
		}
	}
	s.mu.Unlock()
	// Parsed outside the lock: a first listing of thousands must not hold up receiving.
	out := make([]Mail, len(es))
	for i, e := range es {
		out[i] = e.parsed()
	}
	return out
}

// WaitReceived blocks until n messages in all have been received since Listen (however many
// are kept) or ctx ends: a benchmark's many mails need not be kept to be counted.
func (s *Sink) WaitReceived(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		ch, got := s.notify, s.next
		s.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d mails received: %w", got, n, ctx.Err())
		case <-ch:
		}
	}
}

// Wait blocks until a message for to arrives (or one is there already) or ctx ends.
func (s *Sink) Wait(ctx context.Context, to string, n int) ([]Mail, error) {
	for {
		s.mu.Lock()
		ch := s.notify
		s.mu.Unlock()
		if m := s.Mails(to); len(m) >= n {
			return m, nil
		}
		select {
		case <-ctx.Done():
			return s.Mails(to), ctx.Err()
		case <-ch:
		}
	}
}

func (s *Sink) add(e *entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	e.id = s.next
	switch {
	case s.max <= 0:
	case len(s.ring) < s.max:
		s.ring = append(s.ring, e)
	default: // full: the newest takes the oldest's place
		s.ring[s.start] = e
		s.start = (s.start + 1) % len(s.ring)
	}
	close(s.notify)
	s.notify = make(chan struct{})
}

type session struct {
	sink *Sink
	from string
	to   []string
}

func (x *session) Reset()        { x.from, x.to = "", nil }
func (x *session) Logout() error { return nil }
func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	if x.sink.refusing.Load() {
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "temporarily refusing mail"}
	}
	x.from = from
	return nil
}
func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = append(x.to, to)
	return nil
}
func (x *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	x.sink.add(&entry{from: x.from, recipients: append([]string(nil), x.to...), receivedAt: time.Now().UTC(), raw: raw})
	return nil
}

var codeRe = regexp.MustCompile(`\b\d{6}\b`)

// Parse reads an RFC 5322 message: headers, subject, and the text/plain and text/html parts.
func Parse(raw []byte) (Mail, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Mail{}, err
	}
	dec := new(mime.WordDecoder)
	m := Mail{Headers: map[string][]string{}, ReceivedAt: time.Now().UTC()}
	for k, vs := range msg.Header {
		for _, v := range vs {
			if d, err := dec.DecodeHeader(v); err == nil {
				v = d
			}
			m.Headers[k] = append(m.Headers[k], v)
		}
	}
	m.Subject = first(m.Headers["Subject"])
	m.MessageID = first(m.Headers["Message-Id"])
	if err := readPart(msg.Header, msg.Body, &m); err != nil {
		return Mail{}, err
	}
	m.Body = m.Text
	if first(m.Headers["X-Hangar-Template"]) == "eligibility-code" {
		m.Code = codeRe.FindString(m.Text)
	}
	return m, nil
}

// header is a message's or a part's header.
type header interface{ Get(string) string }

func readPart(h header, body io.Reader, m *Mail) error {
	ct, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		ct = "text/plain"
	}
	if strings.HasPrefix(ct, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := readPart(p.Header, p, m); err != nil {
				return err
			}
		}
	}
	var r io.Reader = body
	switch strings.ToLower(h.Get("Content-Transfer-Encoding")) {
	case "quoted-printable":
		r = quotedprintable.NewReader(body)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, newlineStripper{body})
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	// Bodies travel with CRLF line ends; readers want plain lines.
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	switch ct {
	case "text/plain":
		if m.Text == "" {
			m.Text = string(b)
		}
	case "text/html":
		if m.HTML == "" {
			m.HTML = string(b)
		}
	}
	return nil
}

// newlineStripper drops CR and LF, which base64 bodies are wrapped with.
type newlineStripper struct{ r io.Reader }

func (n newlineStripper) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	j := 0
	for _, c := range p[:k] {
		if c != '\r' && c != '\n' {
			p[j] = c
			j++
		}
	}
	return j, err
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// ServeHTTP answers GET /-/mail: {"mails": [...]} newest first, ?to= filtering by
// recipient, ?brief=1 leaving out the bodies; the HTML page for browsers (Accept: text/html) or ?format=html.
func (s *Sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mails := s.Mails(r.URL.Query().Get("to"))
	w.Header().Set("Cache-Control", "no-store")
	if r.URL.Query().Get("format") == "html" || (r.URL.Query().Get("format") == "" && strings.HasPrefix(r.Header.Get("Accept"), "text/html")) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = page.Execute(w, map[string]any{"Mails": mails, "To": r.URL.Query().Get("to")})
		return
	}
	if r.URL.Query().Get("brief") == "1" {
		// Headers only: a reconciliation of thousands of mails needs no bodies.
		for i := range mails {
			mails[i].Text, mails[i].HTML, mails[i].Body = "", "", ""
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"mails": mails})
}

var page = template.Must(template.New("mail").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Dev mail</title>
<style>
body{font:14px system-ui,sans-serif;margin:1.5rem;max-width:70rem}
details{border:1px solid #ccc;border-radius:6px;margin:.5rem 0;padding:.5rem .75rem}
summary{cursor:pointer}
.meta{color:#555;font-size:12px}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.5rem}
iframe{width:100%;height:28rem;border:1px solid #ddd}
</style></head><body>
<h1>Dev mail</h1>
<form><label>To <input name="to" value="{{.To}}"></label> <input type="hidden" name="format" value="html"><button>Filter</button></form>
<p class="meta">{{len .Mails}} message(s), newest first. JSON: <a href="?to={{.To}}&format=json">/-/mail?to={{.To}}</a></p>
{{range .Mails}}<details>
<summary><strong>{{.Subject}}</strong> to {{.To}} <span class="meta">{{.ReceivedAt.Format "2006-01-02 15:04:05"}} UTC</span></summary>
<p class="meta">From {{.From}} · Message-ID {{.MessageID}}{{with index .Headers "X-Hangar-Event-Id"}} · event {{index . 0}}{{end}}</p>
<h3>HTML part</h3><iframe sandbox srcdoc="{{.HTML}}" title="HTML part of {{.Subject}}"></iframe>
<h3>Text part</h3><pre>{{.Text}}</pre>
</details>{{else}}<p>No mail yet.</p>{{end}}
</body></html>`))
