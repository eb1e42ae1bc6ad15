package server_test

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	catalogv1 "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/metrics"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// fake answers ListAvailablePlans slowly, recording the trace it ran in; a currency of
// "PANIC" panics and "BAD" fails with a field error.
type fake struct {
	catalogv1.UnimplementedCatalogServiceServer
	traces chan trace.TraceID
	// hold, when set, keeps each call in the handler until it is closed: a request stays
	// in flight for exactly as long as a test needs.
	hold chan struct{}
}

func (f *fake) ListAvailablePlans(ctx context.Context, req *catalogv1.ListAvailablePlansRequest) (*catalogv1.ListAvailablePlansResponse, error) {
	f.traces <- trace.SpanContextFromContext(ctx).TraceID()
	switch req.GetCurrency() {
	case "PANIC":
		panic("boom")
	case "BAD":
		return nil, errs.Field("currency", "unknown currency \"BAD\"")
	}
	if f.hold != nil {
		<-f.hold
	}
	return &catalogv1.ListAvailablePlansResponse{Version: "v1"}, nil
}

// fetch GETs url with header and answers the response with its body read (and closed).
func fetch(t testing.TB, url string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	maps.Copy(req.Header, header)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func startServer(t *testing.T, f *fake) (*server.Server, context.CancelFunc, chan error) {
	t.Helper()
	return startServerWith(t, f, nil)
}

// startServerWith is startServer with more registrations (before Listen).
func startServerWith(t testing.TB, f catalogv1.CatalogServiceServer, more func(*server.Server)) (*server.Server, context.CancelFunc, chan error) {
	t.Helper()
	return startServerListening(t, f, more, nil)
}

// startServerListening is startServerWith with a hook between Listen and Run.
func startServerListening(t testing.TB, f catalogv1.CatalogServiceServer, more, listening func(*server.Server)) (*server.Server, context.CancelFunc, chan error) {
	t.Helper()
	cfg := config.Platform{GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", ShutdownTimeout: 5 * time.Second}
	reg := metrics.NewRegistry()
	red, err := metrics.NewRED(reg, "test")
	if err != nil {
		t.Fatal(err)
	}
	s := server.New("test", cfg, server.Deps{
		Logger: slog.New(slog.DiscardHandler), Registry: reg, Tracer: sdktrace.NewTracerProvider(),
		Propagator: telemetry.Propagator(), RED: red,
	})
	catalogv1.RegisterCatalogServiceServer(s, f)
	s.Gateway(func(ctx context.Context, mux *runtime.ServeMux, conn grpc.ClientConnInterface) error {
		return catalogv1.RegisterCatalogServiceHandlerClient(ctx, mux, catalogv1.NewCatalogServiceClient(conn))
	})
	if more != nil {
		more(s)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	if listening != nil {
		listening(s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(cancel)
	return s, cancel, done
}

func TestTraceContinuesFromHTTPThroughGatewayToGRPC(t *testing.T) {
	t.Parallel()
	f := &fake{traces: make(chan trace.TraceID, 4)}
	s, _, _ := startServer(t, f)
	_, httpAddr, _ := s.Addrs()
	req, _ := http.NewRequest(http.MethodGet, "http://"+httpAddr+"/account/api/subscription/available/add-ons", nil)
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := (<-f.traces).String(); got != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("gRPC handler ran in trace %s, want the caller's", got)
	}
}

func TestErrorsAndPanicsUseTheOneShape(t *testing.T) {
	t.Parallel()
	f := &fake{traces: make(chan trace.TraceID, 4)}
	s, _, _ := startServer(t, f)
	_, httpAddr, _ := s.Addrs()
	for cur, want := range map[string]struct {
		code int
		body string
	}{
		"BAD":   {400, `"fieldErrors":[{"field":"currency","message":"unknown currency \"BAD\""}]`},
		"PANIC": {500, `{"code":"internal","message":"internal error","reason":"INTERNAL","status":"fail","errors":["internal error"],"msg":"internal error"}`},
	} {
		resp, b := fetch(t, "http://"+httpAddr+"/account/api/subscription/available/add-ons?currency="+cur, nil)
		<-f.traces
		if resp.StatusCode != want.code || !strings.Contains(string(b), want.body) {
			t.Errorf("%s: %d %s; want %d with %s", cur, resp.StatusCode, b, want.code, want.body)
		}
	}
	resp, b := fetch(t, "http://"+httpAddr+"/no/such/route", nil)
	if resp.StatusCode != 404 || !strings.Contains(string(b), `"code":"not_found"`) {
		t.Errorf("unknown route: %d %s", resp.StatusCode, b)
	}
}

// On shutdown the server stops being ready at once, finishes the request in flight, and
// Run returns.
func TestGracefulShutdownDrainsInFlightRequests(t *testing.T) {
	t.Parallel()
	f := &fake{traces: make(chan trace.TraceID, 4), hold: make(chan struct{})}
	s, cancel, done := startServer(t, f)
	_, httpAddr, adminAddr := s.Addrs()
	if resp, err := http.Get("http://" + adminAddr + "/readyz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/readyz before shutdown = %v, %v", resp, err)
	}
	result := make(chan int, 1)
	go func() {
		resp, err := http.Get("http://" + httpAddr + "/account/api/subscription/available/add-ons")
		if err != nil {
			result <- -1
			return
		}
		resp.Body.Close()
		result <- resp.StatusCode
	}()
	<-f.traces // the request is in the handler, held there until f.hold closes
	cancel()
	for deadline := time.Now().Add(5 * time.Second); s.Ready().Ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("still ready while shutting down")
		}
	}
	select {
	case code := <-result:
		t.Fatalf("the in-flight request ended (%d) before the handler finished", code)
	default:
	}
	close(f.hold)
	if code := <-result; code != 200 {
		t.Errorf("in-flight request finished with %d, want 200", code)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after shutdown")
	}
}
