package app_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/servicetest"
	"github.com/hangar/hangar/services/identity/app"
)

// A call that comes while identity's migrations have not run answers UNAVAILABLE (REST:
// 503 with Retry-After), not INTERNAL 'relation "accounts" does not exist' as at every
// `make dev` start before. The test holds the migrations back with their advisory lock
// (another replica migrating looks the same), and lets them go to see the same calls
// served.
func TestCallsBeforeMigrationsAreUnavailable(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.New(t)
	ctx := context.Background()
	holder, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	if _, err := holder.Exec(ctx, "SELECT pg_advisory_lock($1)", db.MigrationLockID); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{
		"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0", "SHUTDOWN_TIMEOUT": "2s",
		"DATABASE_URL": dbURL, "TRUSTED_PROXIES": "0", "LOG_LEVEL": "error",
	}
	var cfg app.Config
	if err := config.LoadFrom(&cfg, func(k string) (string, bool) { v, ok := vars[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	a, err := app.New(rctx, cfg, io.Discard)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	servicetest.Start(t, rctx, cancel, a)
	grpcAddr, httpAddr, _ := a.Addrs()
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := identityv1.NewIdentityServiceClient(conn)
	isBusiness := func() (int, string, error) {
		resp, err := http.Get("http://" + httpAddr + "/buy/api/isbusiness?email=pilot%40example.com")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		_, gerr := client.IsBusiness(ctx, &identityv1.IsBusinessRequest{Email: "pilot@example.com"})
		return resp.StatusCode, resp.Header.Get("Retry-After") + " " + string(body), gerr
	}

	code, answer, gerr := isBusiness()
	if code != http.StatusServiceUnavailable || answer[0] == ' ' {
		t.Errorf("REST before migrations = %d %s; want 503 with Retry-After", code, answer)
	}
	if st := status.Convert(gerr); st.Code() != codes.Unavailable {
		t.Errorf("gRPC before migrations = %v %q; want UNAVAILABLE", st.Code(), st.Message())
	}

	if _, err := holder.Exec(ctx, "SELECT pg_advisory_unlock($1)", db.MigrationLockID); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); !a.Ready(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("identity not ready 20 s after its migrations were let go")
		}
	}
	if code, answer, gerr := isBusiness(); code != http.StatusOK || gerr != nil {
		t.Errorf("once migrated: REST %d %s, gRPC %v; want both served", code, answer, gerr)
	}
}
