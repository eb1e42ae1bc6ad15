package server_test

import (
	"context"
	"log/slog"
	"net"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/metrics"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

type callerKey struct{}

// keeper mutates the request it gets and keeps its context and response.
type keeper struct {
	catalogv1.UnimplementedCatalogServiceServer
	ctx  context.Context
	req  *catalogv1.ListAvailablePlansRequest
	resp *catalogv1.ListAvailablePlansResponse
}

func (k *keeper) ListAvailablePlans(ctx context.Context, req *catalogv1.ListAvailablePlansRequest) (*catalogv1.ListAvailablePlansResponse, error) {
	k.ctx, k.req = ctx, req
	req.Currency = "changed by the handler"
	if err := grpc.SetHeader(ctx, metadata.Pairs("x-h", "1")); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k.resp = &catalogv1.ListAvailablePlansResponse{Version: "v1"}
	return k.resp, nil
}

// The in-process connection behaves as a transport would between the gateway and a handler:
// no shared messages or context values, the caller's deadline and cancellation, a context
// that ends with the call, the loopback peer, and Unimplemented for what is not served.
func TestInProcessConnectionIsolatesCallerAndHandler(t *testing.T) {
	t.Parallel()
	reg := metrics.NewRegistry()
	red, err := metrics.NewRED(reg, "test")
	if err != nil {
		t.Fatal(err)
	}
	s := server.New("test", config.Platform{}, server.Deps{
		Logger: slog.New(slog.DiscardHandler), Registry: reg, Tracer: sdktrace.NewTracerProvider(),
		Propagator: telemetry.Propagator(), RED: red,
	})
	k := &keeper{}
	catalogv1.RegisterCatalogServiceServer(s, k)
	conn := server.InProcess(s)
	client := catalogv1.NewCatalogServiceClient(conn)

	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), callerKey{}, "secret"), time.Minute)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "x-out", "v")
	req := &catalogv1.ListAvailablePlansRequest{Currency: "USD"}
	var header metadata.MD
	var p peer.Peer
	resp, err := client.ListAvailablePlans(ctx, req, grpc.Header(&header), grpc.Peer(&p))
	if err != nil {
		t.Fatal(err)
	}
	if req.GetCurrency() != "USD" || k.req == req {
		t.Errorf("the handler shared the caller's request: %v", req)
	}
	if resp.GetVersion() != "v1" || resp == k.resp {
		t.Errorf("the caller shares the handler's response: %v", resp)
	}
	if v := k.ctx.Value(callerKey{}); v != nil {
		t.Errorf("the handler's context carries the caller's value %v", v)
	}
	if d1, _ := ctx.Deadline(); func() bool { d2, ok := k.ctx.Deadline(); return !ok || !d2.Equal(d1) }() {
		t.Error("the handler's context lacks the caller's deadline")
	}
	if md, _ := metadata.FromIncomingContext(k.ctx); len(md.Get("x-out")) != 1 {
		t.Errorf("incoming metadata = %v", md)
	}
	if k.ctx.Err() == nil {
		t.Error("the handler's context outlived the call")
	}
	if err := grpc.SetHeader(k.ctx, metadata.Pairs("x-late", "1")); err == nil {
		t.Error("SetHeader after the call succeeded")
	}
	if got := header.Get("x-h"); len(got) != 1 {
		t.Errorf("header = %v", header)
	}
	if host, _, _ := net.SplitHostPort(p.Addr.String()); host != "127.0.0.1" {
		t.Errorf("peer = %v", p.Addr)
	}

	// The caller's cancellation reaches the handler, and the caller reads its own code.
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	if _, err := client.ListAvailablePlans(cctx, &catalogv1.ListAvailablePlansRequest{}); status.Code(err) != codes.Canceled || k.ctx.Err() == nil {
		t.Errorf("cancelled call = %v, handler's context error %v", err, k.ctx.Err())
	}

	var out catalogv1.ListAvailablePlansResponse
	for _, m := range []string{"/hangar.catalog.v1.CatalogService/NoSuchMethod", "/no.such.Service/ListAvailablePlans"} {
		if err := conn.Invoke(context.Background(), m, req, &out); status.Code(err) != codes.Unimplemented {
			t.Errorf("%s = %v, want Unimplemented", m, err)
		}
	}
	if _, err := conn.NewStream(context.Background(), &grpc.StreamDesc{}, "/hangar.catalog.v1.CatalogService/ListAvailablePlans"); status.Code(err) != codes.Unimplemented {
		t.Errorf("NewStream = %v, want Unimplemented", err)
	}
}
