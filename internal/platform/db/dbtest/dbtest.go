// Package dbtest gives each test its own throwaway database on the real PostgreSQL server
// named by HANGAR_TEST_DATABASE_URL (default: the local server, user postgres), dropped
// when the test ends. There is no fake: storage tests run against PostgreSQL.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// DefaultServerURL is the server tests use unless HANGAR_TEST_DATABASE_URL says otherwise.
const DefaultServerURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

var unsafe = regexp.MustCompile(`[^a-z0-9_]+`)

// New creates an empty database for t and answers its URL. The database is dropped (with
// any connections still open) when the test and its subtests finish.
func New(t testing.TB) string {
	t.Helper()
	server := os.Getenv("HANGAR_TEST_DATABASE_URL")
	if server == "" {
		server = DefaultServerURL
	}
	u, err := url.Parse(server)
	if err != nil {
		t.Fatalf("parse HANGAR_TEST_DATABASE_URL: %v", err)
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := unsafe.ReplaceAllString(strings.ToLower(t.Name()), "_")
	if len(name) > 40 {
		name = name[:40]
	}
	name = "t_" + name + "_" + hex.EncodeToString(b[:])

	ctx := context.Background()
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatalf("connect to test PostgreSQL at %s (is it running? make test starts it): %v", u.Redacted(), err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("create test database %s: %v", name, err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, server)
		if err != nil {
			t.Errorf("connect to drop %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}
