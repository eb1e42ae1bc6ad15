package kitclient_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/hangar/hangar/internal/platform/kitclient"
)

// Issue 30: breakers open on dependency failures, not on a rush of slow-but-healthy
// callers. Each case is one call through a breaker that opens on the first failure; the
// breaker must be open afterwards exactly when the call's outcome is the dependency's
// fault. The caller gives up either before the call (its deadline already passed, or it
// cancelled) or while the call waits; the call then ends as a gRPC client does.
func TestWhatOpensTheBreaker(t *testing.T) {
	t.Parallel()
	throttled, _ := status.New(codes.ResourceExhausted, "Too many declined card attempts.").
		WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(10 * time.Minute)})
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	expired := func() (context.Context, context.CancelFunc) {
		return context.WithDeadline(context.Background(), time.Unix(0, 0))
	}
	cancelled := func() (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx, cancel
	}
	live := func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
	// waits is a call that lasts until its context ends, then answers as grpc-go does.
	waits := func(ctx context.Context) error {
		<-ctx.Done()
		return status.FromContextError(ctx.Err()).Err()
	}
	answers := func(err error) func(context.Context) error { return func(context.Context) error { return err } }

	for _, tc := range []struct {
		name   string
		caller func() (context.Context, context.CancelFunc)
		call   func(context.Context) error
		opens  bool
	}{
		{"dependency UNAVAILABLE", live, answers(status.Error(codes.Unavailable, "connection refused")), true},
		{"connection refused (an HTTP API's dial)", live, answers(fmt.Errorf("post: %w", refused)), true},
		{"dependency INTERNAL", live, answers(status.Error(codes.Internal, "boom")), true},
		{"dependency slower than the per-attempt deadline", live, waits, true},
		{"caller's deadline already passed", expired, waits, false},
		{"caller's deadline passed, plain context error", expired, func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }, false},
		{"caller cancelled", cancelled, waits, false},
		{"caller gone, the connection answered UNAVAILABLE", cancelled, answers(status.Error(codes.Unavailable, "transport closing")), false},
		{"429 without a wait", live, answers(status.Error(codes.ResourceExhausted, "slow down")), false},
		{"429 naming its wait", live, answers(throttled.Err()), false},
		{"HTTP 429 marked as an answer", live, answers(kitclient.Permanent(errors.New("siteverify answered 429"))), false},
		{"not found", live, answers(status.Error(codes.NotFound, "no charge")), false},
		{"declined", live, answers(status.Error(codes.FailedPrecondition, "card declined")), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := kitclient.New(kitclient.Config{Client: "identity", Failures: 1, Cooldown: time.Hour, Timeout: 20 * time.Millisecond})
			ep := c.Endpoint("GetAccount", false, func(ctx context.Context, _ any) (any, error) { return nil, tc.call(ctx) })
			ctx, cancel := tc.caller()
			defer cancel()
			_, err := ep(ctx, nil)
			if err == nil {
				t.Fatal("the call succeeded")
			}
			if open := c.State() == gobreaker.StateOpen; open != tc.opens {
				t.Errorf("breaker open = %v after %v, want %v", open, err, tc.opens)
			}
		})
	}
}

// The caller sees the call's own error, not the breaker's bookkeeping around it.
func TestCallerGivingUpKeepsTheCallsError(t *testing.T) {
	t.Parallel()
	c := kitclient.New(kitclient.Config{Client: "identity"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	want := status.Error(codes.Canceled, "context canceled")
	_, err := c.Endpoint("GetAccount", false, func(context.Context, any) (any, error) { return nil, want })(ctx, nil)
	if err != want {
		t.Errorf("error = %#v, want the call's own %#v", err, want)
	}
}

// A call its caller abandoned says nothing of the remote: it counts as neither a failure
// nor a success. Counted as a success (gobreaker v1 has no third outcome), it reset the
// run of failures of a remote that was down, so callers giving up between failures kept
// the breaker closed, and an abandoned trial call closed a half-open breaker on a remote
// still down.
func TestAbandonedCallsCountAsNeither(t *testing.T) {
	t.Parallel()
	down := func(context.Context, any) (any, error) {
		return nil, status.Error(codes.Unavailable, "connection refused")
	}
	abandoned := func(c *kitclient.Client) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, _ = c.Endpoint("GetAccount", false, func(ctx context.Context, _ any) (any, error) {
			<-ctx.Done()
			return nil, status.FromContextError(ctx.Err()).Err()
		})(ctx, nil)
	}

	t.Run("between failures", func(t *testing.T) {
		c := kitclient.New(kitclient.Config{Client: "identity", Failures: 2, Cooldown: time.Hour})
		_, _ = c.Endpoint("GetAccount", false, down)(context.Background(), nil)
		abandoned(c)
		_, _ = c.Endpoint("GetAccount", false, down)(context.Background(), nil)
		if s := c.State(); s != gobreaker.StateOpen {
			t.Errorf("two failures of the remote with an abandoned call between: breaker %s, want open", s)
		}
	})

	t.Run("as the half-open trial", func(t *testing.T) {
		// A zero cooldown: the open breaker lets its trial call through at once.
		c := kitclient.New(kitclient.Config{Client: "identity", Failures: 1, Cooldown: time.Nanosecond})
		_, _ = c.Endpoint("GetAccount", false, down)(context.Background(), nil)
		abandoned(c)
		if s := c.State(); s == gobreaker.StateClosed {
			t.Errorf("an abandoned trial call closed the breaker of a remote that is down")
		}
	})
}
