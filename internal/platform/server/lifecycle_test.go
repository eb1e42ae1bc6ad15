package server_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
)

// Until its readiness conditions hold (its database migrated, say) a service answers
// every call UNAVAILABLE / 503 with Retry-After, on gRPC, through the gateway and on its
// own routes; the health service answers all along. Before, calls were served and failed
// with INTERNAL ('relation "accounts" does not exist').
func TestNotReadyAnswersUnavailable(t *testing.T) {
	t.Parallel()
	s, _, _ := startServerWith(t, leaky{}, func(s *server.Server) {
		s.Ready().Require("database")
		s.Handle("GET /own", http.NotFoundHandler())
	})
	grpcAddr, httpAddr, _ := s.Addrs()
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := catalogv1.NewCatalogServiceClient(conn)
	for _, path := range []string{"/account/api/subscription/available/add-ons?currency=USD", "/own"} {
		a := do(t, "GET", "http://"+httpAddr+path, "", "")
		if a.status != 503 || a.header.Get("Retry-After") != "1" || a.body.Code != errs.Unavailable {
			t.Errorf("GET %s before ready = %d Retry-After %q %s; want 503 with Retry-After 1", path, a.status, a.header.Get("Retry-After"), a.raw)
		}
	}
	_, err = client.ListAvailablePlans(context.Background(), &catalogv1.ListAvailablePlansRequest{Currency: "USD"})
	if st := status.Convert(err); st.Code() != codes.Unavailable || errs.FromStatus(st).RetryAfter != time.Second {
		t.Errorf("gRPC before ready = %v %q; want UNAVAILABLE with a retry delay", st.Code(), st.Message())
	}
	h, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
	if err != nil || h.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("health before ready = %v, %v; want NOT_SERVING", h.GetStatus(), err)
	}

	s.Ready().Set("database", "")
	if a := do(t, "GET", "http://"+httpAddr+"/account/api/subscription/available/add-ons?currency=USD", "", ""); a.status != 200 {
		t.Errorf("GET once ready = %d %s", a.status, a.raw)
	}
	if _, err := client.ListAvailablePlans(context.Background(), &catalogv1.ListAvailablePlansRequest{Currency: "USD"}); err != nil {
		t.Errorf("gRPC once ready = %v", err)
	}
}

// Run returns only after the workers started with Go have, so the pool an App closes when
// Run returns is not closed under a relay or consumer still finishing its work (they ran
// fire-and-forget beside Run before).
func TestRunWaitsForItsWorkers(t *testing.T) {
	t.Parallel()
	pool, err := db.Open(context.Background(), dbtest.New(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	s, cancel, runDone := startServerWith(t, &fake{}, nil)
	stopping, release, wrote := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	s.Go(func(ctx context.Context) {
		<-ctx.Done()
		close(stopping)
		<-release
		// A worker's last write on its way out (a relay marking what it sent, say).
		_, err := pool.Exec(context.WithoutCancel(ctx), "SELECT 1")
		wrote <- err
	})
	closed := make(chan struct{})
	go func() {
		<-runDone
		pool.Close() // what every App does when Run returns
		close(closed)
	}()
	cancel()
	<-stopping
	// Run cannot return now (the worker is held), so this wait only bounds how long a
	// broken Run has to show itself; it never decides a pass.
	select {
	case <-closed:
		t.Fatal("Run returned (and the pool closed) while a worker was still stopping")
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	<-closed
	if err := <-wrote; err != nil {
		t.Fatalf("the worker's last write failed: %v", err)
	}
}
