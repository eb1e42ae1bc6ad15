package kafka_test

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hangar/hangar/internal/platform/kafka"
)

// The consumer's own database going away is not the event's fault (issue 30: during a
// PostgreSQL crash, consumers gave up after MaxAttempts "failed to connect" and
// dead-lettered an order's receipt e-mail). Each test publishes a good event and then a
// poison one on one partition, keeps the database away for longer than MaxAttempts, and
// checks: the good event is handled once after the database is back, and the only dead
// letter is the poison event, after MaxAttempts attempts of its handler's own failure.

const (
	outageTopic = "hangar.test.receipt.v1"
	poison      = "poison"
)

// flakyPool is a pool on the rig's database whose connections are refused (a dial to a
// closed port: a real "failed to connect") while down is set; dials counts the attempts.
func (r *rig) flakyPool(t *testing.T) (pool *pgxpool.Pool, down *atomic.Bool, dials *atomic.Int64) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(r.pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	down, dials = new(atomic.Bool), new(atomic.Int64)
	var d net.Dialer
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		if down.Load() {
			return d.DialContext(ctx, "tcp", "127.0.0.1:1")
		}
		return d.DialContext(ctx, network, addr)
	}
	if pool, err = pgxpool.NewWithConfig(r.ctx, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, down, dials
}

// publishReceiptThenPoison publishes the good event, then the poison one, on one partition.
func (r *rig) publishReceiptThenPoison(t *testing.T) {
	t.Helper()
	if err := kafka.EnsureTopic(r.ctx, r.broker.Addrs(), outageTopic, 1); err != nil {
		t.Fatal(err)
	}
	r.publish(t, kafka.Event{Topic: outageTopic, Key: "order-1", Payload: []byte("receipt")},
		kafka.Event{Topic: outageTopic, Key: "order-1", Payload: []byte(poison)})
}

// effect is a handler's work on one event: the poison one fails (the handler's fault),
// any other is a row in effects.
func effect(ctx context.Context, tx pgx.Tx, env kafka.Envelope) error {
	if string(env.Data) == poison {
		return errors.New("cannot handle poison")
	}
	_, err := tx.Exec(ctx, `INSERT INTO effects VALUES ($1, $2)`, env.ID, string(env.Data))
	return err
}

