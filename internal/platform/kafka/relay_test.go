package kafka_test

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// Two relay replicas (two pools, as two pods would have) drain one outbox while events are
// still being written: every event arrives, and each key's events arrive in write order.
func TestTwoRelayReplicasKeepPerKeyOrder(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	const topic = "hangar.test.ordered.v1"
	const keys, perKey = 6, 30
	ctx, stopRelays := context.WithCancel(r.ctx)
	var wg sync.WaitGroup
	for range 2 {
		pool, err := pgxpool.New(r.ctx, r.pool.Config().ConnString())
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		producer := kafka.NewProducer(r.broker.Addrs(), telemetry.Propagator())
		defer producer.Close()
		relay := &kafka.Relay{Pool: pool, Producer: producer, Log: slog.New(slog.DiscardHandler), Interval: time.Millisecond, BatchSize: 7}
		wg.Add(1)
		go func() { defer wg.Done(); _ = relay.Run(ctx) }()
	}
	for seq := range perKey {
		var evs []kafka.Event
		for k := range keys {
			evs = append(evs, kafka.Event{Topic: topic, Key: "key-" + strconv.Itoa(k), Payload: fmt.Appendf(nil, "key-%d/%d", k, seq)})
		}
		// Each key's events in separate transactions, so the relays see partial histories.
		for _, e := range evs {
			if err := pgx.BeginFunc(r.ctx, r.pool, func(tx pgx.Tx) error { return kafka.Enqueue(r.ctx, tx, telemetry.Propagator(), e) }); err != nil {
				t.Fatal(err)
			}
		}
	}
	r.consume(t, "ordered", nil, r.record, topic)
	got := r.await(t, keys*perKey)
	r.eventually(t, `SELECT count(*) FROM outbox`, 0) // the relays delete after publishing
	stopRelays()
	wg.Wait()
	next := map[string]int{}
	for _, g := range got {
		key, seqText, _ := strings.Cut(g, "/")
		seq, _ := strconv.Atoi(seqText)
		if seq != next[key] {
			t.Fatalf("%s: got %d, want %d (order broken or event lost/duplicated)", key, seq, next[key])
		}
		next[key]++
	}
}

