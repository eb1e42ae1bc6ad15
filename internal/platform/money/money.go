// Package money writes integer minor units for people and for the wire's decimal strings:
// the one money formatter of the Go services (amounts are never floats).
package money

import (
	"strconv"
	"strings"
)

// Format writes minor units for a reader: the currency's symbol, thousands separators and
// two decimals ("$1,234.50", "-€10.00"); with no symbol, the ISO code after the amount
// ("1,234.50 CHF") rather than a guessed one.
func Format(minor int64, code, symbol string) string {
	sign, units, cents := split(minor)
	var b strings.Builder
	b.WriteString(sign)
	if symbol != "" {
		b.WriteString(symbol)
	}
	for i, c := range units {
		if i > 0 && (len(units)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	b.WriteString("." + cents)
	if symbol == "" && code != "" {
		b.WriteString(" " + code)
	}
	return b.String()
}

// Decimal writes minor units as a plain decimal with two places and no separators
// ("1234.50", "-10.00"): the amounts of the legacy wire (receipts) and of operator output.
func Decimal(minor int64) string {
	sign, units, cents := split(minor)
	return sign + units + "." + cents
}

// split answers the sign, the whole units and the two-digit cents of minor.
func split(minor int64) (sign, units, cents string) {
	u := uint64(minor)
	if minor < 0 {
		sign, u = "-", uint64(-(minor+1))+1 // math.MinInt64 too
	}
	c := strconv.FormatUint(u%100, 10)
	if len(c) < 2 {
		c = "0" + c
	}
	return sign, strconv.FormatUint(u/100, 10), c
}
