package adapters_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/propagation"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
	"github.com/hangar/hangar/services/checkout/internal/order"
)

// paymentsFake is payments as the pipeline sees it: every charge captured, refunds kept.
type paymentsFake struct {
	mu        sync.Mutex
	charges   map[string]string // charge id → charge key
	refunds   map[string]string // charge id → refund key
	refundErr error
}

func (p *paymentsFake) Charge(_ context.Context, r order.ChargeRequest) (order.Charge, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	id := "ch-" + r.Key
	p.charges[id] = r.Key
	return order.Charge{ID: id, Status: "CAPTURED"}, nil
}

func (p *paymentsFake) ChargeByKey(context.Context, string, int64) (order.Charge, error) {
	return order.Charge{}, errs.E(errs.NotFound, "no charge")
}

func (p *paymentsFake) Refund(_ context.Context, chargeID, key, _ string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.refundErr != nil {
		return p.refundErr
	}
	p.refunds[chargeID] = key
	return nil
}

func (p *paymentsFake) Vault(context.Context, order.VaultRequest) (order.Charge, error) {
	return order.Charge{}, errors.New("no vault in these tests")
}

// moneyBack is the order pipeline on the real order store (adapters/order_tx.go's
// statements) with payments faked: what production runs between the charge and the
// refund.
type moneyBack struct {
	pool *pgxpool.Pool
	pay  *paymentsFake
	p    *order.Pipeline
}

func newMoneyBack(t *testing.T) *moneyBack { return newMoneyBackAfterCharge(t, nil) }

// newMoneyBackAfterCharge is newMoneyBack with afterCharge run between each charge and its
// write (a balance spent by something other than an order, after the claim reserved it).
func newMoneyBackAfterCharge(t *testing.T, afterCharge func(pool *pgxpool.Pool) error) *moneyBack {
	t.Helper()
	pool := migrated(t, 20)
	pay := &paymentsFake{charges: map[string]string{}, refunds: map[string]string{}}
	var after func(string) error
	if afterCharge != nil {
		after = func(string) error { return afterCharge(pool) }
	}
	p := order.NewPipeline(adapters.NewOrderStore(pool, propagation.TraceContext{}), pay, slog.New(slog.NewTextHandler(io.Discard, nil)), order.Options{AfterCharge: after})
	p.Register(order.KindOneOff, order.FulfillerFunc(func(context.Context, order.Tx, *order.Placed) ([]kafka.Event, error) { return nil, nil }))
	return &moneyBack{pool: pool, pay: pay, p: p}
}

// purchase is a one-off order of 150.00 USD: the card pays total, gift and balance the rest.
func purchase(account string, total int64, gifts []order.GiftDebit, balance int64) *order.Purchase {
	return &order.Purchase{Kind: order.KindOneOff, AccountID: account, Email: "buyer@example.com", Currency: "USD",
		Lines:           []order.Line{{Type: "charge", Description: "ADS-B receiver", UnitAmountInCents: 15000, Quantity: 1, AmountInCents: 15000}},
		SubtotalInCents: 15000, TotalInCents: total, Gifts: gifts, AccountBalanceInCents: balance}
}

// placeAtOnce places each purchase under its own key, all at the same moment, and answers
// each one's error (nil: the order was written).
func (m *moneyBack) placeAtOnce(t *testing.T, pus []*order.Purchase) (keys []string, out []error) {
	t.Helper()
	out = make([]error, len(pus))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, pu := range pus {
		keys = append(keys, fmt.Sprintf("key-%d-%s", i, uuid.NewString()))
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, out[i] = m.p.Place(context.Background(), keys[i], "hash", pu, order.Payment{Nonce: "nonce"})
		}()
	}
	close(start)
	wg.Wait()
	return keys, out
}

func (m *moneyBack) count(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := m.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// checkRefunded asserts that the orders which failed were refunded in full, their keys
// closed as refunded, and that the buyer read why and that their payment was refunded (a capture was made: never "not charged").
func (m *moneyBack) checkRefunded(t *testing.T, keys []string, errs_ []error, wantWritten int, why string) {
	t.Helper()
	written := 0
	for i, err := range errs_ {
		chargeID := "ch-" + order.ChargeKey(order.KindOneOff, keys[i])
		var status string
		if qerr := m.pool.QueryRow(context.Background(), `SELECT status FROM submissions WHERE key = $1`, keys[i]).Scan(&status); qerr != nil {
			t.Fatal(qerr)
		}
		m.pay.mu.Lock()
		refund, refunded := m.pay.refunds[chargeID]
		m.pay.mu.Unlock()
		if err == nil {
			written++
			if refunded || status != "completed" {
				t.Errorf("written order %s: status %s, refunded %v", keys[i], status, refunded)
			}
			continue
		}
		if errs.CodeOf(err) != errs.Conflict || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "your payment was refunded in full") {
			t.Errorf("order %s: %v; want a conflict saying %q and that the payment was refunded", keys[i], err, why)
		}
		if !refunded || refund != "refund:"+keys[i] || status != "refunded" {
			t.Errorf("order %s: refund %q (refunded %v), submission %s; want the charge refunded under refund:<key> and the key refunded", keys[i], refund, refunded, status)
		}
	}
	if written != wantWritten {
		t.Errorf("%d orders written, want %d", written, wantWritten)
	}
	if n := m.count(t, `SELECT count(*) FROM orders`); n != int64(wantWritten) {
		t.Errorf("%d order rows, want %d", n, wantWritten)
	}
}

