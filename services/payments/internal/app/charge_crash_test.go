package app_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/services/payments/internal/adapters"
	"github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// crashAfterCapture is the processor answering, then payments dying before its own
// transaction commits (the chaos run's kill -9 of payments mid-charge): the processor has
// captured, payments has no record of it.
type crashAfterCapture struct {
	gateway.Gateway
	crashes int
}

func (g *crashAfterCapture) Authorize(ctx context.Context, r gateway.AuthRequest) (gateway.Transaction, error) {
	t, err := g.Gateway.Authorize(ctx, r)
	if err == nil && g.crashes > 0 {
		g.crashes--
		return gateway.Transaction{}, errors.New("connection reset by peer")
	}
	return t, err
}

// A charge retried with its key after payments lost the processor's answer reaches the
// same processor transaction: the card is captured once and the charge records that
// capture. (The processor's idempotency key was the charge's fresh row id, so the retry
// asked the processor again: the spent nonce was refused, or a stored card charged twice.)
func TestChargeRetriedAfterLostAnswerCapturesOnce(t *testing.T) {
	t.Parallel()
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
	sandbox := gateway.NewSandbox(adapters.NewSandboxStore(pool), []byte("k"), 3*time.Hour, time.Now)
	gw := &crashAfterCapture{Gateway: sandbox, crashes: 1}
	store := adapters.NewStore(pool, propagation.TraceContext{})
	svc := app.New(store, gw, app.Policies{}, time.Now, log)

	for _, source := range []string{"nonce", "stored card", "nonce vaulted"} {
		t.Run(source, func(t *testing.T) {
			gw.crashes = 1
			req := domain.ChargeRequest{IdempotencyKey: "checkout:subscription:" + source, Amount: 47000, Currency: "USD",
				CustomerID: "00000000-0000-4000-8000-0000000000aa", Reference: "key-" + source}
			switch source {
			case "nonce", "nonce vaulted":
				number := "4111111111111111"
				if source == "nonce vaulted" {
					number, req.CustomerID, req.StoreInVault = "6011111111111117", "00000000-0000-4000-8000-0000000000bb", true
				}
				n, err := sandbox.Tokenize(ctx, domain.CardInput{Number: number, CVV: "123", ExpirationDate: "12/2030"})
				if err != nil {
					t.Fatal(err)
				}
				req.Nonce = n.Nonce
			default:
				n, err := sandbox.Tokenize(ctx, domain.CardInput{Number: "5555555555554444", CVV: "123", ExpirationDate: "12/2030"})
				if err != nil {
					t.Fatal(err)
				}
				m, err := sandbox.Vault(ctx, gateway.VaultRequest{Nonce: n.Nonce, CustomerID: req.CustomerID})
				if err != nil {
					t.Fatal(err)
				}
				// The customer's card on file, as the payment-method update stores it: a stored
				// method pays only for its owner.
				if err := store.PutMethod(ctx, req.CustomerID, m, "", "", time.Now()); err != nil {
					t.Fatal(err)
				}
				req.Token = m.Token
			}
			if _, _, err := svc.Charge(ctx, req); err == nil {
				t.Fatal("the lost answer was not an error")
			}
			c, _, err := svc.Charge(ctx, req)
			if err != nil || c.Status != domain.Captured {
				t.Fatalf("retry: %v %+v", err, c)
			}
			var captures int
			var txID string
			if err := pool.QueryRow(ctx, `SELECT count(*), max(id) FROM sandbox_transactions WHERE status = 'captured' AND amount = 47000
				AND (method_token = $1 OR $1 = '') AND card_last4 = $2`, req.Token, map[string]string{"nonce": "1111", "stored card": "4444", "nonce vaulted": "1117"}[source]).
				Scan(&captures, &txID); err != nil {
				t.Fatal(err)
			}
			if captures != 1 || c.ProcessorTxID != txID {
				t.Errorf("%d processor captures (want 1); the charge records %q, the processor %q", captures, c.ProcessorTxID, txID)
			}
			if !req.StoreInVault {
				return
			}
			// The card the lost answer vaulted is on file, with the charge, and not announced
			// (checkout's order writes it on its subscription).
			var methods, onFile, announced int
			if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM sandbox_methods WHERE customer_id = $1),
				(SELECT count(*) FROM billing_profiles WHERE account_id = $1 AND method_token = $2 AND $2 <> ''),
				(SELECT count(*) FROM outbox WHERE topic = $3 AND key = $4)`, req.CustomerID, c.Method.Token,
				events.TopicPaymentMethodUpdated, []byte(req.CustomerID)).Scan(&methods, &onFile, &announced); err != nil {
				t.Fatal(err)
			}
			if methods != 1 || onFile != 1 || announced != 0 {
				t.Errorf("%d vaulted methods, %d profiles with the charge's card %q, %d payment-method-updated events; want 1, 1, 0",
					methods, onFile, c.Method.Token, announced)
			}
		})
	}
}
