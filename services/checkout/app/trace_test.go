package app_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/devmail"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/servicetest"
	"github.com/hangar/hangar/internal/platform/telemetry/otlptest"
	notifications "github.com/hangar/hangar/services/notifications/app"
)

// One trace runs from the submit's HTTP request through checkout, its outbox and relay,
// Kafka and the notifications consumer to the SMTP send of the receipt; and the purchase
// produces exactly one receipt. Every service exports to one in-memory OTLP collector.
//
//layercheck:serial it sets the process environment (t.Setenv), which Go allows only in a test that runs alone
func TestOneTraceFromSubmitToReceiptMail(t *testing.T) {
	col := otlptest.Start(t)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "100") // export spans every 100 ms, not every 5 s
	broker, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(broker.Close)
	brokers := strings.Join(broker.Addrs(), ",")
	st := startStack(t, map[string]string{"KAFKA_BROKERS": brokers, "OTEL_EXPORTER_OTLP_ENDPOINT": col.Endpoint})

	sink, err := devmail.Listen("127.0.0.1:0", 10)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sink.Close() })
	var ncfg notifications.Config
	if err := config.LoadFrom(&ncfg, lookup(map[string]string{"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
		"DATABASE_URL": dbtest.New(t), "SHUTDOWN_TIMEOUT": "2s", "LOG_LEVEL": "warn", "KAFKA_BROKERS": brokers,
		"SMTP_ADDR": sink.Addr(), "SMTP_TLS": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": col.Endpoint})); err != nil {
		t.Fatal(err)
	}
	nctx, ncancel := context.WithCancel(context.Background())
	n, err := notifications.New(nctx, ncfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Run(t, nctx, ncancel, n)

	cfg := newBuyer("traced")
	email := cfg[strings.Index(cfg, `"email":"`)+9 : strings.Index(cfg, `","currency"`)]
	code, m, _ := submitRaw(t, st.base, "trace-1", quoted(t, st.base, cfg, st.tokenize(t, "4111111111111111"), ""), "")
	if code != 200 {
		t.Fatalf("submit = %d %v", code, m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	mails, err := sink.Wait(ctx, email, 1)
	if err != nil {
		t.Fatalf("no receipt for %s: %v", email, err)
	}
	if !strings.Contains(mails[0].Subject, m["invoiceNumber"].(string)) {
		t.Errorf("receipt subject %q, invoice %v", mails[0].Subject, m["invoiceNumber"])
	}

	// Walk up from the SMTP send to the submit's HTTP span.
	var chain []otlptest.Span
	for deadline := time.Now().Add(30 * time.Second); ; {
		chain = nil
		spans := col.Spans()
		byID := map[string]otlptest.Span{}
		var send otlptest.Span
		for _, s := range spans {
			byID[s.SpanID] = s
			if s.Name == "smtp send receipt" {
				send = s
			}
		}
		for s, ok := send, send.Name != ""; ok; s, ok = byID[s.ParentID] {
			chain = append(chain, s)
		}
		if len(chain) > 0 && chain[len(chain)-1].Name == "POST /buy/api/invoice/submit" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no unbroken parent chain from the SMTP send to the submit request; got %+v", chain)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, s := range chain {
		t.Logf("%s: %s (%v)", s.Service, s.Name, s.Kind)
	}
	want := []string{"smtp send receipt", "process " + events.TopicOrderCompleted, "send " + events.TopicOrderCompleted}
	for i, name := range want {
		if chain[i].Name != name {
			t.Errorf("span %d above the SMTP send = %q, want %q (chain %+v)", i, chain[i].Name, name, chain)
		}
	}
	if chain[0].Service != "notifications" || chain[2].Service != "checkout" || chain[len(chain)-1].Service != "checkout" {
		t.Errorf("services along the chain: %+v", chain)
	}
	receipts := 0
	for _, m := range sink.Mails(email) {
		if m.Headers["X-Hangar-Template"][0] == "receipt" {
			receipts++
		}
	}
	if receipts != 1 {
		t.Errorf("%d receipts to the buyer, want exactly one", receipts)
	}
}
