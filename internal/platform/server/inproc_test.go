package server_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/protobuf/proto"

	catalogv1 "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/internal/platform/servicetest"
)

// probe answers ListAvailablePlans with a response header and trailer, reporting what it
// saw of the call; a currency of "GONE" fails with NotFound and "RAW" with a plain error.
type probe struct {
	catalogv1.UnimplementedCatalogServiceServer
	seen chan probeCall
}

type probeCall struct {
	method      string
	md          metadata.MD
	peer        net.Addr
	hasDeadline bool
}

func (p *probe) ListAvailablePlans(ctx context.Context, req *catalogv1.ListAvailablePlansRequest) (*catalogv1.ListAvailablePlansResponse, error) {
	method, _ := grpc.Method(ctx)
	md, _ := metadata.FromIncomingContext(ctx)
	call := probeCall{method: method, md: md}
	if pr, ok := peer.FromContext(ctx); ok {
		call.peer = pr.Addr
	}
	_, call.hasDeadline = ctx.Deadline()
	p.seen <- call
	if err := grpc.SetHeader(ctx, metadata.Pairs("x-probe", "header")); err != nil {
		return nil, err
	}
	if err := grpc.SetTrailer(ctx, metadata.Pairs("x-probe-trailer", "trailer")); err != nil {
		return nil, err
	}
	switch req.GetCurrency() {
	case "GONE":
		return nil, errs.E(errs.NotFound, "no such plan")
	case "RAW":
		return nil, errors.New("not a status")
	}
	return &catalogv1.ListAvailablePlansResponse{Version: "v7"}, nil
}

