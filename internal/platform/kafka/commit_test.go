package kafka_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// offsets answers, by partition of topic, group's committed offset (-1: none) and the
// partition's end (the offset the next message will get).
func (r *rig) offsets(t *testing.T, group, topic string) (committed, end map[int]int64) {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(r.broker.Addrs()...)}
	meta, err := c.Metadata(r.ctx, &kafkago.MetadataRequest{Topics: []string{topic}})
	if err != nil || len(meta.Topics) != 1 || len(meta.Topics[0].Partitions) == 0 {
		t.Fatalf("metadata: %v %+v", err, meta)
	}
	var ids []int
	var reqs []kafkago.OffsetRequest
	for _, p := range meta.Topics[0].Partitions {
		ids = append(ids, p.ID)
		reqs = append(reqs, kafkago.LastOffsetOf(p.ID))
	}
	fetched, err := c.OffsetFetch(r.ctx, &kafkago.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: ids}})
	if err == nil {
		err = fetched.Error
	}
	if err != nil {
		t.Fatalf("committed offsets of %s: %v", group, err)
	}
	logs, err := c.ListOffsets(r.ctx, &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{topic: reqs}})
	if err != nil {
		t.Fatalf("partition ends: %v", err)
	}
	committed, end = map[int]int64{}, map[int]int64{}
	for _, p := range fetched.Topics[topic] {
		committed[p.Partition] = p.CommittedOffset
	}
	for _, p := range logs.Topics[topic] {
		end[p.Partition] = p.LastOffset
	}
	return committed, end
}

// publishMany publishes n events of topic with keys spread over every partition.
func (r *rig) publishMany(t *testing.T, topic string, n int) {
	t.Helper()
	evs := make([]kafka.Event, n)
	for i := range evs {
		evs[i] = kafka.Event{Topic: topic, Key: fmt.Sprint("k", i%11), Payload: []byte(fmt.Sprint(i))}
	}
	r.publish(t, evs...)
}

// Offsets are committed in the background, not one round trip per message: with a commit
// interval longer than the test, nothing is committed while the consumer runs, and its
// clean stop commits every partition up to its end. Each event is handled exactly once.
func TestPendingOffsetsAreCommittedOnStop(t *testing.T) {
	t.Parallel()
	const n = 150
	for _, tc := range []struct {
		name    string
		consume func(r *rig, t *testing.T, cfg kafka.ConsumerConfig, topic string) (stop func())
	}{
		{"inbox consumer", func(r *rig, t *testing.T, cfg kafka.ConsumerConfig, topic string) func() {
			return r.consumeWith(t, cfg, r.record, topic)
		}},
		{"batch consumer", func(r *rig, t *testing.T, cfg kafka.ConsumerConfig, topic string) func() {
			return r.consumeBatches(t, cfg, topic, r.recordBatch(make(chan int, n)), kafka.BatchOptions{Max: 20})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			const topic, group = "hangar.test.commit.v1", "committer"
			r.publishMany(t, topic, n)
			commits := r.broker.CountRequests(kmsg.OffsetCommit)

			stop := tc.consume(r, t, kafka.ConsumerConfig{Group: group, CommitInterval: time.Hour}, topic)
			r.await(t, n)
			r.eventually(t, `SELECT count(*) FROM effects`, n)
			before, _ := r.offsets(t, group, topic)
			for p, off := range before {
				if off != -1 {
					t.Errorf("partition %d: offset %d committed before the interval or the stop", p, off)
				}
			}
			stop()

			committed, end := r.offsets(t, group, topic)
			var total int64
			for p, e := range end {
				total += e
				if committed[p] != e {
					t.Errorf("partition %d: committed %d after the stop, want its end %d", p, committed[p], e)
				}
			}
			if total != n {
				t.Errorf("partitions hold %d messages, want %d", total, n)
			}
			if got := commits.Load(); got == 0 || got > 3 {
				t.Errorf("%d offset commit requests for %d messages, want 1 (the stop's; a rebalance may add one)", got, n)
			}
			if got := r.count(t, `SELECT count(DISTINCT event_id) FROM effects`); got != n {
				t.Errorf("%d distinct events handled, want %d", got, n)
			}
			if got := r.count(t, `SELECT count(*) FROM effects`); got != n {
				t.Errorf("%d effects, want %d (each event once)", got, n)
			}
		})
	}
}

