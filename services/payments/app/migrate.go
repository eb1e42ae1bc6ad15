package app

import (
	"context"
	"io"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/services/payments/internal/adapters"
)

// MigrateOnly is `payments migrate`: apply the service's migrations and exit. The chart runs it
// once per release in a pre-install/pre-upgrade Job; the replicas run with DB_MIGRATE=false.
func MigrateOnly(ctx context.Context, cfg Config, out io.Writer) error {
	return db.MigrateOnly(ctx, Name, cfg.Database, adapters.Migrations, "migrations", out)
}
