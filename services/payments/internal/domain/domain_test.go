package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/services/payments/internal/domain"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func TestLuhnOfTestCards(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"4111111111111111", "5555555555554444", "378282246310005", "6011111111111117", "4000000000000002",
		"4000000000009995", "4000000000000069", "4000000000000127", "4000000000000119"} {
		if !domain.Luhn(n) {
			t.Errorf("Luhn(%s) = false, want true", n)
		}
	}
	if domain.Luhn("4111111111111112") {
		t.Error("Luhn(4111111111111112) = true")
	}
}

func TestCheckCard(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		in     domain.CardInput
		fields []string
		brand  domain.Brand
	}{
		{"visa with spaces and MM/YYYY", domain.CardInput{Number: "4111 1111 1111 1111", CVV: "123", ExpirationDate: "12/2030"}, nil, domain.Visa},
		{"iOS MMYYYY", domain.CardInput{Number: "5555555555554444", CVV: "123", ExpirationDate: "012031"}, nil, domain.Mastercard},
		{"amex needs four digits", domain.CardInput{Number: "378282246310005", CVV: "123", ExpirationDate: "01/31"}, []string{"cvv"}, ""},
		{"bad luhn", domain.CardInput{Number: "4111111111111112", CVV: "123", ExpirationDate: "12/2030"}, []string{"number"}, ""},
		{"expired", domain.CardInput{Number: "4111111111111111", CVV: "123", ExpirationDate: "10/2026"}, []string{"expirationDate"}, ""},
		{"this month is fine", domain.CardInput{Number: "4111111111111111", CVV: "123", ExpirationDate: "11/2026"}, nil, domain.Visa},
		{"bad month", domain.CardInput{Number: "4111111111111111", CVV: "12", ExpirationDate: "13/2030"}, []string{"expirationDate", "cvv"}, ""},
		{"letters", domain.CardInput{Number: "4111x111111111111", CVV: "123", ExpirationDate: "12/2030"}, []string{"number"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			card, err := domain.CheckCard(c.in, now)
			if c.fields == nil {
				if err != nil || card.Brand != c.brand {
					t.Fatalf("CheckCard() = %v, %v; want brand %s", card.Brand, err, c.brand)
				}
				return
			}
			e, ok := err.(*errs.Error)
			if !ok || e.Code != errs.Invalid {
				t.Fatalf("CheckCard() err = %v, want invalid", err)
			}
			if e.Message != "Some payment input fields are invalid. Cannot process invalid card fields." {
				t.Errorf("message = %q, want 'tokenize' shown as 'process'", e.Message)
			}
			if len(e.Fields) != len(c.fields) {
				t.Fatalf("fields = %+v, want %v", e.Fields, c.fields)
			}
			for i, f := range c.fields {
				if e.Fields[i].Field != f {
					t.Errorf("field %d = %s, want %s", i, e.Fields[i].Field, f)
				}
			}
		})
	}
}

// A refusal is stored in the buyer's words, by failure code, so every reader of payments'
// answer (checkout, the pages, the renewal notice) shows it as it is: never the processor's
// wording (issue 45: "Do Not Honor", "Gateway Rejected: CVV does not match").
func TestRefusalsAreStoredInTheBuyersWords(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for code, want := range map[string]string{
		domain.FailDeclined:          domain.MsgCardDeclined,
		domain.FailInsufficientFunds: domain.MsgInsufficientFunds,
		domain.FailExpiredCard:       domain.MsgCardExpired,
		domain.FailCVV:               domain.MsgCVVMismatch,
		domain.FailNonceExpired:      domain.MsgCardNotProcessed,
		domain.FailInvalidNonce:      domain.MsgCardNotProcessed,
		domain.FailInvalidMethod:     domain.MsgMethodUnusable,
		"2000":                       domain.MsgCardDeclined,
	} {
		c := &domain.Charge{Status: domain.Pending}
		if err := c.Fail(code, now); err != nil {
			t.Fatal(err)
		}
		v := &domain.Vault{}
		v.Decline(code, now)
		for name, got := range map[string]string{"charge": c.FailureMessage, "vault": v.FailureMessage} {
			if got != want {
				t.Errorf("%s %s: failure message %q, want %q", code, name, got, want)
			}
			for _, jargon := range []string{"Honor", "Gateway", "Processor", "processor"} {
				if strings.Contains(got, jargon) {
					t.Errorf("%s %s: %q says %q", code, name, got, jargon)
				}
			}
		}
	}
}

func TestCustomerMessage(t *testing.T) {
	t.Parallel()
	if got := domain.CustomerMessage("Cannot tokenize invalid card fields. Tokenize again."); got != "Cannot process invalid card fields. Process again." {
		t.Errorf("CustomerMessage() = %q", got)
	}
}