// checkRefused asserts that the orders which failed were refused when their keys were
// claimed, before any charge: no charge, no refund, no submission kept, and the buyer read
// why and that nothing was charged (issue 42 item 3: balances are reserved with the key).
func (m *moneyBack) checkRefused(t *testing.T, keys []string, errs_ []error, wantWritten int, why string) {
	t.Helper()
	written := 0
	for i, err := range errs_ {
		chargeID := "ch-" + order.ChargeKey(order.KindOneOff, keys[i])
		m.pay.mu.Lock()
		_, charged := m.pay.charges[chargeID]
		_, refunded := m.pay.refunds[chargeID]
		m.pay.mu.Unlock()
		if err == nil {
			written++
			continue
		}
		if errs.CodeOf(err) != errs.Conflict || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "Nothing was charged") {
			t.Errorf("order %s: %v; want a conflict saying %q and that nothing was charged", keys[i], err, why)
		}
		if charged || refunded {
			t.Errorf("order %s: charged %v, refunded %v; want neither", keys[i], charged, refunded)
		}
		if n := m.count(t, `SELECT count(*) FROM submissions WHERE key = $1`, keys[i]); n != 0 {
			t.Errorf("order %s: the refused key was kept", keys[i])
		}
	}
	if written != wantWritten {
		t.Errorf("%d orders written, want %d", written, wantWritten)
	}
	if n := m.count(t, `SELECT count(*) FROM orders`); n != int64(wantWritten) {
		t.Errorf("%d order rows, want %d", n, wantWritten)
	}
}

// Two buyers spend one gift certificate at once, each more than half of it: one order is
// written and debits it; the other's charge is refunded and its key closed, and the
// certificate keeps exactly what the one order left.
func TestTwoBuyersOneGiftCertificate(t *testing.T) {
	t.Parallel()
	m := newMoneyBack(t)
	code := issue(t, m.pool, "USD", 10000)
	gift := []order.GiftDebit{{Code: strings.ToLower(code), AmountInCents: 8000}} // typed in lower case: the same certificate
	keys, errs_ := m.placeAtOnce(t, []*order.Purchase{
		purchase(uuid.NewString(), 7000, gift, 0),
		purchase(uuid.NewString(), 7000, gift, 0),
	})
	m.checkRefused(t, keys, errs_, 1, "A gift certificate of this order no longer covers its amount.")
	if left := m.count(t, `SELECT balance_in_cents FROM gift_certificates WHERE code_hash = sha256(convert_to(upper($1), 'UTF8'))`, code); left != 2000 {
		t.Errorf("certificate balance %d, want 2000", left)
	}
	if n := m.count(t, `SELECT coalesce(sum(m.amount_in_cents), 0) FROM balance_movements m JOIN gift_certificates g ON g.id::text = m.ref
		WHERE m.kind = 'gift' AND g.code_hash = sha256(convert_to(upper($1), 'UTF8'))`, code); n != -8000 {
		t.Errorf("gift movements sum to %d, want -8000", n)
	}
}

// Many orders redeem one certificate at once: those written never add up to more than its
// balance; every other one is refused before its charge.
func TestConcurrentGiftRedemptionNeverOverdraws(t *testing.T) {
	t.Parallel()
	m := newMoneyBack(t)
	code := issue(t, m.pool, "USD", 10000) // $100
	var pus []*order.Purchase
	for range 12 { // orders of $30 from the certificate: at most 3 can be written
		pus = append(pus, purchase(uuid.NewString(), 12000, []order.GiftDebit{{Code: code, AmountInCents: 3000}}, 0))
	}
	keys, errs_ := m.placeAtOnce(t, pus)
	m.checkRefused(t, keys, errs_, 3, "no longer covers its amount")
	if left := m.count(t, `SELECT balance_in_cents FROM gift_certificates WHERE code_hash = sha256(convert_to(upper($1), 'UTF8'))`, code); left != 1000 {
		t.Errorf("certificate balance %d, want 1000", left)
	}
}

