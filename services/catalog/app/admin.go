package app

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/telemetry"
	"github.com/hangar/hangar/services/catalog/internal/adapters"
	iapp "github.com/hangar/hangar/services/catalog/internal/app"
)

// Admin runs an operator command: "load FILE" stores and activates a data file; "activate
// VERSION" re-activates a stored one. Running services pick the change up within
// CATALOG_REFRESH_INTERVAL, without a restart.
func Admin(ctx context.Context, cfg Config, cmd, arg string, out io.Writer) error {
	config.ServiceDefaults(Name, &cfg.Platform, &cfg.Database)
	log, err := telemetry.NewLogger(out, cfg.LogLevel, "text", cfg.ServiceName)
	if err != nil {
		return err
	}
	pool, err := db.Open(ctx, cfg.URL, 2)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", log); err != nil {
		return err
	}
	store := adapters.NewStore(pool)
	switch cmd {
	case "load":
		raw, err := os.ReadFile(arg)
		if err != nil {
			return err
		}
		version, err := iapp.LoadVersion(ctx, store, raw)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "catalogue %s loaded and active\n", version)
	case "activate":
		if err := iapp.ActivateVersion(ctx, store, arg); err != nil {
			return err
		}
		fmt.Fprintf(out, "catalogue %s active\n", arg)
	}
	return nil
}

// PrintEnv lists the environment variables the service reads.
func PrintEnv(out io.Writer) { config.PrintEnv(out, &Config{}) }
