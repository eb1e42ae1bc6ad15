package edge

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/metrics"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// Issue 39: a busy replica is not a starting one. One replica of a real service server,
// past its in-flight bound, and the edge's readiness probe of it as the dev runner makes
// it (GET /readyz, one second): the edge keeps the replica ready and passes on its answer,
// 503 "The store is busy" with Retry-After (at 2.25x the sustainable rate the edge answered
// 561 x "The service is starting" when its probes of a busy replica timed out).
func TestEdgeBusyReplicaIsBusyNotStarting(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
	red, err := metrics.NewRED(reg, "busy")
	if err != nil {
		t.Fatal(err)
	}
	s := server.New("busy", config.Platform{GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", ShutdownTimeout: 5 * time.Second},
		server.Deps{Logger: slog.New(slog.DiscardHandler), Registry: reg, Tracer: sdktrace.NewTracerProvider(), Propagator: telemetry.Propagator(), RED: red})
	s.SetAdmission(server.Admission{Read: 1, Write: 1})
	entered, hold := make(chan struct{}, 1), make(chan struct{})
	s.Handle("GET /account/api/subscription/available/add-ons", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		entered <- struct{}{}
		<-hold
		_, _ = w.Write([]byte("{}"))
	}))
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	_, httpAddr, adminAddr := s.Addrs()

	probe := &http.Client{Timeout: time.Second}
	ready := func() bool {
		resp, err := probe.Get("http://" + adminAddr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	tab, _ := ParseTable([]byte(table))
	u, _ := url.Parse("http://" + httpAddr)
	srv := httptest.NewServer(New(tab, committedHeaders(t), []Backend{{Name: "catalog", Replicas: []Replica{{URL: u, Ready: ready}}}}, t.TempDir(), nil))
	defer srv.Close()

	first := make(chan int, 1)
	go func() {
		resp, err := http.Get(srv.URL + "/account/api/subscription/available/add-ons")
		if err != nil {
			first <- -1
			return
		}
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	<-entered // the replica's one slot is taken until hold closes
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get(srv.URL + "/account/api/subscription/available/add-ons")
	if err != nil {
		close(hold)
		t.Fatalf("a request to the busy replica got no answer: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var body errs.Body
	_ = json.Unmarshal(b, &body)
	if resp.StatusCode != http.StatusServiceUnavailable || body.Reason != server.ErrBusyReason || resp.Header.Get("Retry-After") == "" {
		t.Errorf("busy replica through the edge: %d Retry-After %q %s; want 503 %s with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), b, server.ErrBusyReason)
	}
	if r, err := http.Get(srv.URL + "/-/ready"); err != nil || r.StatusCode != http.StatusOK {
		t.Errorf("/-/ready with the replica busy: %v %v; a busy replica is ready", r, err)
	}
	close(hold)
	if code := <-first; code != http.StatusOK {
		t.Errorf("the request within the bound: %d", code)
	}
}
