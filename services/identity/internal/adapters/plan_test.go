package adapters_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/services/identity/internal/adapters"
)

// The welcome check finds an account's welcome link through an index, used or not: it read
// the whole password_links table once per welcomed account (password_links_account holds
// unused links only), a cost that grew with every account the store ever welcomed.
func TestWelcomeCheckReadsAnIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	// Statistics of a store that has welcomed many accounts, their links used.
	if _, err := pool.Exec(ctx, `INSERT INTO accounts (uuid, email, password_hash, kind)
		SELECT gen_random_uuid(), 'buyer' || g || '@example.com', 'x', 'individual' FROM generate_series(1, 2000) g`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO password_links (token_hash, account_uuid, purpose, created_at, expires_at, used_at)
		SELECT decode(md5(uuid::text), 'hex'), uuid, 'welcome', now(), now() + interval '1 day', now() FROM accounts`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE accounts, password_links`); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	args := []any{[]string{"0190b2d4-0000-7000-8000-000000000001"}, [][]byte{[]byte("hash")}, []string{"welcome"}, []time.Time{now}, []time.Time{now.Add(time.Hour)}}
	plan := dbtest.IndexPlan(t, pool, adapters.WelcomeSQL, args...)
	if !strings.Contains(plan, "password_links_welcome") {
		t.Errorf("the welcome check does not read password_links_welcome:\n%s", plan)
	}
}
