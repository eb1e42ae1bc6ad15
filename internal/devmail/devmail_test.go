package devmail_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
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
