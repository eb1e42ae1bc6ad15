package kafka

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// DeadLetter is one message of a dead-letter topic.
type DeadLetter struct {
	Envelope
	OriginalTopic string
	Group         string // the consumer group that gave up
	Error         string
	Attempts      int
	FailedAt      time.Time
}

// ReplayFilter selects dead letters. Empty fields select everything.
type ReplayFilter struct {
	Group string   // only those a given consumer group gave up on
	IDs   []string // only these event ids
}

func (f ReplayFilter) match(d DeadLetter) bool {
	return (f.Group == "" || f.Group == d.Group) && (len(f.IDs) == 0 || slices.Contains(f.IDs, d.ID))
}

// ReadDeadLetters reads topic's dead-letter topic (<topic>.dlq) from its start to its
// current end and answers the messages f selects, oldest first per partition. It reads
// partitions directly (no consumer group), so listing changes nothing.
func ReadDeadLetters(ctx context.Context, brokers []string, topic string, f ReplayFilter) ([]DeadLetter, error) {
	dlqTopic := topic + DLQSuffix
	conn, err := kafkago.DialContext(ctx, "tcp", brokers[0])
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", brokers[0], err)
	}
	parts, err := conn.ReadPartitions(dlqTopic)
	_ = conn.Close()
	if err != nil {
		return nil, fmt.Errorf("partitions of %s: %w", dlqTopic, err)
	}
	var out []DeadLetter
	for _, p := range parts {
		lc, err := kafkago.DialLeader(ctx, "tcp", brokers[0], dlqTopic, p.ID)
		if err != nil {
			return nil, fmt.Errorf("dial leader of %s/%d: %w", dlqTopic, p.ID, err)
		}
		first, last, err := lc.ReadOffsets()
		_ = lc.Close()
		if err != nil {
			return nil, fmt.Errorf("offsets of %s/%d: %w", dlqTopic, p.ID, err)
		}
		if last <= first {
			continue
		}
		r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: brokers, Topic: dlqTopic, Partition: p.ID, MaxWait: 250 * time.Millisecond})
		if err := r.SetOffset(first); err != nil {
			_ = r.Close()
			return nil, err
		}
		for {
			msg, err := r.ReadMessage(ctx)
			if err != nil {
				_ = r.Close()
				return nil, fmt.Errorf("read %s/%d: %w", dlqTopic, p.ID, err)
			}
			d := deadLetterOf(msg)
			if f.match(d) {
				out = append(out, d)
			}
			if msg.Offset >= last-1 {
				break
			}
		}
		_ = r.Close()
	}
	return out, nil
}

func deadLetterOf(msg kafkago.Message) DeadLetter {
	h := Headers(msg.Headers)
	d := DeadLetter{OriginalTopic: h.Get(HeaderDLQTopic), Group: h.Get(HeaderDLQGroup), Error: h.Get(HeaderDLQError)}
	d.Attempts, _ = strconv.Atoi(h.Get(HeaderDLQAttempts))
	d.FailedAt, _ = time.Parse(time.RFC3339Nano, h.Get(HeaderDLQTime))
	// The envelope is the original event's: its id, attributes and trace context.
	orig := msg
	orig.Topic = d.OriginalTopic
	d.Envelope = EnvelopeOf(orig)
	d.Envelope.Partition, d.Envelope.Offset = msg.Partition, msg.Offset
	return d
}

// ReplayDeadLetters republishes the dead letters of topic that f selects to their original
// topic, with their original key, payload and headers (the dlq_* headers removed), and
// answers how many it replayed. The event id is unchanged, so every consumer group that
// already handled the event skips it through its inbox; the group that gave up handles it
// again (once the cause is fixed). The dead-letter topic itself is left as it is: a record
// of what failed; replaying twice is harmless for the same reason.
func ReplayDeadLetters(ctx context.Context, brokers []string, topic string, f ReplayFilter) (int, error) {
	dead, err := ReadDeadLetters(ctx, brokers, topic, f)
	if err != nil || len(dead) == 0 {
		return 0, err
	}
	msgs := make([]kafkago.Message, 0, len(dead))
	for _, d := range dead {
		var h []kafkago.Header
		for _, x := range d.Headers {
			if !strings.HasPrefix(x.Key, "dlq_") {
				h = append(h, x)
			}
		}
		msgs = append(msgs, kafkago.Message{Topic: d.OriginalTopic, Key: d.Key, Value: d.Data, Headers: h})
	}
	w := &kafkago.Writer{Addr: kafkago.TCP(brokers...), Balancer: &kafkago.Hash{}, RequiredAcks: kafkago.RequireAll,
		AllowAutoTopicCreation: AutoCreateTopics(), BatchTimeout: 5 * time.Millisecond}
	defer w.Close()
	if err := w.WriteMessages(ctx, msgs...); err != nil {
		return 0, fmt.Errorf("replay %d dead letters: %w", len(msgs), err)
	}
	return len(msgs), nil
}
