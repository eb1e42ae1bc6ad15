package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
)

// logEvents reads every topic of the store from the broker, start to end, answering the
// distinct event ids per topic (the relay may publish an event twice: at least once; the
// inbox makes its effect once) and the messages in each dead-letter topic.
func logEvents(ctx context.Context, broker string) (map[string]map[string]bool, map[string]int, error) {
	ids := map[string]map[string]bool{}
	dead := map[string]int{}
	conn, err := kafkago.DialContext(ctx, "tcp", broker)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close()
	var topics []string
	for _, t := range events.All {
		topics = append(topics, t, t+".dlq")
	}
	parts, err := conn.ReadPartitions(topics...)
	if err != nil {
		return nil, nil, fmt.Errorf("read partitions: %w", err)
	}
	for _, p := range parts {
		n, err := readPartition(ctx, broker, p.Topic, p.ID, func(m kafkago.Message) {
			if strings.HasSuffix(p.Topic, ".dlq") {
				dead[p.Topic]++
				return
			}
			if ids[p.Topic] == nil {
				ids[p.Topic] = map[string]bool{}
			}
			ids[p.Topic][kafka.EnvelopeOf(m).ID] = true
		})
		if err != nil {
			return nil, nil, fmt.Errorf("read %s/%d (%d messages read): %w", p.Topic, p.ID, n, err)
		}
	}
	return ids, dead, nil
}

func readPartition(ctx context.Context, broker, topic string, partition int, each func(kafkago.Message)) (int, error) {
	c, err := kafkago.DialLeader(ctx, "tcp", broker, topic, partition)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	first, last, err := c.ReadOffsets()
	if err != nil {
		return 0, err
	}
	if _, err := c.Seek(first, kafkago.SeekAbsolute); err != nil {
		return 0, err
	}
	n := 0
	for off := first; off < last; {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b := c.ReadBatch(1, 10<<20)
		for {
			m, err := b.ReadMessage()
			if err != nil {
				break
			}
			each(m)
			n++
			off = m.Offset + 1
		}
		if err := b.Close(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// consumed answers, per consumer and topic, the event ids its inbox holds (the events it
// handled, each once by the inbox's key) from the databases of the consuming services.
func consumed(ctx context.Context, conns map[string]*pgx.Conn) (map[string]map[string]map[string]bool, error) {
	out := map[string]map[string]map[string]bool{}
	for svc, c := range conns {
		rows, err := c.Query(ctx, `SELECT consumer, topic, event_id FROM inbox`)
		if err != nil {
			return nil, fmt.Errorf("%s inbox: %w", svc, err)
		}
		for rows.Next() {
			var consumer, topic, id string
			if err := rows.Scan(&consumer, &topic, &id); err != nil {
				rows.Close()
				return nil, err
			}
			if out[consumer] == nil {
				out[consumer] = map[string]map[string]bool{}
			}
			if out[consumer][topic] == nil {
				out[consumer][topic] = map[string]bool{}
			}
			out[consumer][topic][id] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// compareEvents checks the log against the inboxes one to one: every event of a topic a
// consumer handles is in its inbox (else it was lost to that consumer), and every inbox
// entry is an event of the log (else the consumer handled something never published).
// A consumer's topics are those its inbox names.
func compareEvents(log map[string]map[string]bool, inbox map[string]map[string]map[string]bool, bad func(string, ...any)) (lines []string, lost, extra int) {
	consumers := make([]string, 0, len(inbox))
	for c := range inbox {
		consumers = append(consumers, c)
	}
	sort.Strings(consumers)
	for _, c := range consumers {
		var parts []string
		topics := make([]string, 0, len(inbox[c]))
		for t := range inbox[c] {
			topics = append(topics, t)
		}
		sort.Strings(topics)
		for _, t := range topics {
			got, want := inbox[c][t], log[t]
			missing, unknown := 0, 0
			for id := range want {
				if !got[id] {
					missing++
				}
			}
			for id := range got {
				if !want[id] {
					unknown++
				}
			}
			if missing > 0 {
				bad("consumer %s: %d of %d events of %s not in its inbox", c, missing, len(want), t)
			}
			if unknown > 0 {
				bad("consumer %s: %d inbox entries of %s are not in the log", c, unknown, t)
			}
			lost += missing
			extra += unknown
			parts = append(parts, t+" "+strconv.Itoa(len(got))+"/"+strconv.Itoa(len(want)))
		}
		lines = append(lines, fmt.Sprintf("%s: %s", c, strings.Join(parts, ", ")))
	}
	return lines, lost, extra
}
