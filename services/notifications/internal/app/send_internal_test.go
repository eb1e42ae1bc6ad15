package app

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/hangar/hangar/services/notifications/internal/domain"
)

type sendsAll struct{}

func (sendsAll) Send(context.Context, domain.Message) error { return nil }

func sendingService(log *slog.Logger) *Service {
	return New(nil, nil, propagation.TraceContext{}, noop.NewTracerProvider(), prometheus.NewRegistry(), log)
}

var sentMail = domain.Outgoing{Message: domain.Message{ID: "ev-1.receipt", EventID: "ev-1", Template: "receipt", To: "buyer@example.test"},
	Trace: map[string]string{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}, Attempts: 1, Fence: domain.FirstFence}

// A sent mail's record names the mail first, then its trace, as the logger's own
// attributes did.
func TestSendLogsTheMail(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	s := sendingService(slog.New(slog.NewTextHandler(&out, nil)).With("service", "notifications"))
	if ok, err := s.send(t.Context(), sendsAll{}, SenderPolicy{MaxAttempts: 3}, sentMail); !ok || err != nil {
		t.Fatalf("send = %v, %v", ok, err)
	}
	if got, want := out.String(), ` level=INFO msg="e-mail sent" service=notifications message_id=ev-1.receipt event_id=ev-1 template=receipt attempt=1`+"\n"; !strings.HasSuffix(got, want) {
		t.Errorf("log %q, want it to end %q", got, want)
	}
}

// BenchmarkSend is a sender's own work per mail around the Mailer (trace, metrics, log), with
// "e-mail sent" below the level logged, as in production.
func BenchmarkSend(b *testing.B) {
	s := sendingService(slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn})))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := s.send(ctx, sendsAll{}, SenderPolicy{MaxAttempts: 3}, sentMail); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
