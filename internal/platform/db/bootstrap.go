package db

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hangar/hangar/internal/platform/config"
)

// Bootstrap brings a service's database up, for a service that is already listening:
// creates the database when cfg allows it (dev), waits for the server with backoff, then
// runs prepare (migrations, seeds, first loads) until it succeeds. report receives why the
// database is not ready ("" once it is), for the readiness endpoint. It answers false when
// ctx ended first. Nothing here exits the process: an unreachable database is a state to
// report and retry, not a crash loop.
func Bootstrap(ctx context.Context, log *slog.Logger, pool *pgxpool.Pool, cfg config.Database, report func(reason string), prepare func(context.Context) error) bool {
	if cfg.CreateIfMissing {
		for ctx.Err() == nil {
			err := EnsureDatabase(ctx, cfg.URL)
			if err == nil {
				break
			}
			report(err.Error())
			log.WarnContext(ctx, "cannot create database yet; retrying", "err", err.Error())
			sleepCtx(ctx, 2*time.Second)
		}
	}
	err := WaitReady(ctx, pool, DefaultBackoff, func(err error, next time.Duration) {
		report("unreachable")
		log.WarnContext(ctx, "database unreachable; retrying", "err", err.Error(), "retry_in", next.String())
	})
	if err != nil {
		return false
	}
	for ctx.Err() == nil {
		if err := prepare(ctx); err != nil {
			report(err.Error())
			log.ErrorContext(ctx, "preparing data failed; retrying", "err", err.Error())
			sleepCtx(ctx, 5*time.Second)
			continue
		}
		report("")
		return true
	}
	return false
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
