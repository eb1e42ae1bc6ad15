package app_test

import (
	"context"
	"sync"
	"testing"
	"time"

	paymentsv1 "github.com/hangar/hangar/gen/go/hangar/payments/v1"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/services/payments/internal/gateway"
)

// The sandbox processor is one system shared by every replica, like a real processor: two
// Apps on one database are two replicas of the Helm chart.
func TestSandboxIsSharedByReplicas(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.New(t)
	a := start(t, map[string]string{"DATABASE_URL": dbURL})
	b := start(t, map[string]string{"DATABASE_URL": dbURL})
	ctx := context.Background()

	t.Run("a nonce tokenised on one replica is charged on the other, once", func(t *testing.T) {
		nonce := a.tokenize(t, gateway.CardVisaOK)
		c := b.charge(t, "x-1", nonce, 2500).GetCharge()
		if c.GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED || c.GetPaymentMethod().GetLast4() != "1111" {
			t.Fatalf("charge on the other replica = %v", c)
		}
		if c := a.charge(t, "x-2", nonce, 2500).GetCharge(); c.GetFailureCode() != "invalid_nonce" {
			t.Errorf("the nonce again on the first replica = %v", c)
		}
	})

	t.Run("authorize on one replica, capture and refund on the other", func(t *testing.T) {
		auth, err := a.rpc.Charge(ctx, &paymentsv1.ChargeRequest{IdempotencyKey: "x-auth", Amount: 1000, Currency: "EUR",
			Nonce: b.tokenize(t, gateway.CardMastercardOK), CustomerId: "acct-pilot", AuthorizeOnly: true})
		if err != nil || auth.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_AUTHORIZED {
			t.Fatalf("authorize = %v, %v", auth, err)
		}
		id := auth.GetCharge().GetId()
		if c, err := b.rpc.Capture(ctx, &paymentsv1.CaptureRequest{ChargeId: id}); err != nil || c.GetCharge().GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
			t.Fatalf("capture on the other replica = %v, %v", c, err)
		}
		if rf, err := a.rpc.Refund(ctx, &paymentsv1.RefundRequest{ChargeId: id, Amount: 400, IdempotencyKey: "x-r"}); err != nil || rf.GetCharge().GetRefundedAmount() != 400 {
			t.Fatalf("refund = %v, %v", rf, err)
		}
	})

	t.Run("20 concurrent charges of one nonce, across both replicas: exactly one succeeds", func(t *testing.T) {
		nonce := a.tokenize(t, gateway.CardDiscoverOK)
		var (
			wg               sync.WaitGroup
			mu               sync.Mutex
			captured, reused int
			others           []string
		)
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := a
				if i%2 == 1 {
					r = b
				}
				resp, err := r.rpc.Charge(ctx, &paymentsv1.ChargeRequest{IdempotencyKey: "race-" + string(rune('a'+i)), Amount: 700,
					Currency: "USD", Nonce: nonce, CustomerId: "acct-pilot"})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					others = append(others, err.Error())
				case resp.GetCharge().GetStatus() == paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED:
					captured++
				case resp.GetCharge().GetFailureCode() == "invalid_nonce":
					reused++
				default:
					others = append(others, resp.GetCharge().String())
				}
			}()
		}
		wg.Wait()
		if captured != 1 || reused != 19 || len(others) != 0 {
			t.Errorf("%d captured, %d refused as reused, others %v; want 1, 19, none", captured, reused, others)
		}
		n := pgxQuery(t, dbURL, `SELECT count(*) FROM sandbox_transactions WHERE status = 'captured' AND amount = 700`, nil)[0][0].(int64)
		if n != 1 {
			t.Errorf("%d processor transactions, want 1", n)
		}
	})

	t.Run("nonces expire 3 hours after tokenisation, by the injected clock", func(t *testing.T) {
		// b's clock runs ahead of a's, where the nonces were issued.
		early := a.tokenize(t, gateway.CardVisaOK)
		late := a.tokenize(t, gateway.CardVisaOK)
		b.clock.add(3*time.Hour - time.Minute)
		if c := b.charge(t, "x-early", early, 100).GetCharge(); c.GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
			t.Errorf("nonce a minute before expiry = %v", c)
		}
		b.clock.add(2 * time.Minute)
		if c := b.charge(t, "x-late", late, 100).GetCharge(); c.GetFailureCode() != "nonce_expired" {
			t.Errorf("nonce a minute after expiry = %v", c)
		}
	})
}

// A restart (or a replica replaced by a new one) forgets nothing of the processor's state.
func TestSandboxSurvivesRestart(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.New(t)
	first := start(t, map[string]string{"DATABASE_URL": dbURL})
	code, body := first.do(t, "POST", "/account/api/subscription/payment-method", "pilot-token", map[string]string{
		"accountId": "acct-pilot", "nonce": first.tokenize(t, gateway.CardAmexOK), "zipcode": "94105",
		"cardholderName": "Amelia Earhart", "country": "US", "paymentMethod": "CREDIT_CARD"})
	pm, _ := body["paymentMethod"].(map[string]any)
	token, _ := pm["token"].(string)
	if code != 200 || body["status"] != "succeeded" || token == "" {
		t.Fatalf("vault = %d %v", code, body)
	}
	pending := first.tokenize(t, gateway.CardVisaOK)
	first.stop()

	second := start(t, map[string]string{"DATABASE_URL": dbURL})
	code, body = second.do(t, "GET", "/buy/api/subscription/payment-method/acct-pilot", "pilot-token", nil)
	if pm, _ := body["paymentMethod"].(map[string]any); code != 200 || pm["token"] != token || pm["last4"] != "0005" {
		t.Fatalf("method on file after restart = %d %v", code, body)
	}
	resp, err := second.rpc.Charge(context.Background(), &paymentsv1.ChargeRequest{IdempotencyKey: "after-restart", Amount: 3000,
		Currency: "USD", PaymentMethodToken: token, CustomerId: "acct-pilot"})
	if c := resp.GetCharge(); err != nil || c.GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED || c.GetPaymentMethod().GetLast4() != "0005" {
		t.Fatalf("charge of the vaulted method after restart = %v, %v", resp, err)
	}
	if c := second.charge(t, "nonce-after-restart", pending, 100).GetCharge(); c.GetStatus() != paymentsv1.ChargeStatus_CHARGE_STATUS_CAPTURED {
		t.Errorf("nonce issued before the restart = %v", c)
	}
}
