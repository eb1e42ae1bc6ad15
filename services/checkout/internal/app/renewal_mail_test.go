package app_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/devmail"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/servicetest"
	"github.com/hangar/hangar/internal/platform/telemetry"
	"github.com/hangar/hangar/services/checkout/internal/app"
	notifications "github.com/hangar/hangar/services/notifications/app"
)

// The renewal's e-mails reach the subscriber: checkout's outbox is relayed to the broker,
// the notifications service consumes order-completed and dunning-notice and sends over
// SMTP (the dev mail sink): a receipt for the renewed pilot, a decline notice naming the
// reason and linking to /account for the declined subscriber. (It caught renewal orders
// written without the subscriber's e-mail: their receipts were dead-lettered.)
func TestRenewalReceiptAndDunningMailsSent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("broker and notifications service")
	}
	e := newRenewalEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	broker, err := kafka.StartBroker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	sink, err := devmail.Listen("127.0.0.1:0", 100)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sink.Close() }()
	vars := map[string]string{"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0", "SHUTDOWN_TIMEOUT": "2s",
		"DATABASE_URL": dbtest.New(t), "KAFKA_BROKERS": strings.Join(broker.Addrs(), ","), "LOG_LEVEL": "warn",
		"SMTP_ADDR": sink.Addr(), "SMTP_TLS": "none", "STORE_BASE_URL": "https://store.test"}
	var cfg notifications.Config
	if err := config.LoadFrom(&cfg, func(k string) (string, bool) { v, ok := vars[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	nctx, ncancel := context.WithCancel(context.Background())
	n, err := notifications.New(nctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Run(t, nctx, ncancel, n)

	// Only the pilot (renews) and the legacy subscriber (declined) are due.
	legacy := app.SeedSubscriptionID(app.SeedLegacy)
	if _, err := e.pool.Exec(ctx, `UPDATE subscriptions SET term_end = term_end + interval '1 year' WHERE id NOT IN ($1, $2)`,
		app.SeedSubscriptionID(app.SeedPilot), legacy); err != nil {
		t.Fatal(err)
	}
	e.pay.decline = func(customer string) bool { return customer == app.SeedLegacy }
	e.clock.Set(e.termEnd.Add(-12 * time.Hour))
	if res := e.run(t, e.renewer()); res.Renewed != 1 || res.Declined != 1 {
		t.Fatalf("%+v", res)
	}
	var invoiceNumber string
	if err := e.pool.QueryRow(ctx, `SELECT invoice_number FROM orders`).Scan(&invoiceNumber); err != nil {
		t.Fatal(err)
	}
	producer := kafka.NewProducer(broker.Addrs(), telemetry.Propagator())
	defer func() { _ = producer.Close() }()
	relay := &kafka.Relay{Pool: e.pool, Producer: producer, Log: slog.New(slog.DiscardHandler)}
	relayAll := func() {
		t.Helper()
		for {
			k, err := relay.RelayOnce(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if k == 0 {
				break
			}
		}
	}
	relayAll()
	wait := func(to string) devmail.Mail {
		t.Helper()
		m, err := sink.Wait(ctx, to, 1)
		if err != nil || len(m) != 1 {
			t.Fatalf("mails to %s: %v %v", to, m, err)
		}
		return m[0]
	}
	receipt := wait(app.SeedPilotEmail)
	if !strings.Contains(receipt.Subject, invoiceNumber) {
		t.Errorf("receipt %q does not name invoice %s", receipt.Subject, invoiceNumber)
	}
	dun := wait("legacy@example.com")
	if !strings.Contains(dun.Text, "Your card was declined.") || !strings.Contains(dun.Text, "https://store.test/account") {
		t.Errorf("decline notice %q\n%s", dun.Subject, dun.Text)
	}

	// The declined subscriber, in the grace period, turns auto-renew off: the confirmation
	// of that case reaches them too (notifications knows the kind; an unknown kind would be
	// dead-lettered), saying the retries stop and the subscription ends now.
	e.clock.Set(e.termEnd.Add(time.Hour))
	if _, err := e.svc.SetAutoRenew(ctx, app.Viewer{AccountUUID: app.SeedLegacy}, "pro_us", false); err != nil {
		t.Fatal(err)
	}
	relayAll()
	got, err := sink.Wait(ctx, "legacy@example.com", 2)
	if err != nil || len(got) != 2 {
		t.Fatalf("mails to legacy: %v %v", got, err)
	}
	if off := got[0]; !strings.Contains(off.Subject, "ends now") || !strings.Contains(off.Text, "We will not try to charge you again") ||
		!strings.Contains(off.Text, "Your card was declined.") || !strings.Contains(off.Text, "https://store.test/account") {
		t.Errorf("grace-period confirmation %q\n%s", off.Subject, off.Text)
	}
}
