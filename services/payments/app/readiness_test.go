package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
)

// Readiness tells the truth (issue 30): with its database lost after start, /readyz answers
// 503 naming it, and the store's routes answer a retryable 503 with Retry-After and no
// internal text; once the database is back, ready again. (/readyz stayed 200 while the
// database was down, and requests failed one by one.)
func TestReadinessFollowsTheDatabase(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	readyz := func() (int, string) {
		t.Helper()
		resp, err := http.Get("http://" + r.admin + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := readyz(); code != 200 {
		t.Fatalf("readyz with the database up: %d %s", code, body)
	}

	u, err := url.Parse(r.dbURL)
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
	exec := func(sql string) {
		t.Helper()
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	db := pgx.Identifier{name}.Sanitize()
	exec(`ALTER DATABASE ` + db + ` ALLOW_CONNECTIONS false`)
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), `ALTER DATABASE `+db+` ALLOW_CONNECTIONS true`) })
	exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '` + name + `'`)

	// The pool may still hand out a connection the server closed: each failed ping drops one.
	code, body := readyz()
	for i := 0; code == 200 && i < 40; i++ {
		code, body = readyz()
	}
	if code != 503 || !strings.Contains(body, "database: unreachable") {
		t.Fatalf("readyz with the database down: %d %s", code, body)
	}
	resp, err := http.Get(r.base + "/buy/api/payments/client-token")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var e map[string]any
	_ = json.Unmarshal(b, &e)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || e["code"] != "unavailable" ||
		strings.Contains(string(b), "dial") || strings.Contains(string(b), "rpc error") {
		t.Errorf("a route with the database down: %d Retry-After=%q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}

	exec(`ALTER DATABASE ` + db + ` ALLOW_CONNECTIONS true`)
	code, body = readyz()
	for i := 0; code != 200 && i < 40; i++ {
		code, body = readyz()
	}
	if code != 200 {
		t.Fatalf("readyz with the database back: %d %s", code, body)
	}
}
