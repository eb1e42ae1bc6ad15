package domain

import (
	"strconv"
	"strings"
)

// symbols are the store's currencies and their display symbols (spec 001 §9).
var symbols = map[string]string{"USD": "$", "CAD": "CA$", "EUR": "€", "GBP": "£", "AUD": "AU$"}

// FormatMoney formats integer minor units for display: the currency's symbol, thousands
// separators, two decimals ("$1,234.50", "-€10.00"). An unknown currency is written with its
// ISO code ("1,234.50 CHF") rather than a guessed symbol.
func FormatMoney(cents int64, currency string) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	units := strconv.FormatInt(cents/100, 10)
	var b strings.Builder
	for i, c := range units {
		if i > 0 && (len(units)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	amount := b.String() + "." + pad2(cents%100)
	if sym, ok := symbols[strings.ToUpper(currency)]; ok {
		return sign + sym + amount
	}
	return sign + amount + " " + currency
}

func pad2(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}
