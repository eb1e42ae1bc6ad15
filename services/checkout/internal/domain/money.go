package domain

import "github.com/hangar/hangar/internal/platform/money"

// RoundHalfUp divides num by den (den > 0, num >= 0) rounding half up: tax and percentage
// discounts round once per invoice this way.
func RoundHalfUp(num, den int64) int64 { return (num + den/2) / den }

// FormatMoney writes minor units for a reader in cur: "-$12.50", "$2,000.00" (money.Format).
func FormatMoney(cents int64, cur Currency) string { return money.Format(cents, cur.Code, cur.Symbol) }
