package domain

import (
	"strings"

	"github.com/hangar/hangar/internal/platform/money"
)

// symbols are the store's currencies and their display symbols (spec 001 §9).
var symbols = map[string]string{"USD": "$", "CAD": "CA$", "EUR": "€", "GBP": "£", "AUD": "AU$"}

// FormatMoney formats integer minor units for display (money.Format): the currency's
// symbol, thousands separators, two decimals ("$1,234.50", "-€10.00"). An unknown currency
// is written with its ISO code ("1,234.50 CHF") rather than a guessed symbol.
func FormatMoney(cents int64, currency string) string {
	return money.Format(cents, currency, symbols[strings.ToUpper(currency)])
}
