package kafka

import (
	"context"
	"log/slog"
	"time"

	"github.com/cenkalti/backoff/v5"
	"google.golang.org/protobuf/proto"
)

// restartPause is how long KeepRunning waits before starting a stopped consumer again: long
// enough not to spin on a broker that is down, short enough that a blip costs little lag.
const restartPause = time.Second

// KeepRunning runs c until ctx ends, starting it again restartPause after it stops with an
// error (a broker error ends a consumer's Run; the group resumes at its committed offsets).
// name says which consumer in the log.
func KeepRunning(ctx context.Context, log *slog.Logger, name string, c interface{ Run(context.Context) error }) {
	for ctx.Err() == nil { // a Run that answers nil before ctx ends is started again at once
		_, _ = backoff.Retry(ctx, func() (struct{}, error) { return struct{}{}, c.Run(ctx) },
			backoff.WithBackOff(backoff.NewConstantBackOff(restartPause)), backoff.WithMaxElapsedTime(0),
			backoff.WithNotify(func(err error, _ time.Duration) {
				log.ErrorContext(ctx, "consumer stopped; restarting", "consumer", name, "err", err.Error())
			}))
	}
}

// DecodeAll decodes every envelope's payload as a T, for an InboxBatchHandler: a payload
// that does not decode fails the batch permanently, so the consumer dead-letters that event.
func DecodeAll[T any, PT interface {
	*T
	proto.Message
}](envs []Envelope) ([]PT, error) {
	out := make([]PT, len(envs))
	for i, env := range envs {
		out[i] = PT(new(T))
		if err := env.Decode(out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}
