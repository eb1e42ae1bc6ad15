// Package servicetest runs a service's app.App inside a test: listening on the loopback
// ports its config names (127.0.0.1:0 in tests), until the test ends.
package servicetest

import (
	"context"
	"sync"
	"testing"
	"time"
)

// App is what every service's app.App offers.
type App interface {
	Listen() error
	Addrs() (grpcAddr, httpAddr, adminAddr string)
	Ready() bool
	Run(ctx context.Context) error
}

// Start binds a's listeners and runs it with ctx (the context a was built with; cancel is
// its cancel) until stop is called or the test ends. stop waits for Run to return and
// answers its error: nil after a graceful shutdown.
func Start(t testing.TB, ctx context.Context, cancel context.CancelFunc, a App) (stop func() error) {
	t.Helper()
	if err := a.Listen(); err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	var once sync.Once
	var runErr error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(15 * time.Second):
				runErr = context.DeadlineExceeded
			}
		})
		return runErr
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// Run is Start, then waits up to 90 s for a to be ready: a guard against a stall, not a
// speed check (parallel tests start several stacks at once on a busy machine).
func Run(t testing.TB, ctx context.Context, cancel context.CancelFunc, a App) (stop func() error) {
	t.Helper()
	stop = Start(t, ctx, cancel, a)
	for deadline := time.Now().Add(90 * time.Second); !a.Ready(); {
		if time.Now().After(deadline) {
			t.Fatal("service not ready after 90 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return stop
}