// Environment of the crashing consumer (TestCrashedConsumerChild).
const (
	envCrashChild = "HANGAR_KAFKA_CRASH_CHILD"
	envCrashDB    = "HANGAR_KAFKA_CRASH_DB"
	envCrashAddr  = "HANGAR_KAFKA_CRASH_BROKER"
)

// A consumer killed before it committed any offset (kill -9 in its commit interval) leaves
// its group where it was: the consumer that replaces it receives every event again, and
// the inbox skips them all. No effect is lost or doubled, and the new consumer's stop
// commits the partitions to their ends.
func TestCrashBeforeCommitRedeliversAndInboxSkips(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	const topic, group, n = "hangar.test.crash.v1", "crasher", 40
	r.publishMany(t, topic, n)

	// The consumer runs in a child process (this test binary), killed once every effect
	// committed: a crash, with no Close to flush the pending offsets.
	child := exec.Command(os.Args[0], "-test.run=^TestCrashedConsumerChild$")
	child.Env = append(os.Environ(), envCrashChild+"=1", envCrashDB+"="+r.pool.Config().ConnString(),
		envCrashAddr+"="+r.broker.Addrs()[0])
	var out bytes.Buffer
	child.Stdout, child.Stderr = &out, &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	for r.count(t, `SELECT count(*) FROM effects`) < n {
		select {
		case err := <-exited:
			t.Fatalf("consumer process exited (%v) before handling every event:\n%s", err, out.String())
		case <-r.ctx.Done():
			t.Fatalf("consumer process never handled every event:\n%s", out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	committed, _ := r.offsets(t, group, topic)
	for p, off := range committed {
		if off != -1 {
			t.Fatalf("partition %d: offset %d committed before the crash; the test needs none", p, off)
		}
	}

	reg := prometheus.NewRegistry()
	var again atomic.Int64
	stop := r.consumeWith(t, kafka.ConsumerConfig{Group: group, Registry: reg}, func(context.Context, pgx.Tx, kafka.Envelope) error {
		again.Add(1)
		return nil
	}, topic)
	for testutil.ToFloat64(duplicates(reg, group)) < n {
		select {
		case <-r.ctx.Done():
			t.Fatalf("%v of %d redelivered events seen", testutil.ToFloat64(duplicates(reg, group)), n)
		case <-time.After(20 * time.Millisecond):
		}
	}
	stop()
	if got := again.Load(); got != 0 {
		t.Errorf("handler ran again for %d redelivered events", got)
	}
	if got := r.count(t, `SELECT count(*) FROM effects`); got != n {
		t.Errorf("%d effects, want %d", got, n)
	}
	committed, end := r.offsets(t, group, topic)
	for p, e := range end {
		if committed[p] != e {
			t.Errorf("partition %d: committed %d after the restarted consumer stopped, want its end %d", p, committed[p], e)
		}
	}
}

// TestCrashedConsumerChild is the consumer that TestCrashBeforeCommitRedeliversAndInboxSkips
// kills: it records each event's effect in the parent's database and commits no offset
// (its interval is an hour) until it is killed.
func TestCrashedConsumerChild(t *testing.T) {
	t.Parallel()
	if os.Getenv(envCrashChild) == "" {
		t.Skip("run by TestCrashBeforeCommitRedeliversAndInboxSkips")
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv(envCrashDB))
	if err != nil {
		t.Fatal(err)
	}
	c := kafka.NewInboxConsumer(kafka.ConsumerConfig{Brokers: []string{os.Getenv(envCrashAddr)}, Group: "crasher", Pool: pool,
		Log: slog.New(slog.NewTextHandler(os.Stderr, nil)), Propagator: telemetry.Propagator(), CommitInterval: time.Hour})
	c.Handle("hangar.test.crash.v1", func(ctx context.Context, tx pgx.Tx, env kafka.Envelope) error {
		_, err := tx.Exec(ctx, `INSERT INTO effects VALUES ($1, $2)`, env.ID, string(env.Data))
		return err
	})
	t.Fatalf("consumer Run = %v (it should run until killed)", c.Run(ctx))
}
