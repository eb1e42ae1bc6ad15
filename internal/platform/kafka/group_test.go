package kafka_test

import (
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/hangar/hangar/internal/platform/kafka"
)

// commitPastEnd commits, for group, offset 1000 on every partition of topic: what the group
// had committed against a longer log the broker lost.
func (r *rig) commitPastEnd(t *testing.T, group, topic string) {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(r.broker.Addrs()...)}
	meta, err := c.Metadata(r.ctx, &kafkago.MetadataRequest{Topics: []string{topic}})
	if err != nil || len(meta.Topics) != 1 || len(meta.Topics[0].Partitions) == 0 {
		t.Fatalf("metadata: %v %+v", err, meta)
	}
	var past []kafkago.OffsetCommit
	for _, p := range meta.Topics[0].Partitions {
		past = append(past, kafkago.OffsetCommit{Partition: p.ID, Offset: 1000})
	}
	res, err := c.OffsetCommit(r.ctx, &kafkago.OffsetCommitRequest{GroupID: group, GenerationID: -1,
		Topics: map[string][]kafkago.OffsetCommit{topic: past}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Topics[topic] {
		if p.Error != nil {
			t.Fatalf("commit partition %d: %v", p.Partition, p.Error)
		}
	}
}

// awaitCommitted waits until group has committed offset want (the next offset to read) on
// partition 0 of topic: the point after which a later member of the group starts.
func (r *rig) awaitCommitted(t *testing.T, group, topic string, want int64) {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(r.broker.Addrs()...)}
	for deadline := time.Now().Add(30 * time.Second); ; {
		res, err := c.OffsetFetch(r.ctx, &kafkago.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: {0}}})
		if err == nil && len(res.Topics[topic]) == 1 && res.Topics[topic][0].CommittedOffset == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %s never committed offset %d of %s: %+v %v", group, want, topic, res, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A group whose committed offsets point past the end of its partitions (the broker came
// back with a shorter log) reads them again from their first offset: every event the new
// log holds is handled, and the group goes on from there. kafka-go alone waits forever for
// the log to grow back past the old offsets.
func TestCommittedOffsetPastTheEndReadsFromTheStart(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	const topic, group = "hangar.test.after-restart.v1", "after-restart"
	r.publish(t, kafka.Event{Topic: topic, Key: "a", Payload: []byte("one")}, kafka.Event{Topic: topic, Key: "b", Payload: []byte("two")},
		kafka.Event{Topic: topic, Key: "c", Payload: []byte("three")})
	r.commitPastEnd(t, group, topic)

	r.consume(t, group, nil, r.record, topic)
	r.await(t, 3)
	r.eventually(t, `SELECT count(*) FROM effects`, 3)

	r.publish(t, kafka.Event{Topic: topic, Key: "a", Payload: []byte("four")})
	if got := r.await(t, 1); got[0] != "four" {
		t.Errorf("then handled %v", got)
	}
	r.eventually(t, `SELECT count(*) FROM effects`, 4)
}

// The batch consumer follows the same policy.
func TestBatchConsumerCommittedOffsetPastTheEndReadsFromTheStart(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	const topic, group = "hangar.test.batch-after-restart.v1", "batch-after-restart"
	r.publish(t, kafka.Event{Topic: topic, Key: "a", Payload: []byte("one")}, kafka.Event{Topic: topic, Key: "b", Payload: []byte("two")})
	r.commitPastEnd(t, group, topic)

	r.consumeBatches(t, kafka.ConsumerConfig{Group: group}, topic, r.recordBatch(make(chan int, 10)), kafka.BatchOptions{})
	r.await(t, 2)
	r.eventually(t, `SELECT count(*) FROM effects`, 2)
}
