// Package otlptest is an in-memory OTLP/gRPC trace collector for tests that run whole
// services: point OTEL_EXPORTER_OTLP_ENDPOINT of every service at Endpoint and read the
// spans they exported, whichever process-local tracer provider each service built.
package otlptest

import (
	"context"
	"encoding/hex"
	"net"
	"sync"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
)

// Span is one exported span, flattened.
type Span struct {
	Service  string
	Name     string
	Kind     tracepb.Span_SpanKind
	TraceID  string
	SpanID   string
	ParentID string
}

// Collector receives spans over OTLP/gRPC and keeps them.
type Collector struct {
	coltracepb.UnimplementedTraceServiceServer
	Endpoint string // http://127.0.0.1:<port>

	mu    sync.Mutex
	spans []Span
}

// Start runs a collector on loopback until the test ends.
func Start(t testing.TB) *Collector {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &Collector{Endpoint: "http://" + ln.Addr().String()}
	srv := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(srv, c)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return c
}

// Export implements the OTLP trace service.
func (c *Collector) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		service := ""
		for _, a := range rs.GetResource().GetAttributes() {
			if a.GetKey() == "service.name" {
				service = a.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				c.spans = append(c.spans, Span{Service: service, Name: s.GetName(), Kind: s.GetKind(),
					TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					ParentID: hex.EncodeToString(s.GetParentSpanId())})
			}
		}
	}
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// Spans answers the spans received so far.
func (c *Collector) Spans() []Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Span(nil), c.spans...)
}
