// Command catalog runs the catalog service.
//
//	catalog                  serve (configuration from the environment, see `catalog env`)
//	catalog load FILE        store a catalogue data file and make it the active version
//	catalog activate VERSION make a stored version active again (rollback)
//	catalog env              list the environment variables and their defaults
//	catalog migrate apply the migrations and exit (the chart's per-release Job)
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/catalog/app"
)

func main() {
	// gRPC logs through slog from the first line on (grpclog reads its logger unlocked).
	server.InstallGRPCLogs()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "catalog:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 1 && args[0] == "migrate" {
		cfg, err := app.LoadConfig()
		if err != nil {
			return err
		}
		return app.MigrateOnly(ctx, cfg, os.Stdout)
	}
	cfg, err := app.LoadConfig()
	if err != nil {
		return err
	}
	if len(args) == 0 {
		a, err := app.New(ctx, cfg, os.Stdout)
		if err != nil {
			return err
		}
		return a.Run(ctx)
	}
	switch args[0] {
	case "env":
		app.PrintEnv(os.Stdout)
		return nil
	case "load", "activate":
		if len(args) != 2 {
			return fmt.Errorf("usage: catalog %s ARG", args[0])
		}
		return app.Admin(ctx, cfg, args[0], args[1], os.Stdout)
	default:
		return fmt.Errorf("unknown command %q (want load, activate or env)", args[0])
	}
}
