package db

import (
	"context"
	"log/slog"
	"time"

	"github.com/cenkalti/backoff/v5"
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
		err := retryEvery(ctx, 2*time.Second, func() error { return EnsureDatabase(ctx, cfg.URL) }, func(err error) {
			report(err.Error())
			log.WarnContext(ctx, "cannot create database yet; retrying", "err", err.Error())
		})
		if err != nil {
			return false
		}
	}
	err := WaitReady(ctx, pool, DefaultBackoff, func(err error, next time.Duration) {
		report("unreachable")
		log.WarnContext(ctx, "database unreachable; retrying", "err", err.Error(), "retry_in", next.String())
	})
	if err != nil {
		return false
	}
	err = retryEvery(ctx, 5*time.Second, func() error { return prepare(ctx) }, func(err error) {
		report(err.Error())
		log.ErrorContext(ctx, "preparing data failed; retrying", "err", err.Error())
	})
	if err != nil {
		return false
	}
	report("")
	return true
}

// retryEvery runs op until it succeeds or ctx ends, every d, telling onErr each failure.
func retryEvery(ctx context.Context, d time.Duration, op func() error, onErr func(error)) error {
	_, err := backoff.Retry(ctx, func() (struct{}, error) { return struct{}{}, op() },
		backoff.WithBackOff(backoff.NewConstantBackOff(d)), backoff.WithMaxElapsedTime(0),
		backoff.WithNotify(func(err error, _ time.Duration) { onErr(err) }))
	return err
}
