package adapters

import (
	"context"
	"fmt"
	"io"
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

// BenchmarkMessage builds an order's receipt, as rendered, and writes it as go-mail hands it
// to the relay (into io.Discard): Send's own work per mail, without the connection and the
// sink.
func BenchmarkMessage(b *testing.B) {
	s, err := NewSMTP(SMTPConfig{Addr: "127.0.0.1:25", TLS: "none", From: "Hangar <no-reply@hangar.example>", MessageIDDomain: "bench.test"})
	if err != nil {
		b.Fatal(err)
	}
	r, err := domain.NewRenderer(domain.Site{Name: "Hangar", BaseURL: "https://store.hangar.example", Support: "support@hangar.example"})
	if err != nil {
		b.Fatal(err)
	}
	msgs, err := r.Receipt("0192f7d0-bench", domain.Receipt{OrderID: "ord-42", InvoiceNumber: "H-2026-000042", Email: "buyer@example.test",
		OrderKind: domain.KindSubscription, Currency: "EUR", Lines: []domain.Line{
			{Description: "Pro Plus (1 year)", Type: "SUBSCRIPTION", Quantity: 1, Amount: 199_00},
			{Description: "Europe region", Type: "SUBSCRIPTION", Quantity: 2, Amount: 2_450_00},
			{Description: "VAT", Type: "TAX", Quantity: 1, Amount: 21_00}},
		Subtotal: 2_649_00, Tax: 21_00, TaxLabel: "VAT", Total: 2_670_00, CardBrand: "Visa", CardLast4: "1111",
		CompletedAt: time.Date(2026, 11, 23, 14, 5, 0, 0, time.UTC), ReceiptPath: "/r/ord-42?sig=abc"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	for b.Loop() {
		msg, err := s.message(msgs[0])
		if err != nil {
			b.Fatal(err)
		}
		if _, err := msg.WriteTo(io.Discard); err != nil {
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
