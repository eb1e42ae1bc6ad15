package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// readerLogger is kafka-go's ErrorLogger for a group reader. A fetch that found nothing
// within the reader's wait ends in an i/o timeout that kafka-go reports as "an unknown
// error" before it fetches again: on a quiet stack that was ~179 warnings a minute for
// nothing wrong, so a timeout is logged at debug; every other error stays a warning.
func readerLogger(log *slog.Logger, group string) kafkago.Logger {
	return kafkago.LoggerFunc(func(msg string, args ...any) {
		level := slog.LevelWarn
		if idleTimeout(args) {
			level = slog.LevelDebug
		}
		log.Log(context.Background(), level, "kafka reader: "+fmt.Sprintf(msg, args...), "group", group)
	})
}

// idleTimeout: one of args is a timeout (a read deadline that passed).
func idleTimeout(args []any) bool {
	for _, a := range args {
		err, ok := a.(error)
		if !ok {
			continue
		}
		var t interface{ Timeout() bool }
		if errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &t) && t.Timeout()) {
			return true
		}
	}
	return false
}

// failureLog keeps a failure that repeats every round (the outbox relay while its database
// or the broker is down: ~11 ERROR lines a second) to one line per every: the first at once,
// then one per period saying how many were left out, and one when it recovers.
type failureLog struct {
	every time.Duration

	mu         sync.Mutex
	failing    bool
	last       time.Time
	suppressed int
	total      int
}

// failed answers whether this failure is logged, and how many were left out since the last
// line.
func (f *failureLog) failed(now time.Time) (log bool, suppressed int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.total++
	if f.failing && now.Sub(f.last) < f.every {
		f.suppressed++
		return false, 0
	}
	suppressed, f.suppressed = f.suppressed, 0
	f.failing, f.last = true, now
	return true, suppressed
}

// succeeded ends a failure streak: ok when one was under way, with its length.
func (f *failureLog) succeeded() (ended bool, failures int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.failing {
		return false, 0
	}
	failures = f.total
	f.failing, f.total, f.suppressed = false, 0, 0
	return true, failures
}
