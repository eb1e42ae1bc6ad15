package app

import (
	"regexp"

	"github.com/prometheus/client_golang/prometheus"
)

// RenewalMetrics are the renewal engine's counters (each nil-safe):
//
//	hangar_renewals_due_total                              attempts started (first tries and retries)
//	hangar_renewals_renewed_total                          terms renewed (once per term)
//	hangar_renewals_declined_total{reason}                 declines, by payments' reason code
//	hangar_renewals_retried_total                          attempts after a decline
//	hangar_renewals_outages_total{reason}                  processor outages/timeouts (not declines)
//	hangar_renewals_lapsed_total{reason}                   subscriptions ended: declined, auto_renew_off
//	hangar_renewals_notices_total{kind}                    reminders and card-expiry notices sent
//	hangar_renewal_revenue_minor_units_total{currency}     amount charged for renewals (cents)
type RenewalMetrics struct {
	dueC, renewedC, retriedC     prometheus.Counter
	declinedC, outagesC, lapsedC *prometheus.CounterVec
	noticesC, revenueC           *prometheus.CounterVec
}

// NewRenewalMetrics registers the renewal counters on reg.
func NewRenewalMetrics(reg prometheus.Registerer) (*RenewalMetrics, error) {
	m := &RenewalMetrics{
		dueC: prometheus.NewCounter(prometheus.CounterOpts{Name: "hangar_renewals_due_total",
			Help: "Renewal attempts started (first attempts and retries)."}),
		renewedC: prometheus.NewCounter(prometheus.CounterOpts{Name: "hangar_renewals_renewed_total",
			Help: "Subscription terms renewed (counted once per term)."}),
		retriedC: prometheus.NewCounter(prometheus.CounterOpts{Name: "hangar_renewals_retried_total",
			Help: "Renewal attempts made after a decline."}),
		declinedC: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_renewals_declined_total",
			Help: "Renewal charges declined, by the processor's reason code."}, []string{"reason"}),
		outagesC: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_renewals_outages_total",
			Help: "Renewal attempts that met a processor outage or timeout (retried, not declines)."}, []string{"reason"}),
		lapsedC: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_renewals_lapsed_total",
			Help: "Subscriptions ended without renewal: declined after the last retry, or auto-renew off."}, []string{"reason"}),
		noticesC: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_renewals_notices_total",
			Help: "Renewal reminders and card-expiry notices sent."}, []string{"kind"}),
		revenueC: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_renewal_revenue_minor_units_total",
			Help: "Amount charged for renewals, in minor units of the currency (cents)."}, []string{"currency"}),
	}
	for _, c := range []prometheus.Collector{m.dueC, m.renewedC, m.retriedC, m.declinedC, m.outagesC, m.lapsedC, m.noticesC, m.revenueC} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// codeRE bounds reason labels to code-like values (a processor cannot grow the series).
var codeRE = regexp.MustCompile(`^[a-z0-9_]{1,40}$`)

func label(s string) string {
	if !codeRE.MatchString(s) {
		return "other"
	}
	return s
}

func (m *RenewalMetrics) due() {
	if m != nil {
		m.dueC.Inc()
	}
}

func (m *RenewalMetrics) retried() {
	if m != nil {
		m.retriedC.Inc()
	}
}

func (m *RenewalMetrics) renewed(currency string, total int64) {
	if m != nil {
		m.renewedC.Inc()
		m.revenueC.WithLabelValues(currency).Add(float64(total))
	}
}

func (m *RenewalMetrics) declined(reason string) {
	if m != nil {
		m.declinedC.WithLabelValues(label(reason)).Inc()
	}
}

func (m *RenewalMetrics) outage(reason string) {
	if m != nil {
		m.outagesC.WithLabelValues(label(reason)).Inc()
	}
}

func (m *RenewalMetrics) lapsed(reason string) {
	if m != nil {
		m.lapsedC.WithLabelValues(reason).Inc()
	}
}

func (m *RenewalMetrics) notices(kind string, n int) {
	if m != nil && n > 0 {
		m.noticesC.WithLabelValues(kind).Add(float64(n))
	}
}
