package cardexpiry_test

import (
	"testing"
	"time"

	"github.com/hangar/hangar/internal/platform/cardexpiry"
)

// The cases of both callers: payments' card check reads what the customer typed, checkout's
// renewals read payments' MM/YYYY rendering back as the instant the card stops working.
func TestParseAndEnd(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in          string
		month, year int // 0 when s is not an expiry
		end         string
	}{
		// payments: the forms a customer types
		{"12/2030", 12, 2030, "2031-01-01"},
		{"012031", 1, 2031, "2031-02-01"},
		{"01/31", 1, 2031, "2031-02-01"},
		{"0131", 1, 2031, "2031-02-01"},
		{"01-2031", 1, 2031, "2031-02-01"},
		{" 11 / 2026 ", 11, 2026, "2026-12-01"},
		{"13/2030", 0, 0, ""},
		{"00/2030", 0, 0, ""},
		{"1x/2030", 0, 0, ""},
		{"123/2030", 0, 0, ""},
		{"12/203", 0, 0, ""},
		{"12345", 0, 0, ""},
		// checkout: payments' rendering, the wallet's empty expiry, garbage from elsewhere
		{"01/2031", 1, 2031, "2031-02-01"},
		{"1/2031", 1, 2031, "2031-02-01"},
		{"12/2031", 12, 2031, "2032-01-01"},
		{"", 0, 0, ""},
		{"soon", 0, 0, ""},
		{"12/", 0, 0, ""},
	} {
		m, y, err := cardexpiry.Parse(c.in)
		if c.month == 0 {
			if err == nil || err.Error() == "" {
				t.Errorf("Parse(%q) = %d/%d, nil; want an error", c.in, m, y)
			}
		} else if err != nil || m != c.month || y != c.year {
			t.Errorf("Parse(%q) = %d/%d, %v; want %d/%d", c.in, m, y, err, c.month, c.year)
		}
		end := cardexpiry.End(c.in)
		switch {
		case c.end == "" && end != nil:
			t.Errorf("End(%q) = %v; want nil", c.in, end)
		case c.end != "" && (end == nil || end.Format(time.DateOnly) != c.end || end.Location() != time.UTC || !end.Equal(end.Truncate(24*time.Hour))):
			t.Errorf("End(%q) = %v; want %s 00:00 UTC", c.in, end, c.end)
		}
	}
}

func TestParseErrorNamesTheWantedForm(t *testing.T) {
	t.Parallel()
	if _, _, err := cardexpiry.Parse("13/2030"); err == nil || err.Error() != `expiry "13/2030": want MM/YYYY` {
		t.Fatalf("Parse error = %v", err)
	}
}
