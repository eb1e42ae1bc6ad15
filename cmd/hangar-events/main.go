// Command hangar-events creates the store's topics, and inspects and replays dead-lettered
// events.
//
//	hangar-events topics [-allow-auto-create]                      create every declared topic
//	hangar-events dlq -topic T [-group G] [-id ID,...]            list the dead letters of T
//	hangar-events dlq -topic T [-group G] [-id ID,...] -replay    republish them to T
//
// A consumer that gives up on an event (after its retries, or at once for a Permanent
// error) publishes it to <topic>.dlq with its original headers and the error. Fix the cause
// (deploy the fix), then replay: the events go back to their topic with their original ids,
// so consumer groups that already handled them skip them through their inbox, and the group
// that failed handles them. Brokers come from KAFKA_BROKERS (comma-separated) or -brokers.
// In the cluster, run it from any service image's shell or as a one-off Job.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/hangar/hangar/internal/platform/kafka"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "hangar-events:", err)
		os.Exit(2)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) > 0 && args[0] == "topics" {
		return runTopics(ctx, args[1:], out)
	}
	if len(args) == 0 || args[0] != "dlq" {
		return errors.New("usage: hangar-events topics | hangar-events dlq -topic T [-group G] [-id ID,...] [-replay]")
	}
	fs := flag.NewFlagSet("dlq", flag.ContinueOnError)
	brokers := fs.String("brokers", os.Getenv("KAFKA_BROKERS"), "comma-separated Kafka brokers (default $KAFKA_BROKERS)")
	topic := fs.String("topic", "", "the original topic (its dead letters are in <topic>.dlq)")
	group := fs.String("group", "", "only events this consumer group gave up on")
	ids := fs.String("id", "", "only these event ids (comma-separated)")
	replay := fs.Bool("replay", false, "republish the selected dead letters to their topic")
	timeout := fs.Duration("timeout", time.Minute, "give up after this long")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *brokers == "" || *topic == "" {
		return errors.New("dlq: -brokers (or KAFKA_BROKERS) and -topic are required")
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	bs := strings.Split(*brokers, ",")
	f := kafka.ReplayFilter{Group: *group}
	if *ids != "" {
		f.IDs = strings.Split(*ids, ",")
	}
	if *replay {
		n, err := kafka.ReplayDeadLetters(ctx, bs, *topic, f)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "replayed %d dead letters to %s\n", n, *topic)
		return nil
	}
	dead, err := kafka.ReadDeadLetters(ctx, bs, *topic, f)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	for _, d := range dead {
		_ = enc.Encode(map[string]any{"id": d.ID, "type": d.Type, "subject": d.Subject, "time": d.Time,
			"group": d.Group, "error": d.Error, "attempts": d.Attempts, "failedAt": d.FailedAt, "dlqOffset": d.Offset})
	}
	return nil
}
