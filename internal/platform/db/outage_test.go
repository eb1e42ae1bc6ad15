package db_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
)

// A database lost in the middle of a request is an outage, answered as every outage is:
// 503 with Retry-After and the public message, never 500 and never the driver's words
// (issue 30: "FATAL: terminating connection due to administrator command (SQLSTATE
// 57P01)" answered 500 internal). Two ways to lose it: the server ends the session under
// a running statement (pg_terminate_backend, as a shutdown or failover does), and the
// pool's server does not listen at all.
func TestLostDatabaseIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url := dbtest.New(t)
	pool, err := db.Open(ctx, url, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	admin, err := db.Open(ctx, url, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()

	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var pid int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := conn.Exec(ctx, "SELECT pg_sleep(60)"); done <- err }()
	// Terminated only once the statement runs: the request is in the middle.
	for running := false; !running; {
		if err := admin.QueryRow(ctx, "SELECT count(*) = 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event = 'PgSleep'", pid).Scan(&running); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	midRequest := <-done
	if midRequest == nil {
		t.Fatal("the statement of a terminated session succeeded")
	}

	closed, err := db.Open(ctx, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=5", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer closed.Close()
	_, refused := closed.Exec(ctx, "SELECT 1")
	if refused == nil {
		t.Fatal("a pool on a closed port answered")
	}

	for name, err := range map[string]error{
		"terminated mid-statement":           midRequest,
		"terminated, wrapped by the service": errs.Wrap(errs.Internal, midRequest, "Your account could not be created."),
		"closed port":                        refused,
	} {
		rec := httptest.NewRecorder()
		server.WriteError(rec, err)
		body := rec.Body.String()
		if rec.Code != http.StatusServiceUnavailable {
			t.Errorf("%s: status %d, want 503 (%s)", name, rec.Code, body)
		}
		if rec.Header().Get("Retry-After") == "" {
			t.Errorf("%s: no Retry-After", name)
		}
		for _, internal := range []string{"SQLSTATE", "terminating", "127.0.0.1", "dial", "internal"} {
			if strings.Contains(body, internal) {
				t.Errorf("%s: the answer says %q: %s", name, internal, body)
			}
		}
		if got := errs.CodeOf(err); got != errs.Unavailable {
			t.Errorf("%s: CodeOf = %s, want unavailable", name, got)
		}
	}
	if errors.Is(midRequest, context.Canceled) {
		t.Fatalf("the statement ended by the test's context, not the server: %v", midRequest)
	}
}