// waitFor polls cond until it holds; what names it when it never does.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// assertOnlyPoisonDeadLettered waits for the poison event's dead letter (it comes after
// the good event on the partition, so the good one's fate is known by then) and checks
// that it is the only one and the good event was handled once.
func (r *rig) assertOnlyPoisonDeadLettered(t *testing.T, reg *prometheus.Registry, group string) {
	t.Helper()
	waitFor(t, "poison dead-lettered", func() bool {
		return testutil.ToFloat64(collectorFor(reg, "hangar_kafka_consumer_dead_letters_total", map[string]string{"group": group})) >= 1
	})
	dead, err := kafka.ReadDeadLetters(r.ctx, r.broker.Addrs(), outageTopic, kafka.ReplayFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dead {
		if string(d.Data) != poison {
			t.Errorf("%q dead-lettered after %d attempts: %s", d.Data, d.Attempts, d.Error)
		}
	}
	if len(dead) != 1 || string(dead[0].Data) != poison || dead[0].Attempts != 3 || dead[0].Error != "cannot handle poison" {
		t.Errorf("%d dead letters, want the poison event alone after 3 attempts of its handler", len(dead))
	}
	if n := r.count(t, `SELECT count(*) FROM effects WHERE body = 'receipt'`); n != 1 {
		t.Errorf("receipt handled %d times, want 1", n)
	}
}

// An InboxConsumer whose database refuses connections for longer than MaxAttempts waits
// it out.
func TestInboxConsumerWaitsOutDatabaseOutage(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	cfg, reg, down, dials := r.duringOutage(t, "outage")
	c := kafka.NewInboxConsumer(cfg)
	c.Handle(outageTopic, effect)
	stop := r.runUntilStop(t, "consumer", c.Run)

	// More refused attempts than MaxAttempts (3), besides the inbox prune's one.
	waitFor(t, "6 connection attempts", func() bool { return dials.Load() >= 6 })
	down.Store(false)
	r.assertOnlyPoisonDeadLettered(t, reg, "outage")
	stop()
	if n := testutil.ToFloat64(collectorFor(reg, "hangar_kafka_consumer_outage_retries_total", map[string]string{"group": "outage"})); n < 3 {
		t.Errorf("outage retries = %v, want at least 3", n)
	}
}

// A consumer stopped while it waits for its database leaves the event uncommitted and not
// dead-lettered: the next member of the group handles it.
func TestConsumerStoppedDuringOutageLeavesEventForRedelivery(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	cfg, reg, down, dials := r.duringOutage(t, "stopped")
	c := kafka.NewInboxConsumer(cfg)
	c.Handle(outageTopic, effect)
	stop := r.runUntilStop(t, "consumer", c.Run)
	waitFor(t, "6 connection attempts", func() bool { return dials.Load() >= 6 })
	stop() // fails the test if Run answers an error
	if n := testutil.ToFloat64(collectorFor(reg, "hangar_kafka_consumer_dead_letters_total", map[string]string{"group": "stopped"})); n != 0 {
		t.Errorf("%v dead letters by the consumer stopped during the outage", n)
	}

	down.Store(false)
	reg2 := prometheus.NewRegistry()
	r.consume(t, "stopped", reg2, effect, outageTopic)
	r.assertOnlyPoisonDeadLettered(t, reg2, "stopped")
}

// A connection lost in the middle of the handler (the server ends the session: FATAL
// 57P01, as a shutdown or failover does) more times than MaxAttempts is waited out too.
func TestInboxConsumerWaitsOutLostConnection(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.publishReceiptThenPoison(t)
	var lost atomic.Int64
	h := func(ctx context.Context, tx pgx.Tx, env kafka.Envelope) error {
		if string(env.Data) != poison && lost.Add(1) <= 5 {
			if _, err := tx.Exec(ctx, `SELECT pg_terminate_backend(pg_backend_pid())`); err != nil {
				return err
			}
			return errors.New("the terminated session answered")
		}
		return effect(ctx, tx, env)
	}
	reg := prometheus.NewRegistry()
	stop := r.consume(t, "lost", reg, h, outageTopic)
	r.assertOnlyPoisonDeadLettered(t, reg, "lost")
	stop()
	if n := lost.Load(); n != 6 {
		t.Errorf("handler ran %d times for the receipt, want 5 lost and 1 handled", n)
	}
}

// An InboxBatchConsumer waits the outage out on the whole batch, then handles the good
// event and dead-letters the poison one as before.
func TestBatchConsumerWaitsOutDatabaseOutage(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	cfg, reg, down, dials := r.duringOutage(t, "batch-outage")
	h := func(ctx context.Context, tx pgx.Tx, envs []kafka.Envelope) error {
		for _, env := range envs {
			if err := effect(ctx, tx, env); err != nil {
				return err
			}
		}
		return nil
	}
	b := kafka.NewInboxBatchConsumer(cfg, outageTopic, h, kafka.BatchOptions{Max: 2, Linger: time.Minute})
	stop := r.runUntilStop(t, "batch consumer", b.Run)

	waitFor(t, "6 connection attempts", func() bool { return dials.Load() >= 6 })
	down.Store(false)
	r.assertOnlyPoisonDeadLettered(t, reg, "batch-outage")
	stop()
}

// duringOutage is a consumer configuration of group whose database refuses connections
// (down is true) with the receipt and the poison event published; dials counts the
// refused connection attempts.
func (r *rig) duringOutage(t *testing.T, group string) (cfg kafka.ConsumerConfig, reg *prometheus.Registry, down *atomic.Bool, dials *atomic.Int64) {
	t.Helper()
	pool, down, dials := r.flakyPool(t)
	down.Store(true)
	r.publishReceiptThenPoison(t)
	reg = prometheus.NewRegistry()
	cfg = r.config(kafka.ConsumerConfig{Group: group, Registry: reg})
	cfg.Pool, cfg.MaxBackoff = pool, 50*time.Millisecond
	return cfg, reg, down, dials
}
