package auth

import (
	"context"
	"errors"
	"time"

	"github.com/go-kit/kit/circuitbreaker"
	"github.com/go-kit/kit/endpoint"
	"github.com/sony/gobreaker"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Breaker wraps a remote Resolver in a go-kit endpoint with a circuit breaker: after
// `failures` consecutive failures of identity itself (unavailable, internal; an unknown or
// expired session is an answer, not a failure) calls fail fast for `cooldown`, then one
// probe is let through. While identity is down every service answers at once instead of
// holding requests for the resolver's timeout, and identity is not hammered on recovery.
func Breaker(next Resolver, failures uint32, cooldown time.Duration) Resolver {
	cb := gobreaker.NewCircuitBreaker(gobreaker.Settings{
		Name:        "identity",
		MaxRequests: 1,
		Timeout:     cooldown,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= failures },
		IsSuccessful: func(err error) bool {
			code := errs.CodeOf(err)
			return err == nil || (code != errs.Unavailable && code != errs.Internal)
		},
	})
	var ep endpoint.Endpoint = func(ctx context.Context, req any) (any, error) {
		return next.Resolve(ctx, req.(string))
	}
	ep = circuitbreaker.Gobreaker(cb)(ep)
	return ResolverFunc(func(ctx context.Context, token string) (Caller, error) {
		resp, err := ep(ctx, token)
		if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
			return Caller{}, errs.Wrap(errs.Unavailable, err, "identity is unavailable")
		}
		if err != nil {
			return Caller{}, err
		}
		return resp.(Caller), nil
	})
}
