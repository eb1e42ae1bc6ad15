package app

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestAnnounceTaxRates(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	reg := prometheus.NewRegistry()
	if err := announceTaxRates(slog.New(slog.NewTextHandler(&logs, nil)), reg); err != nil {
		t.Fatal(err)
	}
	want := `# HELP hangar_checkout_tax_rates_info The tax rates checkout prices with: 1, labelled with the rates file's version and effective date.
# TYPE hangar_checkout_tax_rates_info gauge
hangar_checkout_tax_rates_info{effective_from="2025-01-01",version="2025-01-01"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "hangar_checkout_tax_rates_info"); err != nil {
		t.Error(err)
	}
	if !strings.Contains(logs.String(), "tax rates loaded") || !strings.Contains(logs.String(), "version=2025-01-01") {
		t.Errorf("log %q", logs.String())
	}
}
