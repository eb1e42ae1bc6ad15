package adapters

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/devmail"
	"github.com/hangar/hangar/services/notifications/internal/domain"
)

// BenchmarkSendDevSink sends receipt-sized mails one after another to the dev mail sink over
// loopback, as one sender worker does: the cost per mail on both ends of the connection
// (the sink runs in this process, as it does in hangar-dev). cpu-ns/op is the process's
// user+system CPU per mail, which wall time on a shared 2-core box does not show.
func BenchmarkSendDevSink(b *testing.B) {
	sink, err := devmail.Listen("127.0.0.1:0", 16)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = sink.Close() }()
	s, err := NewSMTP(SMTPConfig{Addr: sink.Addr(), TLS: "none", From: "Hangar <no-reply@hangar.example>", MessageIDDomain: "bench.test"})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	ctx := context.Background()
	m := domain.Message{EventID: "0192f7d0-bench", Template: "receipt", To: "buyer@example.test", Subject: "Your Hangar receipt",
		Text: strings.Repeat("Line item  1  $99.00\n", 40), HTML: "<html><body>" + strings.Repeat("<tr><td>Line item</td><td>$99.00</td></tr>\n", 40) + "</body></html>"}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime(b)
	for i := range b.N {
		m.ID = fmt.Sprintf("%s.%d", m.EventID, i)
		if err := s.Send(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
