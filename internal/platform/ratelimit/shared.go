package ratelimit

import (
	"context"
	"log/slog"
	"time"

	"google.golang.org/grpc"
)

// Store holds buckets every replica of a service shares, so a limit holds for the
// service as a whole and not once per replica (PostgreSQL).
type Store interface {
	// Take takes n tokens of rule's bucket for key at now, atomically, or answers how long
	// until they are free.
	Take(ctx context.Context, key string, rule Rule, n int, now time.Time) (ok bool, wait time.Duration, err error)
}

// Shared is one rule held across replicas: each Allow first passes this process's bucket
// (x/time/rate, a cheap filter that keeps a flood on one replica off the database), then
// takes a token of the bucket shared in store under "<name>|<key>". When the store fails
// the call is let through on the local bucket alone (logged): an outage of the limit's
// table must not close the doors it guards. For a door that is not a whole gRPC method (a
// look-up only some requests of a method make); UnaryShared is one per method.
type Shared struct {
	name  string
	rule  Rule
	local *Limiter
	store Store
	now   func() time.Time
	log   *slog.Logger
}

// NewShared holds rule across replicas in store under name.
func NewShared(name string, rule Rule, now func() time.Time, store Store, log *slog.Logger) *Shared {
	if now == nil {
		now = time.Now
	}
	return &Shared{name: name, rule: rule, local: New(rule, 100_000, now), store: store, now: now, log: log}
}

// Allow takes a token for key, or answers Refusal (429 with the wait).
func (s *Shared) Allow(ctx context.Context, key string) error {
	if ok, wait := s.local.Allow(key); !ok {
		return Refusal(wait)
	}
	ok, wait, err := s.store.Take(ctx, s.name+"|"+key, s.rule, 1, s.now())
	switch {
	case err != nil:
		if s.log != nil {
			s.log.WarnContext(ctx, "ratelimit: shared store failed; local limit only", "limit", s.name, "err", err.Error())
		}
	case !ok:
		return Refusal(wait)
	}
	return nil
}

// UnaryShared is Unary held across replicas: every method named in rules is a Shared
// limit named by its full method name.
func UnaryShared(rules map[string]Rule, key func(context.Context) string, now func() time.Time, store Store, log *slog.Logger) grpc.UnaryServerInterceptor {
	limits := make(map[string]*Shared, len(rules))
	for m, r := range rules {
		limits[m] = NewShared(m, r, now, store, log)
	}
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		l, ok := limits[info.FullMethod]
		if !ok {
			return handler(ctx, req)
		}
		if err := l.Allow(ctx, key(ctx)); err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
}
