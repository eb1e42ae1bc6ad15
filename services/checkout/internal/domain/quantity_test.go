package domain

import "testing"

// A huge typed quantity is a number above the maximum: clamped to it (spec 000 §5), not
// read as text and silently turned into the minimum of 2 as before.
func TestParseQuantityKeepsHugeNumbersNumeric(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]struct {
		qty     int
		numeric bool
	}{
		"12": {12, true}, "2147483647": {1e9, true}, "1e300": {1e9, true}, "-99999999999": {-1e9, true},
		"abc": {0, false}, "": {0, false}, "NaN": {0, false},
	} {
		if qty, ok := ParseQuantity(raw); qty != want.qty || ok != want.numeric {
			t.Errorf("ParseQuantity(%q) = %d, %v; want %d, %v", raw, qty, ok, want.qty, want.numeric)
		}
	}
	if _, ok := ParseQuantity("2147483647"); ok {
		if q, _ := ParseQuantity("2147483647"); q <= MaxQuantity {
			t.Errorf("2147483647 parses to %d, at or below the maximum %d: it would not be clamped with the contact-sales message", q, MaxQuantity)
		}
	}
}
