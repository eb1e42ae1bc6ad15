package kafka_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// An order's few events (more than one, fewer than COPY pays for) are one statement in one
// round trip, not a statement each, and their ids follow the order they were given in (the
// relay publishes in id order); one event and many events keep their single INSERT and COPY.
func TestEnqueueWritesAFewEventsInOneStatementInOrder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := db.Open(ctx, dbtest.New(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, kafka.OutboxSchema); err != nil {
		t.Fatal(err)
	}
	count := dbtest.Counter(t, pool)
	for _, c := range []struct {
		events int
		want   dbtest.Counts
	}{
		// BEGIN, the insert, COMMIT.
		{1, dbtest.Counts{Query: 3, Transactions: 1}},
		{3, dbtest.Counts{Query: 3, Transactions: 1}},
		{7, dbtest.Counts{Query: 3, Transactions: 1}},
		{8, dbtest.Counts{Query: 2, Copy: 1, Transactions: 1}},
	} {
		var evs []kafka.Event
		for i := range c.events {
			evs = append(evs, kafka.Event{Topic: "hangar.test.few.v1", Key: "k" + strconv.Itoa(c.events), Payload: []byte(strconv.Itoa(i))})
		}
		before := count()
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return kafka.Enqueue(ctx, tx, telemetry.Propagator(), evs...) }); err != nil {
			t.Fatalf("%d events: %v", c.events, err)
		}
		if got := count().Minus(before); got != c.want {
			t.Errorf("%d events: %+v, want %+v", c.events, got, c.want)
		}
		rows, err := pool.Query(ctx, `SELECT payload, headers->>'ce_id' FROM outbox WHERE key = $1 ORDER BY id`, []byte("k"+strconv.Itoa(c.events)))
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			Payload []byte
			ID      *string
		}
		got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != c.events {
			t.Fatalf("%d events: %d rows", c.events, len(got))
		}
		for i, r := range got {
			if string(r.Payload) != strconv.Itoa(i) || r.ID == nil || *r.ID == "" {
				t.Errorf("%d events: row %d is payload %q, id %v: want payload %d with its CloudEvents id", c.events, i, r.Payload, r.ID, i)
			}
		}
	}
}