// A certificate of another currency is no payment for the order: refused, nothing taken.
func TestGiftCertificateOfAnotherCurrencyIsRefused(t *testing.T) {
	t.Parallel()
	m := newMoneyBack(t)
	eur := issue(t, m.pool, "EUR", 10000)
	keys, errs_ := m.placeAtOnce(t, []*order.Purchase{purchase(uuid.NewString(), 10000, []order.GiftDebit{{Code: eur, AmountInCents: 5000}}, 0)})
	m.checkRefused(t, keys, errs_, 0, "no longer covers its amount")
	if left := m.count(t, `SELECT balance_in_cents FROM gift_certificates WHERE code_hash = sha256(convert_to(upper($1), 'UTF8'))`, eur); left != 10000 {
		t.Errorf("certificate balance %d, want 10000", left)
	}
}

// One account, two orders at once, each paying most of its balance: one is written and
// debits the balance; the other is refused before its charge.
func TestTwoOrdersOneAccountBalance(t *testing.T) {
	t.Parallel()
	m := newMoneyBack(t)
	account := uuid.NewString()
	if _, err := m.pool.Exec(context.Background(), `INSERT INTO account_balances (account_id, currency, balance_in_cents) VALUES ($1, 'USD', 10000)`, account); err != nil {
		t.Fatal(err)
	}
	keys, errs_ := m.placeAtOnce(t, []*order.Purchase{purchase(account, 9000, nil, 6000), purchase(account, 9000, nil, 6000)})
	m.checkRefused(t, keys, errs_, 1, "Your account balance changed.")
	if left := m.count(t, `SELECT balance_in_cents FROM account_balances WHERE account_id = $1`, account); left != 4000 {
		t.Errorf("account balance %d, want 4000", left)
	}
	if n := m.count(t, `SELECT coalesce(sum(amount_in_cents), 0) FROM balance_movements WHERE kind = 'account_debit' AND ref = $1`, account); n != -6000 {
		t.Errorf("account movements sum to %d, want -6000", n)
	}
}

// Payments cannot refund (unreachable): the buyer is told the refund is pending, and the
// key stays pending, so the reconciler finishes the refund later instead of losing it.
func TestRefundThatFailsLeavesTheKeyPending(t *testing.T) {
	t.Parallel()
	var code string
	m := newMoneyBackAfterCharge(t, spend(&code))
	m.pay.refundErr = errs.E(errs.Unavailable, "payments down")
	code = issue(t, m.pool, "USD", 5000)
	keys, errs_ := m.placeAtOnce(t, []*order.Purchase{purchase(uuid.NewString(), 10000, []order.GiftDebit{{Code: code, AmountInCents: 5000}}, 0)})
	if err := errs_[0]; errs.CodeOf(err) != errs.Unavailable || !strings.Contains(err.Error(), "the refund is pending") {
		t.Fatalf("Place = %v; want unavailable, the refund pending", err)
	}
	var status string
	if err := m.pool.QueryRow(context.Background(), `SELECT status FROM submissions WHERE key = $1`, keys[0]).Scan(&status); err != nil || status != "pending" {
		t.Errorf("submission %s (%v), want pending", status, err)
	}
	if n := m.count(t, `SELECT count(*) FROM orders`); n != 0 {
		t.Errorf("%d orders written", n)
	}
}

// spend answers an afterCharge that spends most of the certificate *code outside any order
// (what the claim's reservation cannot see), so the write finds it short.
func spend(code *string) func(pool *pgxpool.Pool) error {
	return func(pool *pgxpool.Pool) error {
		_, err := pool.Exec(context.Background(), `UPDATE gift_certificates SET balance_in_cents = 100 WHERE code_hash = sha256(convert_to(upper($1), 'UTF8'))`, *code)
		return err
	}
}

// The write still checks what it debits: a certificate spent after the claim reserved it
// (outside any order) refuses the write, and the capture is refunded in full, the buyer
// told so.
func TestSpentAfterTheChargeIsRefunded(t *testing.T) {
	t.Parallel()
	var code string
	m := newMoneyBackAfterCharge(t, spend(&code))
	code = issue(t, m.pool, "USD", 5000)
	keys, errs_ := m.placeAtOnce(t, []*order.Purchase{purchase(uuid.NewString(), 10000, []order.GiftDebit{{Code: code, AmountInCents: 5000}}, 0)})
	m.checkRefunded(t, keys, errs_, 0, "A gift certificate of this order no longer covers its amount.")
}
