package app_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// Issue 30: a buyer's retry of a key another request still holds is answered 409 'This
// order is being processed' with Retry-After, so the page knows when to try again instead
// of giving up after its second try.
func TestInProgressAnswerCarriesRetryAfter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newLeaseEnv(t, order.Options{AfterCharge: func(string) error { return errors.New("checkout killed after the charge") }})
	if _, err := e.pipe.Place(ctx, "held-1", "h", leasePurchase(), order.Payment{Token: "tok-1"}); err == nil {
		t.Fatal("the injected crash did not happen")
	}
	_, err := e.pipe.Place(ctx, "held-1", "h", leasePurchase(), order.Payment{Token: "tok-1"})
	if !errors.Is(err, order.ErrInProgress) {
		t.Fatalf("retry within the lease: %v, want in progress", err)
	}
	rec := httptest.NewRecorder()
	server.WriteError(rec, err)
	if rec.Code != http.StatusConflict {
		t.Errorf("status = %d, want 409", rec.Code)
	}
	if got := rec.Header().Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After = %q, want \"2\" (order.InProgressRetry)", got)
	}
}
