package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// Consumer-group timing. A consumer that dies (kill -9, a lost node) holds its partitions
// until the coordinator has not heard from it for SessionTimeout; only then are they
// handed to the survivors or to its replacement, so this is how long a crashed consumer's
// events wait. 6 s is the least a broker accepts by default (group.min.session.timeout.ms,
// kfake's too). Heartbeats every 2 s (Kafka's rule: at most a third of the session) leave
// two missed beats before a live but busy member (a loaded host, a GC pause) is taken for
// dead, which the handlers' work does not affect: kafka-go heartbeats from its own
// goroutine. A heartbeat is also how a member learns that its group rebalances, so a
// joining replica waits up to this long for the others; at 1 s the heartbeats of an idle
// store's six groups were a tenth of its CPU (docs/performance.md, Idle).
const (
	SessionTimeout    = 6 * time.Second
	HeartbeatInterval = 2 * time.Second
)

// FetchWait is how long a partition's fetch may wait for a new event before it is sent
// again: the broker answers as soon as an event arrives, so this is not a latency but the
// idle wake-up rate, one fetch per FetchWait per partition of every group (72 partition
// readers in the store: at 250 ms they were most of an idle store's CPU, and still half
// of it at 2 s, docs/performance.md). kafka-go sends the broker FetchWait less a second
// (its allowance for the round trip) and gives up on the answer at FetchWait. A waiting
// fetch does not hold up a consumer's stop or a rebalance: kafka-go ends its partition
// readers by cancelling their context, which closes their connections (cancelOnDone).
const FetchWait = 30 * time.Second

// dialTimeout bounds a connection's dial (kafka-go's default dialer's Timeout).
const dialTimeout = 10 * time.Second

// DefaultCommitInterval is how often an inbox consumer commits its handled offsets unless
// ConsumerConfig.CommitInterval says otherwise (KAFKA_COMMIT_INTERVAL in the services).
const DefaultCommitInterval = time.Second

// groupReader reads topics in a consumer group and applies the offset policy: where the
// group has no committed offset a partition is read from its first offset, and where the
// committed offset is past the partition's end (the broker came back with a shorter log:
// a restart that lost it, a topic deleted and created again) the partition is also read
// again from its first offset. The events there are all newer than the lost log, none of
// them handled yet, so skipping to the end would lose them; re-reading can only repeat,
// which the inbox (or an idempotent handler) absorbs. kafka-go alone waits forever in that
// case, hoping the log grows back past the committed offset.
//
// Offsets are committed with kafka-go's CommitInterval when commitInterval > 0: Commit
// only hands kafka-go the offsets of handled messages, and its commit loop sends the
// highest of each partition once per interval, then once more when the generation ends
// (Close, a rebalance) with that generation's id. This replaces one synchronous broker
// round trip per message (the inbox consumers' cost at checkout's rate) with one request
// per interval per group, whatever the rate, and an idle group sends none. It is safe
// because the callers commit a message only once its inbox transaction committed (or it
// was dead-lettered): whatever kafka-go sends was handled, and what a crash loses is at
// most an interval of commits, whose messages are redelivered and skipped by the inbox.
// Committing by hand (the highest offset per partition after a batch, or whenever the
// fetch queue runs dry) would mean our own stash, flush on close and on rebalance, and at
// low rates still a round trip per message; kafka-go already does the first three. A
// periodic commit that fails keeps its offsets for the next tick and is logged through
// ErrorLogger (kafka-go drops it otherwise).
type groupReader struct {
	cfg kafkago.ReaderConfig
	r   *kafkago.Reader
	log *slog.Logger
}

func newGroupReader(brokers []string, group string, topics []string, commitInterval time.Duration, log *slog.Logger) *groupReader {
	cfg := kafkago.ReaderConfig{
		CommitInterval:    commitInterval,
		ErrorLogger:       readerLogger(log, group),
		Brokers:           brokers,
		GroupID:           group,
		GroupTopics:       topics,
		SessionTimeout:    SessionTimeout,
		HeartbeatInterval: HeartbeatInterval,
		StartOffset:       kafkago.FirstOffset,
		MaxWait:           FetchWait,
		Dialer:            cancellingDialer(),
		// Report a committed offset past the end instead of waiting for the log to grow.
		OffsetOutOfRangeError: true,
	}
	return &groupReader{cfg: cfg, r: kafkago.NewReader(cfg), log: log}
}

// Fetch answers the next message, first moving any committed offset that is past its
// partition's end back to the partition's start.
func (g *groupReader) Fetch(ctx context.Context) (kafkago.Message, error) {
	for {
		msg, err := g.r.FetchMessage(ctx)
		if err == nil || ctx.Err() != nil || !errors.Is(err, kafkago.OffsetOutOfRange) {
			return msg, err
		}
		if err := g.resetPastEnd(ctx); err != nil {
			return kafkago.Message{}, err
		}
	}
}

