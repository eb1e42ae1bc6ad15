package app

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
)

// announceTaxRates logs the tax rates in force (the package refused a malformed file
// before main ran) and exports their version as
// hangar_checkout_tax_rates_info{version,effective_from} 1, so a dashboard shows which
// rates every replica prices with.
func announceTaxRates(log *slog.Logger, reg prometheus.Registerer) error {
	r := tax.Rates()
	log.Info("tax rates loaded", "file", tax.RatesFile, "version", r.Version, "effective_from", r.EffectiveFrom)
	info := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "hangar_checkout_tax_rates_info",
		Help: "The tax rates checkout prices with: 1, labelled with the rates file's version and effective date."},
		[]string{"version", "effective_from"})
	info.WithLabelValues(r.Version, r.EffectiveFrom).Set(1)
	return reg.Register(info)
}
