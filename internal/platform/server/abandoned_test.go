package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	catalogv1 "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/metrics"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// records hands every log record to a channel (the test reads what the server logged).
type records chan slog.Record

func (r records) Enabled(context.Context, slog.Level) bool        { return true }
func (r records) Handle(_ context.Context, rec slog.Record) error { r <- rec; return nil }
func (r records) WithAttrs([]slog.Attr) slog.Handler              { return r }
func (r records) WithGroup(string) slog.Handler                   { return r }

// waiting answers only once its caller has gone, with the error a store read gives then.
type waiting struct {
	catalogv1.UnimplementedCatalogServiceServer
	started chan struct{}
}

func (w waiting) ListAvailablePlans(ctx context.Context, _ *catalogv1.ListAvailablePlansRequest) (*catalogv1.ListAvailablePlansResponse, error) {
	close(w.started)
	<-ctx.Done()
	return nil, &errs.Error{Code: errs.Unavailable, Message: "read plans", Cause: fmt.Errorf("read plans: %w", ctx.Err())}
}

// A browser that navigates away mid-call cancels it; the service logged that as an ERROR
// ("rpc failed ... context canceled", seen in every e2e run's log), burying real failures.
// It is a debug line now.
func TestCallerLeavingIsNotLoggedAsAFailure(t *testing.T) {
	t.Parallel()
	logs := make(records, 64)
	cfg := config.Platform{GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", ShutdownTimeout: 5 * time.Second}
	reg := metrics.NewRegistry()
	red, err := metrics.NewRED(reg, "abandoned")
	if err != nil {
		t.Fatal(err)
	}
	s := server.New("test", cfg, server.Deps{Logger: slog.New(logs), Registry: reg, Tracer: sdktrace.NewTracerProvider(),
		Propagator: telemetry.Propagator(), RED: red})
	svc := waiting{started: make(chan struct{})}
	catalogv1.RegisterCatalogServiceServer(s, svc)
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })

	grpcAddr, _, _ := s.Addrs()
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	call, leave := context.WithCancel(context.Background())
	go func() { <-svc.started; leave() }()
	if _, err := catalogv1.NewCatalogServiceClient(conn).ListAvailablePlans(call, &catalogv1.ListAvailablePlansRequest{Currency: "USD"}); err == nil {
		t.Fatal("the abandoned call succeeded")
	}
	for rec := range logs {
		if rec.Level >= slog.LevelError {
			t.Fatalf("an abandoned call was logged as %s: %q", rec.Level, rec.Message)
		}
		if rec.Message == "rpc abandoned by its caller" {
			if rec.Level != slog.LevelDebug {
				t.Errorf("abandoned call logged at %s", rec.Level)
			}
			return
		}
	}
}
