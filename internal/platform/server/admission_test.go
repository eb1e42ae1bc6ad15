package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
)

// Issue 39: a process past its in-flight bound answers at once, before any work, 503 "The
// store is busy" with a Retry-After that grows with how many were turned away, while its
// readiness stays 200 (before, overload went on queueing until the edge's readiness probes
// timed out and the edge answered "The service is starting").
func TestAdmissionShedsPastTheBoundAndReadinessStays(t *testing.T) {
	t.Parallel()
	const bound = 2
	f := &fake{traces: make(chan trace.TraceID, 16), hold: make(chan struct{})}
	s, _, _ := startServerWith(t, f, func(s *server.Server) {
		s.SetAdmission(server.Admission{Read: bound, Write: bound})
		server.FreezeAdmissionClock(s, time.Unix(1_800_000_000, 0))
	})
	_, httpAddr, adminAddr := s.Addrs()
	url := "http://" + httpAddr + "/account/api/subscription/available/add-ons"
	held := make(chan int, bound)
	for range bound {
		go func() {
			resp, err := http.Get(url)
			if err != nil {
				held <- -1
				return
			}
			resp.Body.Close()
			held <- resp.StatusCode
		}()
	}
	for range bound {
		<-f.traces // both are in the handler, held there until f.hold closes
	}

	var waits []string
	for i := range 2*bound + 1 {
		resp, b := fetch(t, url, nil)
		var body errs.Body
		_ = json.Unmarshal(b, &body)
		if resp.StatusCode != http.StatusServiceUnavailable || body.Reason != server.ErrBusyReason || body.Message != "The store is busy. Please retry in a moment." {
			t.Fatalf("request %d past the bound: %d %s", i+1, resp.StatusCode, b)
		}
		waits = append(waits, resp.Header.Get("Retry-After"))
	}
	if waits[0] != "1" || waits[len(waits)-1] != "3" {
		t.Errorf("Retry-After over %d requests shed: %v; want from 1 growing to 3", len(waits), waits)
	}
	select {
	case tr := <-f.traces:
		t.Errorf("a shed request reached the handler (trace %s)", tr)
	default:
	}
	for i := range 3 {
		if resp, b := fetch(t, "http://"+adminAddr+"/readyz", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("/readyz #%d while busy: %d %s; readiness must not say how busy the process is", i+1, resp.StatusCode, b)
		}
	}
	close(f.hold)
	for range bound {
		if code := <-held; code != http.StatusOK {
			t.Errorf("a request within the bound: %d", code)
		}
	}
	resp, b := fetch(t, url, nil)
	<-f.traces
	if resp.StatusCode != http.StatusOK {
		t.Errorf("after the load: %d %s", resp.StatusCode, b)
	}
}

// Issue 39: the internal (gRPC) side sheds as the public one does. Past its bound a call
// from another service is answered at once UNAVAILABLE, reason STORE_BUSY, with a retry
// delay that grows with how many were turned away, and never reaches the handler; the gRPC
// health service (what a probe of readiness asks) and /readyz still answer SERVING / 200.
// A public request through the in-process gateway is a public one: not counted here.
func TestInternalAdmissionShedsPastTheBoundAndHealthStays(t *testing.T) {
	t.Parallel()
	const bound = 2
	f := &fake{traces: make(chan trace.TraceID, 16), hold: make(chan struct{})}
	s, _, _ := startServerWith(t, f, func(s *server.Server) {
		s.SetAdmission(server.Admission{Internal: bound})
		server.FreezeAdmissionClock(s, time.Unix(1_800_000_000, 0))
		s.Ready().Set("database", "") // a ready process: its gRPC health says SERVING
	})
	grpcAddr, httpAddr, adminAddr := s.Addrs()
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := catalogv1.NewCatalogServiceClient(conn)
	ctx := context.Background()
	held := make(chan error, bound)
	for range bound {
		go func() {
			_, err := client.ListAvailablePlans(ctx, &catalogv1.ListAvailablePlansRequest{})
			held <- err
		}()
	}
	for range bound {
		<-f.traces // both are in the handler until f.hold closes
	}

	var waits []time.Duration
	for i := range 2*bound + 1 {
		_, err := client.ListAvailablePlans(ctx, &catalogv1.ListAvailablePlansRequest{})
		st := status.Convert(err)
		e := errs.FromStatus(st)
		if st.Code() != codes.Unavailable || e.Reason != server.ErrBusyReason {
			t.Fatalf("call %d past the bound: %v (reason %q); want UNAVAILABLE %s", i+1, err, e.Reason, server.ErrBusyReason)
		}
		waits = append(waits, e.RetryAfter)
	}
	if waits[0] != time.Second || waits[len(waits)-1] != 3*time.Second {
		t.Errorf("retry delays over %d calls shed: %v; want from 1s growing to 3s", len(waits), waits)
	}
	select {
	case tr := <-f.traces:
		t.Errorf("a shed call reached the handler (trace %s)", tr)
	default:
	}
	for i := range 3 {
		h, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
		if err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("gRPC health #%d while busy: %v %v; readiness must not say how busy the process is", i+1, h, err)
		}
		if resp, b := fetch(t, "http://"+adminAddr+"/readyz", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("/readyz #%d while busy: %d %s", i+1, resp.StatusCode, b)
		}
	}
	// The public route's call goes through the in-process gateway: not an internal one.
	public := make(chan int, 1)
	go func() {
		resp, err := http.Get("http://" + httpAddr + "/account/api/subscription/available/add-ons")
		if err != nil {
			public <- -1
			return
		}
		resp.Body.Close()
		public <- resp.StatusCode
	}()
	<-f.traces
	close(f.hold)
	if code := <-public; code != http.StatusOK {
		t.Errorf("a public request while the internal bound is full: %d, want 200", code)
	}
	for range bound {
		if err := <-held; err != nil {
			t.Errorf("a call within the bound: %v", err)
		}
	}
}

// The bounds are typed settings of every service (config.Platform): defaults when unset,
// the operator's when set, 0 for none; a bound that is not a number refuses to start.
func TestAdmissionSettings(t *testing.T) {
	t.Parallel()
	load := func(env map[string]string) (server.Admission, error) {
		var cfg config.Platform
		err := config.LoadFrom(&cfg, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		return server.AdmissionOf(cfg), err
	}
	if a, err := load(nil); err != nil || a != (server.Admission{Read: 512, Write: 128, Internal: 256}) {
		t.Errorf("defaults: %+v, %v", a, err)
	}
	if a, err := load(map[string]string{"ADMISSION_READS": "7", "ADMISSION_WRITES": "3", "ADMISSION_GRPC": "0"}); err != nil ||
		a != (server.Admission{Read: 7, Write: 3, Internal: 0}) {
		t.Errorf("set: %+v, %v", a, err)
	}
	if _, err := load(map[string]string{"ADMISSION_WRITES": "lots"}); err == nil {
		t.Error("ADMISSION_WRITES=lots: no error")
	}
}
