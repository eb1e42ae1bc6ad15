package devmail

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/wneessen/go-mail"
)

// receiptRaw is a receipt-sized message as the notifications service writes it (go-mail,
// text and HTML alternatives, quoted-printable), the message the sink takes most of.
func receiptRaw(tb testing.TB) []byte {
	tb.Helper()
	m := mail.NewMsg()
	if err := m.From("Hangar <no-reply@hangar.example>"); err != nil {
		tb.Fatal(err)
	}
	if err := m.To("buyer@example.test"); err != nil {
		tb.Fatal(err)
	}
	m.Subject("Your Hangar receipt — 25 €")
	m.SetMessageIDWithValue("0192f7d0-bench.receipt@bench.test")
	m.SetDate()
	m.SetGenHeader("X-Hangar-Event-Id", "0192f7d0-bench")
	m.SetGenHeader("X-Hangar-Template", "receipt")
	m.SetBodyString(mail.TypeTextPlain, strings.Repeat("Line item  1  $99.00 — é\n", 40))
	m.AddAlternativeString(mail.TypeTextHTML, "<html><body>"+strings.Repeat("<tr><td>Line item</td><td>$99.00</td></tr>\n", 40)+"</body></html>")
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// fullSink is a sink holding max mails (hangar-dev keeps 10000), every tenth to
// buyer0@example.test.
func fullSink(tb testing.TB, max int, raw []byte) *Sink {
	tb.Helper()
	s, err := Listen("127.0.0.1:0", max)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	for i := range max {
		x := &session{sink: s, from: "no-reply@hangar.example", to: []string{fmt.Sprintf("buyer%d@example.test", i%10)}}
		if err := x.Data(bytes.NewReader(raw)); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// BenchmarkDataFullSink is the sink's own cost of one receipt received at hangar-dev's
// default cap, once the sink is full (every mail drops the oldest): what DATA does after
// go-smtp has read the message.
func BenchmarkDataFullSink(b *testing.B) {
	raw := receiptRaw(b)
	s := fullSink(b, 10000, raw)
	x := &session{sink: s, from: "no-reply@hangar.example", to: []string{"buyer@example.test"}}
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if err := x.Data(bytes.NewReader(raw)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMailsFullSink lists a full 10000-mail sink, all of it and one recipient's
// tenth, as /-/mail and Wait do. Every listing after the first, for the lazy parse.
func BenchmarkMailsFullSink(b *testing.B) {
	raw := receiptRaw(b)
	for _, to := range []string{"", "buyer0@example.test"} {
		b.Run("to="+to, func(b *testing.B) {
			s := fullSink(b, 10000, raw)
			want := 10000
			if to != "" {
				want = 1000
			}
			if n := len(s.Mails(to)); n != want {
				b.Fatalf("%d mails, want %d", n, want)
			}
			b.ReportAllocs()
			for b.Loop() {
				s.Mails(to)
			}
		})
	}
}
