package devmail_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/smtp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wneessen/go-mail"

	"github.com/hangar/hangar/internal/devmail"
)

// A message sent over real SMTP is listed newest first, filtered by recipient, with both
// parts, its headers and, for a verification code, the code.
func TestSinkReceivesOverSMTP(t *testing.T) {
	t.Parallel()
	sink, err := devmail.Listen("127.0.0.1:0", 10)
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	host, port, _ := strings.Cut(sink.Addr(), ":")
	send := func(to, subject, template, text string) {
		m := mail.NewMsg()
		_ = m.From("Hangar <no-reply@hangar.example>")
		_ = m.To(to)
		m.Subject(subject)
		m.SetGenHeader("X-Hangar-Template", template)
		m.SetBodyString(mail.TypeTextPlain, text)
		m.AddAlternativeString(mail.TypeTextHTML, "<p>"+text+"</p>")
		p, _ := strconv.Atoi(port)
		c, err := mail.NewClient(host, mail.WithPort(p), mail.WithTLSPolicy(mail.NoTLS))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.DialAndSend(m); err != nil {
			t.Fatal(err)
		}
	}
	send("a@example.com", "Your verification code", "eligibility-code", "Your verification code is 123456.")
	send("b@example.com", "Prix: 25 €", "welcome", "Hello")
	send("a@example.com", "Second", "welcome", "Again 654321")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := sink.Wait(ctx, "", 3); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	sink.ServeHTTP(rec, httptest.NewRequest("GET", "/-/mail?to=A@example.com", nil))
	var box struct{ Mails []devmail.Mail }
	if err := json.Unmarshal(rec.Body.Bytes(), &box); err != nil {
		t.Fatal(err)
	}
	if len(box.Mails) != 2 || box.Mails[0].Subject != "Second" || box.Mails[1].Code != "123456" || box.Mails[0].Code != "" {
		t.Fatalf("mails to a = %+v", box.Mails)
	}
	code := box.Mails[1]
	if code.Text != "Your verification code is 123456." || code.HTML != "<p>Your verification code is 123456.</p>" ||
		code.Body != code.Text || code.From != "no-reply@hangar.example" || code.Headers["X-Hangar-Template"][0] != "eligibility-code" {
		t.Errorf("code mail = %+v", code)
	}
	if m := sink.Mails("b@example.com"); len(m) != 1 || m[0].Subject != "Prix: 25 €" {
		t.Errorf("encoded subject = %+v", m)
	}
	// brief=1: headers without bodies (the chaos reconciliation reads thousands).
	rec = httptest.NewRecorder()
	sink.ServeHTTP(rec, httptest.NewRequest("GET", "/-/mail?brief=1", nil))
	box.Mails = nil
	if err := json.Unmarshal(rec.Body.Bytes(), &box); err != nil || len(box.Mails) != 3 {
		t.Fatalf("brief: %v %d mails", err, len(box.Mails))
	}
	if b := box.Mails[2]; b.Text != "" || b.HTML != "" || b.Body != "" || b.Subject != "Your verification code" || b.Headers["X-Hangar-Template"][0] != "eligibility-code" {
		t.Errorf("brief mail = %+v", b)
	}
	if m := sink.Mails("a@example.com"); m[1].Text == "" {
		t.Error("brief=1 emptied the stored mail")
	}
	rec = httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/-/mail", nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	sink.ServeHTTP(rec, req)
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || !strings.Contains(rec.Body.String(), "Prix: 25 €") {
		t.Errorf("html page: %s", ct)
	}
}

// newMsg is a plain message to one recipient.
func newMsg(t *testing.T, to, subject string) *mail.Msg {
	t.Helper()
	m := mail.NewMsg()
	if err := m.From("no-reply@hangar.example"); err != nil {
		t.Fatal(err)
	}
	if err := m.To(to); err != nil {
		t.Fatal(err)
	}
	m.Subject(subject)
	m.SetBodyString(mail.TypeTextPlain, "body of "+subject)
	return m
}