func TestChargeStateMachine(t *testing.T) {
	t.Parallel()
	req := domain.ChargeRequest{IdempotencyKey: "k", Amount: 10000, Currency: "usd", Nonce: "n", CustomerID: "c"}
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
	c := domain.NewCharge("id", req, now)
	if c.Status != domain.Pending {
		t.Fatalf("new charge status = %s", c.Status)
	}
	if err := c.Void(now); err == nil {
		t.Error("voiding a pending charge succeeded")
	}
	if err := c.Authorized("tx", domain.MethodSummary{}, now); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RefundAmount(0); errs.CodeOf(err) != errs.Precondition {
		t.Errorf("refunding an authorized charge: %v, want failed_precondition", err)
	}
	if err := c.MarkCaptured("tx", domain.MethodSummary{}, now); err != nil || c.Captured != 10000 {
		t.Fatalf("capture: %v, captured %d", err, c.Captured)
	}
	if _, err := c.RefundAmount(10001); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("refund above captured: %v, want invalid", err)
	}
	if err := c.Refund(2500, now); err != nil || c.Status != domain.PartiallyRefunded {
		t.Fatalf("partial refund: %v, status %s", err, c.Status)
	}
	left, _ := c.RefundAmount(0)
	if left != 7500 {
		t.Errorf("RefundAmount(0) = %d, want 7500", left)
	}
	if err := c.Refund(7500, now); err != nil || c.Status != domain.Refunded {
		t.Fatalf("final refund: %v, status %s", err, c.Status)
	}
	if _, err := c.RefundAmount(1); err == nil {
		t.Error("refund of a refunded charge succeeded")
	}
}

func TestChargeRequestHash(t *testing.T) {
	t.Parallel()
	a := domain.ChargeRequest{IdempotencyKey: "k", Amount: 100, Currency: "USD", Nonce: "n", CustomerID: "c"}
	b := a
	b.IdempotencyKey = "other"
	if string(a.Hash()) != string(b.Hash()) {
		t.Error("hash depends on the key; it must only identify the content")
	}
	b.Amount = 101
	if string(a.Hash()) == string(b.Hash()) {
		t.Error("different amounts hash the same")
	}
	bad := domain.ChargeRequest{Currency: "XYZ", Nonce: "n", Token: "t"}
	err := bad.Validate()
	if e, ok := err.(*errs.Error); !ok || len(e.Fields) != 5 {
		t.Errorf("Validate() = %v, want five field errors", err)
	}
}

func TestBillingProfileLock(t *testing.T) {
	t.Parallel()
	p := domain.BillingProfile{Payment: domain.PayCheck, Period: domain.Quarterly}
	if msg := p.ChangeLocked("sales@x"); msg == "" {
		t.Error("quarterly check payer may change payment method")
	}
	for _, q := range []domain.BillingProfile{{Payment: domain.PayCheck, Period: domain.Term}, {Payment: domain.PayCard, Period: domain.Quarterly}} {
		if msg := q.ChangeLocked("sales@x"); msg != "" {
			t.Errorf("%+v locked: %s", q, msg)
		}
	}
	if pt, _ := domain.ParsePaymentType("INVOICE"); pt != domain.PayCheck {
		t.Errorf("INVOICE = %s, want CHECK", pt)
	}
}

func TestMethodUpdateProblems(t *testing.T) {
	t.Parallel()
	got := domain.MethodUpdate{AccountID: "a", Payment: domain.PayCard, CardholderName: " "}.Problems()
	want := []string{"Credit Card cannot be blank", "Name cannot be blank", "Postal Code cannot be blank", "Please select a country"}
	if len(got) != len(want) {
		t.Fatalf("Problems() = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("problem %d = %q, want %q", i, got[i], want[i])
		}
	}
	if p := (domain.MethodUpdate{AccountID: "a", Payment: domain.PayCheck}).Problems(); len(p) != 0 {
		t.Errorf("check needs nothing, got %v", p)
	}
}

func TestReaderSession(t *testing.T) {
	t.Parallel()
	if _, err := domain.NewReaderSession("id", "R2", "a@b.co", "me", []string{"R1"}, now, time.Minute); errs.CodeOf(err) != errs.Invalid {
		t.Errorf("unknown reader: %v", err)
	}
	s, err := domain.NewReaderSession("id", "R1", "a@b.co", "me", []string{"R1"}, now, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if done, err := s.Result(now); done || err != nil {
		t.Errorf("waiting: %v %v", done, err)
	}
	if _, err := s.Result(now.Add(time.Minute)); err == nil || err.(*errs.Error).Message != domain.MsgReaderTimedOut {
		t.Errorf("expired: %v", err)
	}
}