// The outbox metrics read the table at scrape time.
func TestOutboxMetrics(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	if err := pgx.BeginFunc(r.ctx, r.pool, func(tx pgx.Tx) error {
		return kafka.Enqueue(r.ctx, tx, telemetry.Propagator(), kafka.Event{Topic: "hangar.test.m.v1", Key: "a", Payload: []byte("1")},
			kafka.Event{Topic: "hangar.test.m.v1", Key: "b", Payload: []byte("2")})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.pool.Exec(r.ctx, `UPDATE outbox SET created_at = now() - interval '90 seconds' WHERE key = 'a'`); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	ctx, cancel := context.WithCancel(r.ctx)
	cancel() // register only: no brokers, no relay loop
	kafka.RunRelay(ctx, nil, r.pool, telemetry.Propagator(), slog.New(slog.DiscardHandler), kafka.WithRelayMetrics(reg))
	if n, err := testutil.GatherAndCount(reg, "hangar_outbox_depth"); err != nil || n != 1 {
		t.Fatalf("depth series = %d, %v", n, err)
	}
	if d := testutil.ToFloat64(collectorFor(reg, "hangar_outbox_depth", nil)); d != 2 {
		t.Errorf("depth = %v, want 2", d)
	}
	if age := testutil.ToFloat64(collectorFor(reg, "hangar_outbox_oldest_age_seconds", nil)); age < 90 || age > 3600 {
		t.Errorf("oldest age = %v, want about 90 s", age)
	}
}

// A relay round publishes every slot it can claim in one go and leaves alone a slot another
// replica holds; once that replica lets go, the slot's events leave too.
func TestRelayRoundSkipsSlotsHeldElsewhere(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	const topic = "hangar.test.slots.v1"
	keys := []string{}
	for k := 0; len(keys) < 12; k++ {
		keys = append(keys, "slot-key-"+strconv.Itoa(k))
	}
	for _, k := range keys {
		if err := pgx.BeginFunc(r.ctx, r.pool, func(tx pgx.Tx) error {
			return kafka.Enqueue(r.ctx, tx, telemetry.Propagator(), kafka.Event{Topic: topic, Key: k, Payload: []byte(k)})
		}); err != nil {
			t.Fatal(err)
		}
	}
	// Another replica holds the slot of the first key.
	held, err := r.pool.Acquire(r.ctx)
	if err != nil {
		t.Fatal(err)
	}
	var slot int32
	if err := held.QueryRow(r.ctx, `SELECT (get_byte(decode(md5($1::bytea), 'hex'), 0) % 16)::int4`, []byte(keys[0])).Scan(&slot); err != nil {
		t.Fatal(err)
	}
	if _, err := held.Exec(r.ctx, `SELECT pg_advisory_lock($1, $2)`, int32(0x6f757462), slot); err != nil {
		t.Fatal(err)
	}
	producer := kafka.NewProducer(r.broker.Addrs(), telemetry.Propagator())
	defer producer.Close()
	relay := &kafka.Relay{Pool: r.pool, Producer: producer, Log: slog.New(slog.DiscardHandler)}
	var inHeldSlot int
	if err := r.pool.QueryRow(r.ctx, `SELECT count(*) FROM outbox WHERE (get_byte(decode(md5(key), 'hex'), 0) % 16) = $1`, slot).Scan(&inHeldSlot); err != nil {
		t.Fatal(err)
	}
	n, err := relay.RelayOnce(r.ctx)
	if err != nil || n != len(keys)-inHeldSlot {
		t.Fatalf("round published %d (%v), want the %d events outside the held slot", n, err, len(keys)-inHeldSlot)
	}
	r.eventually(t, `SELECT count(*) FROM outbox`, inHeldSlot)
	if _, err := held.Exec(r.ctx, `SELECT pg_advisory_unlock($1, $2)`, int32(0x6f757462), slot); err != nil {
		t.Fatal(err)
	}
	held.Release()
	if n, err := relay.RelayOnce(r.ctx); err != nil || n != inHeldSlot {
		t.Fatalf("after release the round published %d (%v), want %d", n, err, inHeldSlot)
	}
	// The round's slot locks were all released: another session can take every slot.
	other, err := pgx.Connect(r.ctx, r.pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(r.ctx)
	var free int
	if err := other.QueryRow(r.ctx, `SELECT count(*) FILTER (WHERE pg_try_advisory_lock($1, s)) FROM generate_series(0, 15) s`, int32(0x6f757462)).Scan(&free); err != nil || free != 16 {
		t.Fatalf("free slots %d (%v), want 16", free, err)
	}
	r.consume(t, "slots", nil, r.record, topic)
	r.await(t, len(keys))
}

// The relay vacuums its outbox every VacuumEvery deleted rows (its scans would otherwise
// walk every dead row until autovacuum came, if it runs at all), and never when told not to.
func TestRelayVacuumsTheOutboxEveryVacuumEveryDeletedRows(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		every, want int
	}{{every: 100, want: 2}, {every: -1, want: 0}} {
		t.Run(strconv.Itoa(tc.every), func(t *testing.T) {
			r := newRig(t)
			r.relay.VacuumEvery = tc.every
			for round := range 5 { // five rounds of 50: a vacuum after the second and the fourth
				var evs []kafka.Event
				for i := range 50 {
					evs = append(evs, kafka.Event{Topic: "hangar.test.vacuum.v1", Key: fmt.Sprint("k-", round, "-", i), Payload: []byte("x")})
				}
				r.publish(t, evs...) // relays until the outbox is empty
			}
			var vacuums, left int
			if err := r.pool.QueryRow(r.ctx, `SELECT vacuum_count, (SELECT count(*) FROM outbox) FROM pg_stat_user_tables WHERE relname = 'outbox'`).
				Scan(&vacuums, &left); err != nil {
				t.Fatal(err)
			}
			if vacuums != tc.want || left != 0 {
				t.Errorf("vacuums %d with %d rows left, want %d and none left", vacuums, left, tc.want)
			}
		})
	}
}

// A relay woken by its pool's outbox writes (db.OutboxWrites, as RunRelay sets it up) sends
// its database nothing while the store is idle: one round when it starts, then none over
// an idle window (a 200 ms poll sent five claims a second, per service, for nothing). A
// committed event wakes it: one round (claim, read, delete, release) publishes it, and the
// relay is quiet again.
func TestIdleRelaySendsNothingUntilWoken(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	pool, err := db.Open(r.ctx, r.pool.Config().ConnString(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	counts := dbtest.Counter(t, pool)
	producer := kafka.NewProducer(r.broker.Addrs(), telemetry.Propagator())
	defer producer.Close()
	relay := &kafka.Relay{Pool: pool, Producer: producer, Log: slog.New(slog.DiscardHandler), Wake: db.OutboxWrites(pool), Interval: time.Hour}
	stop := r.runUntilStop(t, "relay", relay.Run)
	defer stop()
	const idle = time.Second // the window the idle relay is watched over
	statementsAfter := func(want float64) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); counts().Statements() < want; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%+v: never %v statements", counts(), want)
			}
		}
		time.Sleep(idle)
		if got := counts(); got.Statements() != want {
			t.Fatalf("%+v: want %v statements, then none over %v", got, want, idle)
		}
	}
	statementsAfter(1) // the first round's claim, which found no rows

	const topic = "hangar.test.woken.v1"
	r.consume(t, "woken", nil, r.record, topic)
	if err := pgx.BeginFunc(r.ctx, pool, func(tx pgx.Tx) error {
		return kafka.Enqueue(r.ctx, tx, telemetry.Propagator(), kafka.Event{Topic: topic, Key: "k", Payload: []byte("woken")})
	}); err != nil {
		t.Fatal(err)
	}
	if got := r.await(t, 1); got[0] != "woken" {
		t.Fatalf("got %v", got)
	}
	// BEGIN, INSERT, COMMIT of the write; claim, read, delete and release of the round.
	statementsAfter(1 + 3 + 4)
}