// countingListener counts the connections its listener accepts.
type countingListener struct {
	net.Listener
	accepted *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

const plansMethod = "/hangar.catalog.v1.CatalogService/ListAvailablePlans"

// A REST call reaches the implementation in-process, through the gRPC server's interceptors
// and with what the gateway puts in metadata, and the handler's header and trailer metadata
// reach the gateway's forward-response hooks; the gRPC listener sees no connection until a
// real gRPC client dials it.
func TestGatewayCallsServiceInProcessWithGRPCSemantics(t *testing.T) {
	t.Parallel()
	p := &probe{seen: make(chan probeCall, 8)}
	intercepted := make(chan string, 8)
	var accepted atomic.Int64
	s, cancel, done := startServerListening(t, p, func(s *server.Server) {
		s.UseUnary(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			intercepted <- info.FullMethod
			return handler(ctx, req)
		})
		s.GatewayOptions(runtime.WithForwardResponseOption(func(ctx context.Context, w http.ResponseWriter, _ proto.Message) error {
			md, _ := runtime.ServerMetadataFromContext(ctx)
			w.Header().Set("X-Hook-Header", strings.Join(md.HeaderMD.Get("x-probe"), ","))
			w.Header().Set("X-Hook-Trailer", strings.Join(md.TrailerMD.Get("x-probe-trailer"), ","))
			return nil
		}), runtime.WithMetadata(func(_ context.Context, r *http.Request) metadata.MD {
			if v := r.Header.Get("X-Annotate"); v != "" {
				return metadata.Pairs("x-annotated", v)
			}
			return nil
		}))
	}, func(s *server.Server) {
		server.WrapGRPCListener(s, func(ln net.Listener) net.Listener { return countingListener{ln, &accepted} })
	})
	grpcAddr, httpAddr, adminAddr := s.Addrs()
	url := "http://" + httpAddr + "/account/api/subscription/available/add-ons?currency="

	resp, body := fetch(t, url+"USD", http.Header{"X-Forwarded-For": {"203.0.113.9"}, "Cookie": {"hangar_session=s3cret"}, "Grpc-Timeout": {"30S"}})
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"version":"v7"`) {
		t.Fatalf("GET = %d %s", resp.StatusCode, body)
	}
	if m := <-intercepted; m != plansMethod {
		t.Errorf("interceptor saw method %q", m)
	}
	call := <-p.seen
	if call.method != plansMethod {
		t.Errorf("grpc.Method = %q", call.method)
	}
	if got := call.md.Get("x-forwarded-for"); len(got) != 1 || got[0] != "203.0.113.9, 127.0.0.1" {
		t.Errorf("x-forwarded-for = %q, want the header with the HTTP peer appended", got)
	}
	if got := call.md.Get("grpcgateway-cookie"); len(got) != 1 || got[0] != "hangar_session=s3cret" {
		t.Errorf("grpcgateway-cookie = %q", got)
	}
	if got := call.md.Get("traceparent"); len(got) != 1 {
		t.Errorf("traceparent = %q, want the gateway's span", got)
	}
	if host, _, _ := net.SplitHostPort(call.peer.String()); host != "127.0.0.1" {
		t.Errorf("peer = %v, want the loopback address", call.peer)
	}
	if !call.hasDeadline {
		t.Error("the handler got no deadline from Grpc-Timeout")
	}
	if h, tr := resp.Header.Get("X-Hook-Header"), resp.Header.Get("X-Hook-Trailer"); h != "header" || tr != "trailer" {
		t.Errorf("forward-response hook saw header %q and trailer %q", h, tr)
	}
	if got := resp.Header.Get("Grpc-Metadata-X-Probe"); got != "header" {
		t.Errorf("Grpc-Metadata-X-Probe = %q, want the default header matcher's copy", got)
	}

	for _, c := range []struct {
		currency, header string
		status           int
		code             string
	}{
		{"GONE", "", 404, `"code":"not_found"`},
		{"RAW", "", 500, `"code":"internal"`},
		// The gateway drops header values gRPC cannot carry, but not an annotator's:
		// grpc-go's client refused those before the call left the gateway.
		{"USD", "caf\xc3\xa9", 500, `"code":"internal"`},
	} {
		header := http.Header{}
		if c.header != "" {
			header.Set("X-Annotate", c.header)
		}
		resp, body := fetch(t, url+c.currency, header)
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.code) {
			t.Errorf("%s %q: %d %s; want %d with %s", c.currency, c.header, resp.StatusCode, body, c.status, c.code)
		}
		if c.header == "" {
			<-intercepted
			<-p.seen
			continue
		}
		// The handler's send happens before its answer, so an empty channel means it never ran.
		select {
		case call := <-p.seen:
			t.Errorf("%q reached the handler: %+v", c.header, call)
		default:
		}
	}
	for code, want := range map[string]float64{"OK": 1, "NotFound": 1, "Internal": 1} {
		if got := servicetest.Metric(t, adminAddr, "hangar_grpc_requests_total", `method="`+plansMethod+`"`, `code="`+code+`"`); got != want {
			t.Errorf("RED counted %v calls with code %s, want %v", got, code, want)
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the gRPC listener accepted %d connections during REST calls", n)
	}

	// The service is still served over real gRPC, and the count would have seen a dial.
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := catalogv1.NewCatalogServiceClient(conn).ListAvailablePlans(context.Background(), &catalogv1.ListAvailablePlansRequest{}); err != nil {
		t.Fatalf("gRPC call: %v", err)
	}
	<-intercepted
	<-p.seen
	if n := accepted.Load(); n != 1 {
		t.Errorf("the gRPC listener accepted %d connections, want the client's one", n)
	}

	// After shutdown an in-process caller of Handler is refused before the handler runs,
	// as the closed loopback connection refused it.
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url+"USD", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("after shutdown: %d %s, want 503", rec.Code, rec.Body)
	}
	select {
	case c := <-p.seen:
		t.Errorf("the handler ran after shutdown: %+v", c)
	default:
	}
}

// trivial answers ListAvailablePlans at once.
type trivial struct {
	catalogv1.UnimplementedCatalogServiceServer
}

func (trivial) ListAvailablePlans(context.Context, *catalogv1.ListAvailablePlansRequest) (*catalogv1.ListAvailablePlansResponse, error) {
	return &catalogv1.ListAvailablePlansResponse{Version: "v1"}, nil
}

// BenchmarkGatewayInProcess is a REST call through the public handler's whole stack
// (telemetry, guard, gateway, interceptors) to a handler that answers at once: what the
// gateway costs per call.
func BenchmarkGatewayInProcess(b *testing.B) {
	s, _, _ := startServerWith(b, trivial{}, nil)
	const path = "/account/api/subscription/available/add-ons?currency=USD"
	// A first call over the listener waits for Run, which installs the handler before it serves.
	_, httpAddr, _ := s.Addrs()
	if resp, body := fetch(b, "http://"+httpAddr+path, nil); resp.StatusCode != http.StatusOK {
		b.Fatalf("GET = %d %s", resp.StatusCode, body)
	}
	h := s.Handler()
	call := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}
	b.ReportAllocs()
	for b.Loop() {
		if rec := call(); rec.Code != http.StatusOK {
			b.Fatalf("GET = %d %s", rec.Code, rec.Body)
		}
	}
}
