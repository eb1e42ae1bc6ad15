package domain

import "testing"

// Limits kept in USD (the gift caps) convert with the catalogue's rate: up into USD, so
// rounding never lets an amount under a cap it passes, and down out of it for display.
func TestCurrencyConvertsWithTheCataloguesRate(t *testing.T) {
	t.Parallel()
	eur, aud, usd := Currency{Code: "EUR", RateBasisPoints: 9300}, Currency{Code: "AUD", RateBasisPoints: 15000}, Currency{Code: "USD", RateBasisPoints: 10000}
	for _, tc := range []struct {
		cur        Currency
		amount, us int64
	}{{eur, 100000, 107527}, {aud, 100000, 66667}, {usd, 123456, 123456}, {Currency{Code: "XXX"}, 500, 500}} {
		if got := tc.cur.ToUSD(tc.amount); got != tc.us {
			t.Errorf("%s %d in USD = %d, want %d", tc.cur.Code, tc.amount, got, tc.us)
		}
	}
	if got := eur.FromUSD(500000); got != 465000 {
		t.Errorf("$5,000 in EUR = %d, want 465000", got)
	}
}
