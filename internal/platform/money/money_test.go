package money_test

import (
	"math"
	"testing"

	"github.com/hangar/hangar/internal/platform/money"
)

func TestFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		minor        int64
		code, symbol string
		want         string
	}{
		{0, "USD", "$", "$0.00"},
		{5, "USD", "$", "$0.05"},
		{123456, "USD", "$", "$1,234.56"},
		{100000000, "CAD", "CA$", "CA$1,000,000.00"},
		{-2000, "EUR", "€", "-€20.00"},
		{123450, "CHF", "", "1,234.50 CHF"},
		{47000, "", "", "470.00"},
	} {
		if got := money.Format(tc.minor, tc.code, tc.symbol); got != tc.want {
			t.Errorf("Format(%d, %q, %q) = %q, want %q", tc.minor, tc.code, tc.symbol, got, tc.want)
		}
	}
}

func TestDecimal(t *testing.T) {
	t.Parallel()
	for minor, want := range map[int64]string{0: "0.00", 7: "0.07", 47000: "470.00", 123456: "1234.56", -1250: "-12.50",
		math.MinInt64: "-92233720368547758.08"} {
		if got := money.Decimal(minor); got != want {
			t.Errorf("Decimal(%d) = %q, want %q", minor, got, want)
		}
	}
}
