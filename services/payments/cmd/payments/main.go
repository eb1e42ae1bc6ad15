// Command payments runs the payments service.
//
//	payments       serve (configuration from the environment, see `payments env`)
//	payments env   list the environment variables and their defaults
//	payments migrate apply the migrations and exit (the chart's per-release Job)
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/payments/app"
)

func main() {
	// gRPC logs through slog from the first line on (grpclog reads its logger unlocked).
	server.InstallGRPCLogs()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "payments:", err)
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
	if len(args) > 0 {
		if args[0] == "env" {
			app.PrintEnv(os.Stdout)
			return nil
		}
		return fmt.Errorf("unknown command %q (want env)", args[0])
	}
	cfg, err := app.LoadConfig()
	if err != nil {
		return err
	}
	a, err := app.New(ctx, cfg, os.Stdout)
	if err != nil {
		return err
	}
	return a.Run(ctx)
}
