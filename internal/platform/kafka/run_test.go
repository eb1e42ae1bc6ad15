package kafka_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/hangar/hangar/gen/go/hangar/events/v1"
	"github.com/hangar/hangar/internal/platform/kafka"
)

type runnerFunc func(context.Context) error

func (f runnerFunc) Run(ctx context.Context) error { return f(ctx) }

// A consumer that stops with an error is started again; KeepRunning returns once ctx ends.
func TestKeepRunningRestartsAStoppedConsumer(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runs := 0
	kafka.KeepRunning(ctx, slog.New(slog.DiscardHandler), "test", runnerFunc(func(ctx context.Context) error {
		runs++
		if runs < 3 {
			return errors.New("broker gone")
		}
		cancel()
		return ctx.Err()
	}))
	if runs != 3 {
		t.Errorf("runs = %d, want 3 (two failures restarted, then stopped with ctx)", runs)
	}
}

func TestDecodeAll(t *testing.T) {
	t.Parallel()
	envs := make([]kafka.Envelope, 2)
	for i, id := range []string{"s-1", "s-2"} {
		b, err := proto.Marshal(&eventsv1.SubscriptionChanged{SubscriptionId: id})
		if err != nil {
			t.Fatal(err)
		}
		envs[i] = kafka.Envelope{ID: id, Type: "subscription-changed", Data: b}
	}
	evs, err := kafka.DecodeAll[eventsv1.SubscriptionChanged](envs)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].GetSubscriptionId() != "s-1" || evs[1].GetSubscriptionId() != "s-2" {
		t.Errorf("decoded %v", evs)
	}
	// A payload that is not the message fails the batch permanently (the event is dead-lettered).
	envs = append(envs, kafka.Envelope{ID: "bad", Data: []byte{0xff, 0xff, 0xff}})
	if _, err := kafka.DecodeAll[eventsv1.SubscriptionChanged](envs); !kafka.IsPermanent(err) {
		t.Errorf("garbage payload: err = %v, want a permanent error", err)
	}
}
