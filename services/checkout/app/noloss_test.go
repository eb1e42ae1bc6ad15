package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// withNonce is body paid with another nonce: the page tokenises the card again on every
// click and keeps the key (and the quote) for the same order.
func withNonce(t *testing.T, body, nonce string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	m["nonce"] = nonce
	b, _ := json.Marshal(m)
	return string(b)
}

// No paid order is ever lost (issue 30): crashes injected between the processor's capture
// and payments' commit, and between the charge and checkout's write, against real payments,
// its sandbox processor and PostgreSQL.
func TestNoPaidOrderLost(t *testing.T) {
	t.Parallel()
	var payCrash, checkoutCrash atomic.Bool
	// The dead request's lease is over at once: these tests are about what happens next.
	st := startCrashingStack(t, map[string]string{"CHECKOUT_SUBMIT_LEASE": "1ns"}, crashes{
		afterCapture: func(string) error {
			if payCrash.Load() { // every try of the submit (checkout's client retries a keyed charge)
				return errors.New("payments killed after the processor captured")
			}
			return nil
		},
		afterCharge: func(string) error {
			if checkoutCrash.CompareAndSwap(true, false) {
				return errors.New("checkout killed after the charge")
			}
			return nil
		},
	})
	ctx := context.Background()

	processorCaptures := func(t *testing.T, key string) int {
		return st.count(t, st.paymentsDB, `SELECT count(*) FROM sandbox_transactions WHERE status = 'captured' AND metadata->>'reference' LIKE $1 || '@%'`, key)
	}
	charges := func(t *testing.T, key string) int {
		return st.count(t, st.paymentsDB, `SELECT count(*) FROM charges WHERE status = 'captured' AND reference LIKE $1 || '@%'`, key)
	}
	orders := func(t *testing.T, key string) int {
		return st.count(t, st.checkoutDB, `SELECT count(*) FROM orders WHERE submission_key LIKE $1 || '@%'`, key)
	}
	lost := func(t *testing.T, key string) string {
		t.Helper()
		body := quoted(t, st.base, newBuyer(key), st.tokenize(t, "4111111111111111"), "")
		payCrash.Store(true)
		code, m, _ := submitRaw(t, st.base, key, body, "")
		payCrash.Store(false)
		if code == 200 {
			t.Fatalf("the injected payments crash did not happen: %d %v", code, m)
		}
		if c, p := charges(t, key), processorCaptures(t, key); c != 0 || p != 1 {
			t.Fatalf("after the crash: %d charges, %d processor captures; want 0 and 1", c, p)
		}
		return body
	}
	settled := func(t *testing.T, key, body string) {
		t.Helper()
		if c, p, o := charges(t, key), processorCaptures(t, key), orders(t, key); c != 1 || p != 1 || o != 1 {
			t.Errorf("%d charges, %d processor captures, %d orders; want 1 each", c, p, o)
		}
		code, m, _ := submitRaw(t, st.base, key, withNonce(t, body, st.tokenize(t, "5555555555554444")), "")
		if code != 200 || m["invoiceId"] == "" {
			t.Errorf("the key afterwards (the card tokenised again): %d %v", code, m)
		}
	}

	t.Run("payments dies after the capture, the buyer never retries: the sweep adopts, the reconciler completes the order", func(t *testing.T) {
		body := lost(t, "noloss-sweep")
		adopted, givenBack, err := st.pay.Sweep(ctx, time.Now().Add(-time.Hour), time.Now().Add(time.Minute))
		if err != nil || adopted != 1 || givenBack != 0 {
			t.Fatalf("sweep: %d adopted, %d given back, %v", adopted, givenBack, err)
		}
		if _, err := st.app.Orders().Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		settled(t, "noloss-sweep", body)
	})

	t.Run("payments dies after the capture, no sweep yet: the reconciler asks payments, which asks the processor", func(t *testing.T) {
		body := lost(t, "noloss-reconcile")
		if _, err := st.app.Orders().Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		settled(t, "noloss-reconcile", body)
	})

	t.Run("payments dies after the capture, the buyer retries: one capture, one order", func(t *testing.T) {
		body := lost(t, "noloss-retry")
		code, m, _ := submitRaw(t, st.base, "noloss-retry", body, "")
		if code != 200 || m["invoiceId"] == "" {
			t.Fatalf("retry: %d %v", code, m)
		}
		settled(t, "noloss-retry", body)
	})

	t.Run("checkout dies after the charge: the retry with the card tokenised again completes the order", func(t *testing.T) {
		const key = "noloss-checkout"
		body := quoted(t, st.base, newBuyer(key), st.tokenize(t, "4111111111111111"), "")
		checkoutCrash.Store(true)
		if code, m, _ := submitRaw(t, st.base, key, body, ""); code == 200 || checkoutCrash.Load() {
			t.Fatalf("the injected checkout crash did not happen: %d %v", code, m)
		}
		code, m, _ := submitRaw(t, st.base, key, withNonce(t, body, st.tokenize(t, "4111111111111111")), "")
		if code != 200 || m["invoiceId"] == "" {
			t.Fatalf("retry with a new nonce: %d %v (was 409 IDEMPOTENCY_KEY_REUSED)", code, m)
		}
		settled(t, key, body)
	})

	t.Run("pay, declined, pay again with another card under the same key: one order", func(t *testing.T) {
		const key = "noloss-declined"
		body := quoted(t, st.base, newBuyer(key), st.tokenize(t, "4000000000000002"), "")
		if code, m, _ := submitRaw(t, st.base, key, body, ""); code != 402 {
			t.Fatalf("declining card: %d %v", code, m)
		}
		code, m, _ := submitRaw(t, st.base, key, withNonce(t, body, st.tokenize(t, "4111111111111111")), "")
		if code != 200 || m["invoiceId"] == "" {
			t.Fatalf("another card under the key: %d %v", code, m)
		}
		settled(t, key, body)
	})
}
