package app_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
)

// Issue 39: the catalogue lives in memory once loaded, so a database outage does not stop
// the pricing pages: the plans are still served and the process stays ready (before, the
// first readiness probe that failed its ping made every route answer 503).
func TestCatalogueServedWhileTheDatabaseIsDown(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.New(t)
	r := start(t, dbURL, nil)
	r.waitReady(t)
	plans := "http://" + r.http + "/account/api/subscription/available/add-ons"
	if resp, body := get(t, plans, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("plans with the database up: %d %s", resp.StatusCode, body)
	}

	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dbtest.DefaultServerURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	db := pgx.Identifier{name}.Sanitize()
	if _, err := admin.Exec(ctx, `ALTER DATABASE `+db+` ALLOW_CONNECTIONS false`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), `ALTER DATABASE `+db+` ALLOW_CONNECTIONS true`) })
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, name); err != nil {
		t.Fatal(err)
	}
	// Each /readyz runs the probes: the pool's closed connections are found one per ping.
	for i := range 20 {
		if resp, body := get(t, "http://"+r.admin+"/readyz", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("/readyz #%d with the database down: %d %s; the catalogue in memory can still be served", i+1, resp.StatusCode, body)
		}
	}
	if resp, body := get(t, plans, nil); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "performance") {
		t.Errorf("plans with the database down: %d %s; want the catalogue in memory", resp.StatusCode, body)
	}
	prices := "http://" + r.http + "/buy/api/subscription/add-on-prices?addOnCodes=performance&currency=USD"
	if resp, body := get(t, prices, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("add-on prices with the database down: %d %s", resp.StatusCode, body)
	}
}
