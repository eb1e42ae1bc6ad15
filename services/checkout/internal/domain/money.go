package domain

import "fmt"

// RoundHalfUp divides num by den (den > 0, num >= 0) rounding half up: tax and percentage
// discounts round once per invoice this way.
func RoundHalfUp(num, den int64) int64 { return (num + den/2) / den }

// FormatMoney writes minor units with the currency symbol and a sign: "-$12.50".
func FormatMoney(cents int64, cur Currency) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%s%d.%02d", sign, cur.Symbol, cents/100, cents%100)
}
