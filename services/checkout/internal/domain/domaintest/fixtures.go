package domaintest

import (
	"testing"
	"time"

	"github.com/hangar/hangar/services/checkout/internal/domain"
	"github.com/hangar/hangar/services/checkout/internal/domain/pricing"
	"github.com/hangar/hangar/services/checkout/internal/domain/rules"
)

// Now is the clock of the domain tests.
var Now = time.Date(2026, 3, 10, 15, 4, 5, 0, time.UTC)

// Rules are the configuration rules of the tests; their messages name this sales contact.
var Rules = rules.Rules{SalesContact: "sales@hangar.example"}

// MustCatalog answers the catalogue of the data file, a fresh one per call (a test may
// change what it was given).
func MustCatalog(t testing.TB) *domain.Catalog {
	t.Helper()
	cat, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// Preview normalises a configuration with Rules and prices it at Now (unless p says when).
func Preview(t testing.TB, in domain.Input, existing *domain.Subscription, p pricing.Pricing) *pricing.Preview {
	t.Helper()
	c := MustCatalog(t)
	if p.Now.IsZero() {
		p.Now = Now
	}
	return pricing.PriceCart(c, Rules.Normalize(c, in, existing), p)
}

// Pilot is an individual Premium subscriber with 143 unused days of a 365-day term.
func Pilot() *domain.Subscription {
	return &domain.Subscription{ID: "sub-1", AccountID: "00000000-0000-4000-8000-000000000001", Email: "pilot@example.com",
		PlanCode: "performance", AddOns: []string{"performance", "included_geo_us", "add_geo_eu"}, Quantity: 1, Currency: "USD",
		PriceInCents: 47000, TermStart: Now.AddDate(0, 0, -222), TermEnd: Now.AddDate(0, 0, 143), PaymentSource: "CREDIT_CARD", Valid: true}
}
