package app_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
)

// With its database gone (connections closed, new ones refused) tokenisation answers a
// retryable 503 in the one error shape, never a 500.
func TestTokenizeWithTheDatabaseDownIs503(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	r.tokenize(t, "4111111111111111")

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

	for i := range 3 { // the pools' dead connections, then refused new ones
		code, body := r.postFields(t, "/api/tokenize", map[string]string{
			"number": "4111111111111111", "cvv": "737", "expirationDate": "12/2031", "cardholderName": "Amelia Earhart", "postalCode": "94105"})
		if code != 503 || body["code"] != "unavailable" || body["message"] == "" || body["nonce"] != nil {
			t.Errorf("tokenize %d with the database down = %d %v, want 503 unavailable", i+1, code, body)
		}
	}
}
