package receipt_test

import (
	"testing"

	"github.com/hangar/hangar/services/checkout/internal/domain/domaintest"
	"github.com/hangar/hangar/services/checkout/internal/domain/receipt"
)

// The catalogue decides which lines a receipt leaves off: its hidden defaults that cost
// nothing. A hidden entry that charges, a visible one and an unknown code are printed.
func TestReceiptLinesFollowTheCatalogue(t *testing.T) {
	t.Parallel()
	cat := domaintest.MustCatalog(t)
	hidden, visible := "included_geo_us", "pro_plus"
	if e, ok := cat.Entry(hidden); !ok || !e.Hidden {
		t.Fatalf("the fixture catalogue's %s is not a hidden entry", hidden)
	}
	if e, ok := cat.Entry(visible); !ok || e.Hidden {
		t.Fatalf("the fixture catalogue's %s is not a visible entry", visible)
	}
	for _, c := range []struct {
		code   string
		amount int64
		want   bool
	}{
		{hidden, 0, false},
		{hidden, 2500, true},
		{visible, 0, true},
		{visible, 2500, true},
		{"no_such_code", 0, true},
		{"", 0, true},
	} {
		if got := receipt.Shown(cat, c.code, c.amount); got != c.want {
			t.Errorf("Shown(%q, %d) = %v, want %v", c.code, c.amount, got, c.want)
		}
	}
	if !receipt.Shown(nil, hidden, 0) {
		t.Error("without a catalogue every line must be printed")
	}
}

func TestReceiptMoneyAndInvoicePrinting(t *testing.T) {
	t.Parallel()
	for cents, want := range map[int64]string{0: "0.00", 5: "0.05", 19999: "199.99", -1250: "-12.50"} {
		if got := receipt.Money(cents, false); got != want {
			t.Errorf("Money(%d) = %q, want %q", cents, got, want)
		}
	}
	if got := receipt.Money(19999, true); got != "N/A" {
		t.Errorf("third-party Money = %q, want N/A", got)
	}
	for _, c := range []struct {
		eu              bool
		business, cntry string
		want            bool
	}{{true, "", "US", true}, {false, "GB123", "US", true}, {false, "", "DE", true}, {false, "", "US", false}} {
		if got := receipt.CanPrintInvoice(c.eu, c.business, c.cntry); got != c.want {
			t.Errorf("CanPrintInvoice(%v, %q, %q) = %v, want %v", c.eu, c.business, c.cntry, got, c.want)
		}
	}
}
