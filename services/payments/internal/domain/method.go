package domain

import (
	"net/mail"
	"strings"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
)

// PaymentType is how an account pays its subscription: spec payment methods CREDIT_CARD,
// PAYPAL and INVOICE, the last sent and stored as CHECK.
type PaymentType string

const (
	PayCard   PaymentType = "CREDIT_CARD"
	PayPal    PaymentType = "PAYPAL"
	PayCheck  PaymentType = "CHECK"
	payInvoic             = "INVOICE"
)

// ParsePaymentType reads a payment method name; empty is CREDIT_CARD, INVOICE is CHECK.
func ParsePaymentType(s string) (PaymentType, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "", string(PayCard):
		return PayCard, nil
	case string(PayPal):
		return PayPal, nil
	case payInvoic, string(PayCheck):
		return PayCheck, nil
	}
	return "", errs.Field("paymentMethod", "payment method must be CREDIT_CARD, PAYPAL or INVOICE")
}

// BillingPeriod is how often a subscription is billed.
type BillingPeriod string

const (
	Term      BillingPeriod = "TERM"
	Quarterly BillingPeriod = "QUARTERLY"
	Monthly   BillingPeriod = "MONTHLY"
)

// ParseBillingPeriod reads a billing period; empty is TERM.
func ParseBillingPeriod(s string) (BillingPeriod, error) {
	switch p := BillingPeriod(strings.ToUpper(strings.TrimSpace(s))); p {
	case "":
		return Term, nil
	case Term, Quarterly, Monthly:
		return p, nil
	}
	return "", errs.Field("billingPeriod", "billing period must be TERM, QUARTERLY or MONTHLY")
}

// BillingProfile is how an account pays, as far as payments needs to know: checkout owns
// subscriptions and keeps this record in step over gRPC.
type BillingProfile struct {
	AccountID string
	Payment   PaymentType
	Period    BillingPeriod
	Token     string // vaulted method on file
	UpdatedAt time.Time
}

// DefaultProfile is the profile of an account payments has no record of: card, per term.
func DefaultProfile(account string) BillingProfile {
	return BillingProfile{AccountID: account, Payment: PayCard, Period: Term}
}

// ChangeLocked answers why the payment method may not be changed here, or "": quarterly
// subscribers who pay by check are billed by sales (spec 000 §6).
func (p BillingProfile) ChangeLocked(salesContact string) string {
	if p.Payment == PayCheck && p.Period == Quarterly {
		return "Your subscription is billed quarterly by check, so its payment method cannot be changed here. Please contact sales at " + salesContact + "."
	}
	return ""
}

// MethodUpdate is a request to replace an account's payment method.
type MethodUpdate struct {
	AccountID      string
	Nonce          string
	Zipcode        string
	CardholderName string
	Country        string
	Payment        PaymentType
	// HumanValue is the page's human-verification value (recaptchaValue).
	HumanValue string
}

// Problems answers the update's input problems in the spec's words (spec 000 §5), empty
// when it may go on. A card or wallet needs a nonce; a card also the billing details.
func (u MethodUpdate) Problems() []string {
	var out []string
	if strings.TrimSpace(u.AccountID) == "" {
		out = append(out, "Account is required.")
	}
	if u.Payment == PayCheck {
		return out
	}
	if strings.TrimSpace(u.Nonce) == "" {
		out = append(out, "Credit Card cannot be blank")
	}
	if u.Payment == PayCard {
		if strings.TrimSpace(u.CardholderName) == "" {
			out = append(out, "Name cannot be blank")
		}
		if strings.TrimSpace(u.Zipcode) == "" {
			out = append(out, "Postal Code cannot be blank")
		}
		if strings.TrimSpace(u.Country) == "" {
			out = append(out, "Please select a country")
		}
	}
	return out
}

// NormalizeCountry maps the spec's 'eu' to Germany and upper-cases ISO codes.
func NormalizeCountry(c string) string {
	c = strings.ToUpper(strings.TrimSpace(c))
	if c == "EU" {
		return "DE"
	}
	return c
}

// ValidEmail reports whether s is a plain e-mail address.
func ValidEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s, "@")
}
