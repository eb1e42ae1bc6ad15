package auth

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
)

func TestBreakerFailsFastWhileIdentityIsDown(t *testing.T) {
	var calls atomic.Int32
	var down atomic.Bool
	down.Store(true)
	identity := ResolverFunc(func(context.Context, string) (Caller, error) {
		calls.Add(1)
		if down.Load() {
			return Caller{}, errs.E(errs.Unavailable, "connection refused")
		}
		return Caller{Username: "pilot"}, nil
	})
	r := Breaker(identity, 3, 200*time.Millisecond)
	ctx := context.Background()
	for range 3 {
		if _, err := r.Resolve(ctx, "tok"); errs.CodeOf(err) != errs.Unavailable {
			t.Fatalf("Resolve = %v, want unavailable", err)
		}
	}
	for range 10 {
		if _, err := r.Resolve(ctx, "tok"); errs.CodeOf(err) != errs.Unavailable {
			t.Fatalf("Resolve while open = %v, want unavailable", err)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("identity called %d times; the open breaker must not call it", n)
	}
	down.Store(false)
	time.Sleep(250 * time.Millisecond)
	if c, err := r.Resolve(ctx, "tok"); err != nil || c.Username != "pilot" {
		t.Errorf("after the cooldown Resolve = %+v, %v; want the caller", c, err)
	}
}

func TestBreakerIgnoresInvalidSessions(t *testing.T) {
	var calls atomic.Int32
	identity := ResolverFunc(func(context.Context, string) (Caller, error) {
		calls.Add(1)
		return Caller{}, errs.E(errs.Unauthorized, "session expired")
	})
	r := Breaker(identity, 2, time.Minute)
	for range 10 {
		if _, err := r.Resolve(context.Background(), "old"); errs.CodeOf(err) != errs.Unauthorized {
			t.Fatalf("Resolve = %v, want unauthenticated", err)
		}
	}
	if n := calls.Load(); n != 10 {
		t.Errorf("identity called %d times; expired sessions must not open the breaker", n)
	}
}
