package kafka

import (
	"context"
	"log/slog"
	"time"

	"google.golang.org/protobuf/proto"
)

// restartPause is how long KeepRunning waits before starting a stopped consumer again: long
// enough not to spin on a broker that is down, short enough that a blip costs little lag.
const restartPause = time.Second

// KeepRunning runs c until ctx ends, starting it again restartPause after it stops with an
// error (a broker error ends a consumer's Run; the group resumes at its committed offsets).
// name says which consumer in the log.
func KeepRunning(ctx context.Context, log *slog.Logger, name string, c interface{ Run(context.Context) error }) {
	for ctx.Err() == nil {
		err := c.Run(ctx)
		if err == nil || ctx.Err() != nil {
			continue
		}
		log.ErrorContext(ctx, "consumer stopped; restarting", "consumer", name, "err", err.Error())
		select {
		case <-ctx.Done():
		case <-time.After(restartPause):
		}
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
