// Command checkout runs the checkout service.
//
//	checkout       serve (configuration from the environment, see `checkout env`)
//	checkout env   list the environment variables and their defaults
//	checkout migrate apply the migrations and exit (the chart's per-release Job)
//	checkout renew [-as-of 2026-12-01] [-window 168h] [-dry-run]   the renewal pass (issue 17)
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/checkout/app"
)

func main() {
	// gRPC logs through slog from the first line on (grpclog reads its logger unlocked).
	server.InstallGRPCLogs()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "checkout:", err)
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
	if len(args) > 0 {
		if args[0] == "env" {
			app.PrintEnv(os.Stdout)
			return nil
		}
		if args[0] == "renew" {
			return app.Renew(ctx, cfg, args[1:], os.Stdout)
		}
		return fmt.Errorf("unknown command %q (want env or renew)", args[0])
	}
	a, err := app.New(ctx, cfg, os.Stdout)
	if err != nil {
		return err
	}
	return a.Run(ctx)
}
