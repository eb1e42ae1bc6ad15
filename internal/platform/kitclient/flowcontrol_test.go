package kitclient_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace/noop"
	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/kitclient"
	"github.com/hangar/hangar/internal/platform/metrics"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// tap is a connection that keeps a copy of what it wrote and what it read.
type tap struct {
	net.Conn
	mu          sync.Mutex
	wrote, read bytes.Buffer
}

func (c *tap) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.mu.Lock()
	c.wrote.Write(p[:n])
	c.mu.Unlock()
	return n, err
}

func (c *tap) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.read.Write(p[:n])
	c.mu.Unlock()
	return n, err
}

// frames counts the HTTP/2 frames of stream by type.
func frames(t *testing.T, stream []byte) map[http2.FrameType]int {
	t.Helper()
	fr := http2.NewFramer(io.Discard, bytes.NewReader(stream))
	fr.SetMaxReadFrameSize(1 << 24)
	n := map[http2.FrameType]int{}
	for {
		f, err := fr.ReadFrame()
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return n
		}
		if err != nil {
			t.Fatalf("frame %d: %v", len(n), err)
		}
		n[f.Header().Type]++
	}
}

// A service's small unary calls to another cost a request and an answer on the wire and
// nothing around them: gRPC's dynamic flow control sent a bandwidth probe (a PING, its
// acknowledgement and a WINDOW_UPDATE) with nearly every call, frames each costing a write
// and a read on both ends.
func TestUnaryCallsBetweenServicesSendNoFlowControlFrames(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
	red, err := metrics.NewRED(reg, "test")
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New("test", config.Platform{GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0",
		ShutdownTimeout: 5 * time.Second}, server.Deps{Logger: slog.New(slog.DiscardHandler), Registry: reg,
		Tracer: noop.NewTracerProvider(), Propagator: telemetry.Propagator(), RED: red})
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	addr, _, _ := srv.Addrs()

	var conn *tap
	dial := func(ctx context.Context, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		conn = &tap{Conn: c}
		return conn, nil
	}
	cc, err := kitclient.Dial(addr, kitclient.Config{Client: "test"}, noop.NewTracerProvider(), propagation.TraceContext{},
		grpc.WithContextDialer(dial))
	if err != nil {
		t.Fatal(err)
	}
	health := healthpb.NewHealthClient(cc)
	const calls = 40
	for range calls {
		if _, err := health.Check(context.Background(), &healthpb.HealthCheckRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cc.Close(); err != nil {
		t.Fatal(err)
	}
	conn.mu.Lock()
	defer conn.mu.Unlock()
	sent := conn.wrote.Bytes()
	if !bytes.HasPrefix(sent, []byte(http2.ClientPreface)) {
		t.Fatalf("the client's stream does not begin with the HTTP/2 preface: %q", sent[:min(len(sent), 24)])
	}
	up, down := frames(t, sent[len(http2.ClientPreface):]), frames(t, conn.read.Bytes())
	if up[http2.FrameHeaders] < calls || down[http2.FrameHeaders] < calls {
		t.Fatalf("client sent %v, server sent %v: fewer than the %d calls' headers", up, down, calls)
	}
	if up[http2.FramePing]+down[http2.FramePing] > 0 {
		t.Errorf("PING frames: client %d, server %d over %d calls, want none", up[http2.FramePing], down[http2.FramePing], calls)
	}
	// One each way as the connection opens: it raises the connection's window to its size.
	if up[http2.FrameWindowUpdate] > 1 || down[http2.FrameWindowUpdate] > 1 {
		t.Errorf("WINDOW_UPDATE frames: client %d, server %d over %d calls, want the connection's first only",
			up[http2.FrameWindowUpdate], down[http2.FrameWindowUpdate], calls)
	}
}
