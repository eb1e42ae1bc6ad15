package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// Issue 39: the pages must tell "this attempt is closed, start a new one" from "being
// processed, ask again". Both are 409 conflict; the reason tells them apart (before, both
// answered reason CONFLICT, and the pages resent an abandoned key forever).
func TestClosedAttemptHasItsOwnReason(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newRenewalEnv(t)
	e.pipe.Register("closed-test", order.FulfillerFunc(func(context.Context, order.Tx, *order.Placed) ([]kafka.Event, error) { return nil, nil }))
	down := true
	e.pay.outage = func(string) error {
		if down {
			return errs.E(errs.Unavailable, "payments is unavailable (circuit open)")
		}
		return nil
	}
	pu := &order.Purchase{Kind: "closed-test", AccountID: app.SeedPilot, Email: "pilot@demo.hangar.test", Currency: "USD",
		SubtotalInCents: 1000, TotalInCents: 1000}
	pay := order.Payment{Token: "tok-1"}
	if _, err := e.pipe.Place(ctx, "closed-1", "h1", pu, pay); errs.CodeOf(err) != errs.Unavailable {
		t.Fatalf("attempt during the outage: %v", err)
	}
	e.clock.Set(e.clock.Now().Add(time.Second))
	if _, err := e.pipe.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	down = false
	_, err := e.pipe.Place(ctx, "closed-1", "h1", pu, pay)
	closed := answer(t, err)
	if closed.status != http.StatusConflict || closed.body.Reason != "ATTEMPT_CLOSED" {
		t.Errorf("the abandoned key: %d reason %q, want 409 ATTEMPT_CLOSED", closed.status, closed.body.Reason)
	}
	if closed.retryAfter != "" {
		t.Errorf("the abandoned key: Retry-After %q; asking again cannot help", closed.retryAfter)
	}
	busy := answer(t, order.ErrInProgress)
	if busy.status != http.StatusConflict || busy.body.Reason != "ORDER_IN_PROGRESS" || busy.retryAfter == "" {
		t.Errorf("being processed: %d reason %q Retry-After %q, want 409 ORDER_IN_PROGRESS with Retry-After", busy.status, busy.body.Reason, busy.retryAfter)
	}
	if n := e.pay.paid[app.SeedPilot]; n != 0 {
		t.Errorf("%d charges for an abandoned attempt", n)
	}
}

type httpAnswer struct {
	status     int
	retryAfter string
	body       errs.Body
}

// answer is err as the HTTP client reads it (the one error writer, through gRPC's status).
func answer(t *testing.T, err error) httpAnswer {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	var e *errs.Error
	if !errors.As(err, &e) {
		t.Fatalf("%v is not an errs.Error", err)
	}
	rec := httptest.NewRecorder()
	server.WriteError(rec, errs.ToStatus(err).Err())
	var b errs.Body
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	return httpAnswer{status: rec.Code, retryAfter: rec.Header().Get("Retry-After"), body: b}
}