// sendAll sends msgs over one SMTP session, in order.
func sendAll(t *testing.T, sink *devmail.Sink, msgs ...*mail.Msg) {
	t.Helper()
	host, port, _ := strings.Cut(sink.Addr(), ":")
	p, _ := strconv.Atoi(port)
	c, err := mail.NewClient(host, mail.WithPort(p), mail.WithTLSPolicy(mail.NoTLS))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DialAndSend(msgs...); err != nil {
		t.Fatal(err)
	}
}

// The sink keeps the newest max messages, newest first, each with the next id, in Mails,
// Wait and /-/mail alike, through more than one turn of its buffer; WaitReceived counts the
// dropped ones too.
func TestSinkKeepsTheNewestMax(t *testing.T) {
	t.Parallel()
	sink, err := devmail.Listen("127.0.0.1:0", 3)
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	type kept struct {
		id      int
		subject string
		to      string
	}
	list := func(ms []devmail.Mail) []kept {
		var out []kept
		for _, m := range ms {
			out = append(out, kept{m.ID, m.Subject, m.To})
		}
		return out
	}
	same := func(what string, got, want []kept) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s = %v, want %v", what, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s = %v, want %v", what, got, want)
			}
		}
	}
	to := func(i int) string { return []string{"a@example.com", "b@example.com"}[i%2] }

	// Fewer than max: all of them.
	sendAll(t, sink, newMsg(t, to(1), "m1"), newMsg(t, to(2), "m2"))
	if err := sink.WaitReceived(ctx, 2); err != nil {
		t.Fatal(err)
	}
	same("two received", list(sink.Mails("")), []kept{{2, "m2", to(2)}, {1, "m1", to(1)}})

	var more []*mail.Msg
	for i := 3; i <= 8; i++ {
		more = append(more, newMsg(t, to(i), fmt.Sprint("m", i)))
	}
	sendAll(t, sink, more...)
	if err := sink.WaitReceived(ctx, 8); err != nil {
		t.Fatal(err)
	}
	want := []kept{{8, "m8", to(8)}, {7, "m7", to(7)}, {6, "m6", to(6)}}
	same("eight received, three kept", list(sink.Mails("")), want)
	same("to a", list(sink.Mails("A@example.com")), []kept{want[0], want[2]})
	got, err := sink.Wait(ctx, "b@example.com", 1)
	if err != nil {
		t.Fatal(err)
	}
	same("wait for b", list(got), []kept{want[1]})

	rec := httptest.NewRecorder()
	sink.ServeHTTP(rec, httptest.NewRequest("GET", "/-/mail", nil))
	var box struct{ Mails []devmail.Mail }
	if err := json.Unmarshal(rec.Body.Bytes(), &box); err != nil {
		t.Fatal(err)
	}
	same("/-/mail", list(box.Mails), want)

	// One more: the oldest kept (m6) goes, whatever was listed before.
	sendAll(t, sink, newMsg(t, to(9), "m9"))
	if err := sink.WaitReceived(ctx, 9); err != nil {
		t.Fatal(err)
	}
	same("nine received", list(sink.Mails("")), []kept{{9, "m9", to(9)}, want[0], want[1]})
	if m := sink.Mails(""); strings.TrimSpace(m[0].Text) != "body of m9" || m[0].From != "no-reply@hangar.example" || m[0].ReceivedAt.IsZero() {
		t.Errorf("newest = %+v", m[0])
	}
}

// A message that does not parse is still received and listed (it is parsed when listed):
// with its envelope, the raw message as its text, and the parse error.
func TestSinkListsAnUnparseableMessage(t *testing.T) {
	t.Parallel()
	sink, err := devmail.Listen("127.0.0.1:0", 10)
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	c, err := smtp.Dial(sink.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw := "this line is no header\r\n\r\nbody\r\n"
	if err := c.Mail("x@example.com"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt("y@example.com"); err != nil {
		t.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("DATA refused: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := sink.Wait(ctx, "y@example.com", 1)
	if err != nil {
		t.Fatal(err)
	}
	if m := got[0]; m.ID != 1 || m.From != "x@example.com" || m.To != "y@example.com" || m.ParseError == "" || m.Text != raw || m.Subject != "" {
		t.Errorf("unparseable mail = %+v", m)
	}
}
