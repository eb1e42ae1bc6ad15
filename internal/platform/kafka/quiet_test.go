package kafka

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Issue 39: on a quiet stack kafka-go reports every idle fetch that ran into its read
// deadline as "an unknown error" (~179 warnings a minute); those are expected and logged
// at debug, while any other reader error is still a warning.
func TestReaderIdleTimeoutsAreNotWarnings(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	g := newGroupReader([]string{"127.0.0.1:1"}, "quiet", []string{"quiet-topic"}, time.Second, log)
	// Only the logger is under test: the reader's own attempts (no broker here) stop first.
	_ = g.r.Close()
	out.Reset()
	timeout := fmt.Errorf("read tcp 127.0.0.1:5->127.0.0.1:6: %w", os.ErrDeadlineExceeded)
	g.cfg.ErrorLogger.Printf("the kafka reader got an unknown error reading partition %d of %s at offset %d: %w", 3, "quiet-topic", 42, timeout)
	if out.Len() != 0 {
		t.Errorf("an idle fetch's i/o timeout was logged at info or above: %s", out.String())
	}
	g.cfg.ErrorLogger.Printf("the kafka reader got an unknown error reading partition %d of %s at offset %d: %w", 3, "quiet-topic", 42, errors.New("connection reset by peer"))
	if !strings.Contains(out.String(), "level=WARN") {
		t.Errorf("another reader error is not a warning: %q", out.String())
	}
}

// Issue 39: an outbox relay failing every round during an outage logs one ERROR line, not
// one per round (~11 a second), and says when it recovered.
func TestRelayOutageLogsOnce(t *testing.T) {
	t.Parallel()
	cfg, err := pgxpool.ParseConfig("postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const rounds = 25
	attempts := 0
	cfg.BeforeConnect = func(context.Context, *pgx.ConnConfig) error {
		attempts++
		if attempts == rounds {
			cancel()
		}
		return &pgconn.ConnectError{}
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var out bytes.Buffer
	r := &Relay{Pool: pool, Log: slog.New(slog.NewTextHandler(&out, nil)), Interval: time.Millisecond}
	if err := r.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "level=ERROR"); n != 1 {
		t.Errorf("%d ERROR lines over %d failed rounds, want 1:\n%s", n, rounds, out.String())
	}
}

func TestFailureLogSummarisesAStreak(t *testing.T) {
	t.Parallel()
	f := &failureLog{every: 30 * time.Second}
	t0 := time.Unix(1_800_000_000, 0)
	if log, _ := f.failed(t0); !log {
		t.Error("the first failure is not logged")
	}
	for i := range 10 {
		if log, _ := f.failed(t0.Add(time.Duration(i+1) * time.Second)); log {
			t.Fatalf("failure %d within the period logged", i+2)
		}
	}
	if log, left := f.failed(t0.Add(31 * time.Second)); !log || left != 10 {
		t.Errorf("after the period: logged %v, %d left out; want true, 10", log, left)
	}
	if ended, n := f.succeeded(); !ended || n != 12 {
		t.Errorf("recovery: %v after %d failures; want true, 12", ended, n)
	}
	if ended, _ := f.succeeded(); ended {
		t.Error("a second success ended a streak again")
	}
}