// Issue 44: a woken relay whose round finds a slot with rows held by another replica (whose
// round may have read it before these rows committed) looks again within a second, rather
// than at its idle interval (30 s; here an hour): the rows go once the slot is free.
func TestRelayLooksAgainSoonAfterAHeldSlot(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	pool, err := db.Open(r.ctx, r.pool.Config().ConnString(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	other, err := r.pool.Acquire(r.ctx) // another replica's relay, holding key k's slot
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	const slotOfK = `(get_byte(decode(md5('k'), 'hex'), 0) % 16)`
	if _, err := other.Exec(r.ctx, `SELECT pg_advisory_lock($1, `+slotOfK+`)`, relayLockClass); err != nil {
		t.Fatal(err)
	}
	producer := kafka.NewProducer(r.broker.Addrs(), telemetry.Propagator())
	defer producer.Close()
	relay := &kafka.Relay{Pool: pool, Producer: producer, Log: slog.New(slog.DiscardHandler), Wake: db.OutboxWrites(pool), Interval: time.Hour}
	defer r.runUntilStop(t, "relay", relay.Run)()

	const topic = "hangar.test.held.v1"
	r.consume(t, "held", nil, r.record, topic)
	counts := dbtest.Counter(t, pool)
	for deadline := time.Now().Add(30 * time.Second); counts().Statements() < 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the relay never ran its first round")
		}
	}
	before := counts() // after the first round's claim, which found no rows
	if err := pgx.BeginFunc(r.ctx, pool, func(tx pgx.Tx) error {
		return kafka.Enqueue(r.ctx, tx, telemetry.Propagator(), kafka.Event{Topic: topic, Key: "k", Payload: []byte("held")})
	}); err != nil {
		t.Fatal(err)
	}
	// BEGIN, INSERT, COMMIT; the woken round's claim, which found the slot held; and the
	// claim of the round after it, within a second (not the hour of its interval).
	for deadline := time.Now().Add(30 * time.Second); counts().Minus(before).Statements() < 3+2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%+v: the relay did not look again after the held slot", counts())
		}
	}
	if _, err := other.Exec(r.ctx, `SELECT pg_advisory_unlock($1, `+slotOfK+`)`, relayLockClass); err != nil {
		t.Fatal(err)
	}
	if got := r.await(t, 1); got[0] != "held" {
		t.Fatalf("got %v", got)
	}
}
