package adapters_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/services/notifications/internal/adapters"
	"github.com/hangar/hangar/services/notifications/internal/domain"
)

// A sender's batch statements name their messages by id and find each with one primary-key
// probe, however much the queue has churned: a queue whose messages_pending index holds
// thousands of entries of messages sent since the last vacuum (statistics saying nothing is
// pending) must not be read through that index for a batch of 30. (Spelled as the index's
// predicate, the statement was planned through it: 3.3 ms a batch at 160 orders/s.)
func TestHandingProbesTheBatchByPrimaryKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, pool := newStore(t)
	if _, err := pool.Exec(ctx, `ALTER TABLE messages SET (autovacuum_enabled = false)`); err != nil {
		t.Fatal(err)
	}
	var sent []domain.Message
	for i := range 2000 {
		sent = append(sent, mail(i, "receipt"))
	}
	queue(t, pool, s, sent...)
	if _, err := pool.Exec(ctx, `UPDATE messages SET sent_at = now()`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE messages`); err != nil {
		t.Fatal(err)
	}
	var batch []domain.Message
	for i := 2000; i < 2030; i++ {
		batch = append(batch, mail(i, "receipt"))
	}
	queue(t, pool, s, batch...)
	ids, fences := make([]string, len(batch)), make([]int64, len(batch))
	for i, m := range batch {
		ids[i] = m.ID
	}
	plan := dbtest.IndexPlan(t, pool, adapters.HandingSQL, ids, fences)
	if strings.Contains(plan, "messages_pending") || !strings.Contains(plan, "messages_pkey") {
		t.Errorf("the batch is not read by primary key:\n%s", plan)
	}
}
