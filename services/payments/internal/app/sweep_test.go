package app_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/services/payments/internal/adapters"
	"github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// sweepPool is a migrated payments database of the test's own, and a silent log.
func sweepPool(t *testing.T) (*pgxpool.Pool, *slog.Logger) {
	t.Helper()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.New(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := db.Migrate(ctx, pool, adapters.Migrations, "migrations", log); err != nil {
		t.Fatal(err)
	}
	return pool, log
}

func newSweepEnv(t *testing.T) (*app.Service, *gateway.Sandbox, *crashAfterCapture, func(sql string, args ...any) int) {
	t.Helper()
	ctx := context.Background()
	pool, log := sweepPool(t)
	sandbox := gateway.NewSandbox(adapters.NewSandboxStore(pool), []byte("k"), 3*time.Hour, time.Now)
	gw := &crashAfterCapture{Gateway: sandbox}
	svc := app.New(adapters.NewStore(pool, propagation.TraceContext{}), gw, app.Policies{}, time.Now, log)
	count := func(sql string, args ...any) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	return svc, sandbox, gw, count
}

func nonce(t *testing.T, s *gateway.Sandbox, number string) string {
	t.Helper()
	n, err := s.Tokenize(context.Background(), domain.CardInput{Number: number, CVV: "123", ExpirationDate: "12/2030"})
	if err != nil {
		t.Fatal(err)
	}
	return n.Nonce
}

// Payments dies between the processor's capture and its own commit, and nobody retries the
// key: the sweep finds the capture at the processor and records its charge, with its
// payment-captured event and the card on file, so checkout's reconciler finds the charge and
// completes the order. (The capture stayed with no charge, no order and no refund, and the
// buyer was told "you were not charged": issue 30.)
func TestSweepAdoptsACaptureWhoseChargeWasLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, sandbox, gw, count := newSweepEnv(t)
	start := time.Now().Add(-time.Minute)
	req := domain.ChargeRequest{IdempotencyKey: "checkout:subscription:lost", Amount: 47000, Currency: "USD",
		CustomerID: "00000000-0000-4000-8000-0000000000cc", Reference: "submit-lost", StoreInVault: true, MakeDefault: true,
		Nonce: nonce(t, sandbox, "4111111111111111")}
	gw.crashes = 1
	if _, _, err := svc.Charge(ctx, req); err == nil {
		t.Fatal("the crash was not an error")
	}
	if n := count(`SELECT count(*) FROM charges`); n != 0 {
		t.Fatalf("%d charges before the sweep; the crash should have left none", n)
	}
	adopted, err := svc.Sweep(ctx, start, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if adopted.Adopted != 1 || adopted.GivenBack != 0 {
		t.Fatalf("sweep: %+v, want 1 adopted", adopted)
	}
	c, err := svc.GetChargeByKey(ctx, req.IdempotencyKey, 0)
	if err != nil || c.Status != domain.Captured || c.Captured != 47000 || c.Reference != "submit-lost" || c.CustomerID != req.CustomerID {
		t.Fatalf("adopted charge: %v %+v", err, c)
	}
	if n := count(`SELECT count(*) FROM outbox WHERE topic = $1 AND key = $2`, events.TopicPaymentCaptured, []byte(c.ID)); n != 1 {
		t.Errorf("%d payment-captured events of the adopted charge, want 1", n)
	}
	if n := count(`SELECT count(*) FROM billing_profiles WHERE account_id = $1 AND method_token = $2`, req.CustomerID, c.Method.Token); n != 1 {
		t.Errorf("the card that paid is not on file (%d profiles)", n)
	}
	// A second sweep finds nothing more; the buyer's late retry replays the adopted charge.
	if again, err := svc.Sweep(ctx, start, time.Now().Add(time.Minute)); err != nil || again.Adopted != 0 || again.GivenBack != 0 {
		t.Fatalf("second sweep: %v %+v", err, again)
	}
	r, replayed, err := svc.Charge(ctx, req)
	if err != nil || !replayed || r.ID != c.ID || r.Status != domain.Captured {
		t.Fatalf("retry after adoption: %v replayed=%v %+v", err, replayed, r)
	}
	if n := count(`SELECT count(*) FROM sandbox_transactions WHERE status = 'captured'`); n != 1 {
		t.Errorf("%d processor captures, want 1", n)
	}
}

// Checkout's reconciler asks for the charge of a key before it ever closes the key as "not
// charged": payments answers from the processor when its own table has no row.
func TestGetChargeByKeyAsksTheProcessor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, sandbox, gw, count := newSweepEnv(t)
	req := domain.ChargeRequest{IdempotencyKey: "checkout:gift:lost", Amount: 5000, Currency: "EUR",
		CustomerID: "00000000-0000-4000-8000-0000000000dd", Reference: "gift-lost", Nonce: nonce(t, sandbox, "5555555555554444")}
	gw.crashes = 1
	if _, _, err := svc.Charge(ctx, req); err == nil {
		t.Fatal("the crash was not an error")
	}
	c, err := svc.GetChargeByKey(ctx, req.IdempotencyKey, 0)
	if err != nil || c.Status != domain.Captured || c.Amount != 5000 || c.Currency != "EUR" {
		t.Fatalf("charge by key after the crash: %v %+v", err, c)
	}
	again, err := svc.GetChargeByKey(ctx, req.IdempotencyKey, 0)
	if err != nil || again.ID != c.ID {
		t.Fatalf("second look-up: %v %+v (first %s)", err, again, c.ID)
	}
	if n := count(`SELECT count(*) FROM charges`); n != 1 {
		t.Errorf("%d charges, want 1", n)
	}
	// A key the processor never saw is not charged, and leaves nothing behind.
	if _, err := svc.GetChargeByKey(ctx, "checkout:gift:never", 0); errs.CodeOf(err) != errs.NotFound {
		t.Fatalf("unknown key: %v, want NotFound", err)
	}
	if n := count(`SELECT count(*) FROM charges`); n != 1 {
		t.Errorf("%d charges after looking up an unknown key, want 1", n)
	}
}

// A capture whose metadata names no charge of ours (no order can ever be written from it)
// is given back by the sweep, once however often it sweeps.
func TestSweepRefundsAnOrphanCapture(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, sandbox, _, count := newSweepEnv(t)
	start := time.Now().Add(-time.Minute)
	tx, err := sandbox.Charge(ctx, gateway.AuthRequest{IdempotencyKey: "somebody-else", Amount: 1200, Currency: "USD",
		Nonce: nonce(t, sandbox, "4111111111111111")})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		res, err := svc.Sweep(ctx, start, time.Now().Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 - i; res.GivenBack != want || res.Adopted != 0 {
			t.Fatalf("sweep %d: %+v, want %d given back", i+1, res, want)
		}
	}
	if n := count(`SELECT count(*) FROM sandbox_transactions WHERE id = $1 AND refunded = amount`, tx.ID); n != 1 {
		t.Errorf("the orphan capture %s was not refunded", tx.ID)
	}
	if n := count(`SELECT count(*) FROM charges`); n != 0 {
		t.Errorf("%d charges recorded for an orphan", n)
	}
}
