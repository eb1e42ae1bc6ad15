package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime/pprof"
	"strings"
	"testing"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/hangar/hangar/internal/devhuman"
	"github.com/hangar/hangar/internal/standin"
	"github.com/hangar/hangar/internal/standin/standintest"
)

// The stand-ins hangar-dev runs for other people's processes (the broker, the mail sink,
// the human verifier), started as run starts them, run on goroutines labelled as theirs,
// their connections' included; the store's side of each (here the caller and its HTTP
// client's connection) does not. The test's own goroutine carries a label of its own,
// which every goroutine it starts inherits, so the goroutines checked are this test's
// alone, whatever else runs in the process.
func TestStandinsRunOnLabelledGoroutines(t *testing.T) {
	t.Parallel()
	var b [6]byte
	_, _ = rand.Read(b[:])
	run := hex.EncodeToString(b[:])
	pprof.Do(context.Background(), pprof.Labels("test", run), func(ctx context.Context) {
		log := slog.New(slog.DiscardHandler)
		cfg := Config{BrokerKeep: 1, MailMax: 10, EdgeAddr: "127.0.0.1:0", HumanVerification: true}

		broker, err := startBroker(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer broker.Close()
		// A connection with a round trip done: the broker holds its goroutines for it.
		kc, err := kafkago.Dial("tcp", broker.Addrs()[0])
		if err != nil {
			t.Fatal(err)
		}
		defer kc.Close()
		if _, err := kc.ApiVersions(); err != nil {
			t.Fatal(err)
		}

		sink, mail, err := startMail(ctx, cfg, log)
		if err != nil {
			t.Fatal(err)
		}
		defer sink.Close()
		// A connection the sink greeted: its session's goroutine is running.
		sc, err := net.Dial("tcp", mail["SMTP_ADDR"])
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		if greeting, err := bufio.NewReader(sc).ReadString('\n'); err != nil || !strings.HasPrefix(greeting, "220 ") {
			t.Fatalf("SMTP greeting %q, %v", greeting, err)
		}

		human, siteverify, err := startHuman(ctx, cfg, log)
		if err != nil {
			t.Fatal(err)
		}
		defer human.Close()
		if !strings.HasSuffix(siteverify, devhuman.SiteverifyPath) {
			t.Fatalf("siteverify URL %s", siteverify)
		}
		// A verification as checkout's: the connection stays open (keep-alive) on both sides,
		// the verifier's goroutine that served it and the client's that read the answer.
		client := &http.Client{Transport: &http.Transport{}}
		defer client.CloseIdleConnections()
		resp, err := client.PostForm(siteverify, url.Values{"secret": {devhuman.Secret}, "response": {devhuman.Token()}})
		if err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(answer), `"success":true`) {
			t.Fatalf("siteverify answered %s", answer)
		}

		mine := standintest.Labelled(standintest.Goroutines(t), "test", run)
		for _, c := range []struct {
			name, fn string
			// least: the goroutines expected at the least (the loop, the listener, one
			// connection's).
			least int
		}{
			{standin.Broker, "github.com/twmb/franz-go/pkg/kfake.", 3},
			{standin.Broker, "github.com/hangar/hangar/internal/platform/kafka.StartBoundedBroker.func1", 1}, // the trimming
			{standin.Mail, "github.com/emersion/go-smtp.", 2},
			{standin.Recaptcha, "net/http.(*conn).serve", 1},
			{standin.Recaptcha, "github.com/hangar/hangar/cmd/hangar-dev.startHuman.func1.1", 1},
		} {
			gs := standintest.Running(mine, c.fn)
			n := 0
			for _, g := range gs {
				n += g.Count
				if got := g.Labels[standin.Key]; got != c.name {
					t.Errorf("%d goroutines in %s labelled %s=%q, want %q:\n%s", g.Count, c.fn, standin.Key, got, c.name, g.Stack)
				}
			}
			if n < c.least {
				t.Errorf("%d goroutines in %s, want at least %d", n, c.fn, c.least)
			}
		}
		for _, fn := range []string{"github.com/hangar/hangar/cmd/hangar-dev.TestStandinsRunOnLabelledGoroutines.func1", "net/http.(*persistConn).readLoop"} {
			gs := standintest.Running(mine, fn)
			if len(gs) == 0 {
				t.Errorf("no goroutine in %s", fn)
			}
			for _, g := range gs {
				if v, ok := g.Labels[standin.Key]; ok {
					t.Errorf("the store's goroutine in %s labelled %s=%q:\n%s", fn, standin.Key, v, g.Stack)
				}
			}
		}
	})
}
