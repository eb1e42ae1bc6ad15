// Package cardexpiry is the one reader of a card's expiry: payments parses what the customer
// typed (MM/YYYY, MMYYYY from iOS, MM/YY, MM-YYYY) and renders MM/YYYY onto its events, and
// checkout reads that rendering back to know when a subscription's card stops working. One
// parser, so the two services cannot disagree on which dates are valid.
package cardexpiry

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Parse reads MM/YYYY, MMYYYY, MM/YY, MMYY or MM-YYYY (spaces ignored); a two-digit year is
// 20YY.
func Parse(s string) (month, year int, err error) {
	// Two plain replacements: a strings.Replacer built per call cost a lookup table each
	// (about 4.5 KB an order).
	s = strings.ReplaceAll(strings.ReplaceAll(s, " ", ""), "-", "/")
	var ms, ys string
	if i := strings.IndexByte(s, '/'); i >= 0 {
		ms, ys = s[:i], s[i+1:]
	} else if len(s) == 6 || len(s) == 4 {
		ms, ys = s[:2], s[2:]
	} else {
		return 0, 0, fmt.Errorf("expiry %q: want MM/YYYY", s)
	}
	month, err1 := strconv.Atoi(ms)
	year, err2 := strconv.Atoi(ys)
	if err1 != nil || err2 != nil || month < 1 || month > 12 || len(ms) > 2 || (len(ys) != 2 && len(ys) != 4) {
		return 0, 0, fmt.Errorf("expiry %q: want MM/YYYY", s)
	}
	if len(ys) == 2 {
		year += 2000
	}
	return month, year, nil
}

// End answers the first instant a card expiring s no longer works (the first day of the
// following month, UTC), or nil when s is not an expiry (a wallet, or unknown): a card
// is good through the last day of its month.
func End(s string) *time.Time {
	month, year, err := Parse(s)
	if err != nil {
		return nil
	}
	t := time.Date(year, time.Month(month)+1, 1, 0, 0, 0, 0, time.UTC)
	return &t
}