// Commit commits handled messages' offsets (the highest of each partition): at once, or
// with a commit interval at its next tick (or when the group generation ends).
func (g *groupReader) Commit(ctx context.Context, msgs ...kafkago.Message) error {
	return g.r.CommitMessages(ctx, msgs...)
}

// Close leaves the group.
func (g *groupReader) Close() error { return g.r.Close() }

// resetPastEnd commits, through the group member g still is, the first offset of every
// partition whose committed offset is past its end, then joins again: the reader of such
// a partition has stopped, and a new member reads the committed offsets afresh. Messages
// fetched and not yet committed are fetched again.
func (g *groupReader) resetPastEnd(ctx context.Context) error {
	c := &kafkago.Client{Addr: kafkago.TCP(g.cfg.Brokers...), Timeout: 10 * time.Second}
	meta, err := c.Metadata(ctx, &kafkago.MetadataRequest{Topics: g.cfg.GroupTopics})
	if err != nil {
		return fmt.Errorf("offset reset: metadata: %w", err)
	}
	parts := map[string][]int{}
	ends := map[string][]kafkago.OffsetRequest{}
	for _, t := range meta.Topics {
		for _, p := range t.Partitions {
			parts[t.Name] = append(parts[t.Name], p.ID)
			ends[t.Name] = append(ends[t.Name], kafkago.FirstOffsetOf(p.ID), kafkago.LastOffsetOf(p.ID))
		}
	}
	committed, err := c.OffsetFetch(ctx, &kafkago.OffsetFetchRequest{GroupID: g.cfg.GroupID, Topics: parts})
	if err == nil {
		err = committed.Error
	}
	if err != nil {
		return fmt.Errorf("offset reset: committed offsets of %s: %w", g.cfg.GroupID, err)
	}
	logs, err := c.ListOffsets(ctx, &kafkago.ListOffsetsRequest{Topics: ends})
	if err != nil {
		return fmt.Errorf("offset reset: partition ends: %w", err)
	}
	var resets []kafkago.Message
	for topic, ps := range committed.Topics {
		for _, p := range ps {
			for _, l := range logs.Topics[topic] {
				if l.Partition == p.Partition && l.Error == nil && p.CommittedOffset > l.LastOffset {
					g.log.WarnContext(ctx, "committed offset past the end of the partition (the broker lost its log); reading it again from its first offset",
						"group", g.cfg.GroupID, "topic", topic, "partition", p.Partition, "committed", p.CommittedOffset, "end", l.LastOffset, "first", l.FirstOffset)
					// CommitMessages commits a message's offset + 1.
					resets = append(resets, kafkago.Message{Topic: topic, Partition: p.Partition, Offset: l.FirstOffset - 1})
				}
			}
		}
	}
	if len(resets) > 0 {
		if err := g.r.CommitMessages(ctx, resets...); err != nil {
			return fmt.Errorf("offset reset: commit: %w", err)
		}
	}
	// With a commit interval, Close sends the resets (the generation's last commit). Were
	// that commit lost, the new reader finds the offsets still past the end and resets again.
	_ = g.r.Close()
	g.r = kafkago.NewReader(g.cfg)
	return nil
}

// cancellingDialer is kafka-go's default dialer whose connections close when the context
// they were dialled with ends. A partition reader dials its connection with the context
// kafka-go cancels when the group generation ends or the reader closes, but kafka-go does
// not pass that context to a fetch: without this the reader would finish waiting for the
// fetch (up to FetchWait) before it noticed, and the stop or the rebalance with it. The
// group's coordinator connection is dialled without a context (never cancelled).
func cancellingDialer() *kafkago.Dialer {
	nd := &net.Dialer{Timeout: dialTimeout}
	return &kafkago.Dialer{
		// No Timeout: kafka-go would dial with a context of its own that ends as soon as the
		// dial returns (closing the connection at once); the net.Dialer bounds the dial.
		DualStack: true,
		DialFunc: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := nd.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return cancelOnDone(ctx, c), nil
		},
	}
}

// cancelOnDone answers c closed when ctx ends, its reads and writes from then on failing
// with ctx's error: kafka-go takes a context.Canceled for a reader told to stop and
// returns quietly, where a closed connection's error would be logged as a failure.
func cancelOnDone(ctx context.Context, c net.Conn) net.Conn {
	cc := &ctxConn{Conn: c, ctx: ctx}
	cc.stop = context.AfterFunc(ctx, func() { _ = c.Close() })
	return cc
}

type ctxConn struct {
	net.Conn
	ctx  context.Context
	stop func() bool
}

func (c *ctxConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err != nil && c.ctx.Err() != nil {
		err = c.ctx.Err()
	}
	return n, err
}

func (c *ctxConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if err != nil && c.ctx.Err() != nil {
		err = c.ctx.Err()
	}
	return n, err
}

func (c *ctxConn) Close() error {
	c.stop()
	return c.Conn.Close()
}
