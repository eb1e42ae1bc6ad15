// Package ratelimit is Hangar's one rate limiter: token buckets, in the process for a
// cheap first filter (Limiter, golang.org/x/time/rate) and shared by every replica of a
// service in its database (PostgreSQL, GCRA in the rate_limits table of Schema). The
// shared store offers what the services' limits need: Take (n tokens or none; refused
// calls are not counted), Count (counted even when refused, so a guesser that keeps
// trying stays refused), Return (tokens given back) and Reset. Shared and UnaryShared
// guard the anonymous doors per client address with the local filter in front of the
// shared bucket; checkout's code limit and identity's failed-login throttle are domain
// rules over the same store. A refused call is errs.Exhausted with the time to wait, so
// it answers 429 with Retry-After through the platform's error mapping.
package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"google.golang.org/grpc"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Rule is a token bucket: Burst calls at once, refilled at Every per call.
type Rule struct {
	Every time.Duration
	Burst int
}

// Limiter holds one bucket per key, at most max keys (the least recently refilled are
// dropped first when full: a full table only happens under a flood).
type Limiter struct {
	rule Rule
	max  int
	now  func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// New builds a limiter of rule over at most maxKeys keys; now is the clock.
func New(rule Rule, maxKeys int, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{rule: rule, max: max(maxKeys, 16), now: now, buckets: map[string]*bucket{}}
}

// Allow takes a token for key, or answers how long until one is free.
func (l *Limiter) Allow(key string) (ok bool, wait time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, found := l.buckets[key]
	if !found {
		if len(l.buckets) >= l.max {
			l.evict(now)
		}
		b = &bucket{lim: rate.NewLimiter(rate.Every(l.rule.Every), l.rule.Burst)}
		l.buckets[key] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if !r.OK() {
		return false, l.rule.Every
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// evict drops buckets idle long enough to be full again, then, if still full, half.
func (l *Limiter) evict(now time.Time) {
	full := l.rule.Every * time.Duration(max(l.rule.Burst, 1))
	for k, b := range l.buckets {
		if now.Sub(b.seen) > full {
			delete(l.buckets, k)
		}
	}
	for k := range l.buckets {
		if len(l.buckets) < l.max/2+1 {
			break
		}
		delete(l.buckets, k)
	}
}

// Unary throttles the gRPC methods named in rules (full method names) per key(ctx),
// usually the client address. Other methods pass.
func Unary(rules map[string]Rule, key func(context.Context) string, now func() time.Time) grpc.UnaryServerInterceptor {
	limiters := make(map[string]*Limiter, len(rules))
	for m, r := range rules {
		limiters[m] = New(r, 100_000, now)
	}
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if l, ok := limiters[info.FullMethod]; ok {
			if ok, wait := l.Allow(key(ctx)); !ok {
				return nil, Refusal(wait)
			}
		}
		return handler(ctx, req)
	}
}

// Refusal is the answer to a throttled call: 429 with the time to wait, said plainly.
func Refusal(wait time.Duration) *errs.Error {
	secs := int((wait + time.Second - 1) / time.Second)
	msg := "Too many requests. Please try again in a moment."
	if secs > 1 {
		msg = fmt.Sprintf("Too many requests. Please try again in %d seconds.", secs)
	}
	return errs.Throttled(wait, "%s", msg)
}
