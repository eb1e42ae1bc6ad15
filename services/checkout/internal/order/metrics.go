package order

import (
	"regexp"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
)

// Metrics are the business counters of the order pipeline, counted once per order when its
// write commits (a replayed key or the reconciler finishing an order someone else wrote
// counts nothing), so they reconcile with the orders table:
//
//	hangar_orders_total{product,currency,buyer_kind}
//	hangar_order_revenue_minor_units_total{product,currency,buyer_kind}  (charged total)
//	hangar_payment_declines_total{reason}
//	hangar_gift_certificates_issued_total{currency}
type Metrics struct {
	orders, revenue, declines, gifts *prometheus.CounterVec
}

// NewMetrics registers the pipeline's counters on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		orders: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_orders_total",
			Help: "Orders completed, by product (subscription, gift, oneoff), currency and buyer kind."},
			[]string{"product", "currency", "buyer_kind"}),
		revenue: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_order_revenue_minor_units_total",
			Help: "Amount charged for completed orders, in minor units of the currency (cents)."},
			[]string{"product", "currency", "buyer_kind"}),
		declines: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_payment_declines_total",
			Help: "Submits whose payment was declined, by the processor's reason code."}, []string{"reason"}),
		gifts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hangar_gift_certificates_issued_total",
			Help: "Gift certificates issued with completed orders."}, []string{"currency"}),
	}
	for _, c := range []prometheus.Collector{m.orders, m.revenue, m.declines, m.gifts} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *Metrics) completed(o *Placed, evs []kafka.Event) {
	if m == nil {
		return
	}
	buyer := o.BuyerKind
	if buyer == "" {
		buyer = "none"
	}
	m.orders.WithLabelValues(o.Kind, o.Currency, buyer).Inc()
	m.revenue.WithLabelValues(o.Kind, o.Currency, buyer).Add(float64(o.TotalInCents))
	for _, e := range evs {
		if e.Topic == events.TopicGiftCertificateIssued {
			m.gifts.WithLabelValues(o.Currency).Inc()
		}
	}
}

// reasonRE bounds the reason label to code-like values; anything else (a message, a
// processor's free text) is "other", so a processor cannot grow the series without limit.
var reasonRE = regexp.MustCompile(`^[a-z0-9_]{1,40}$`)

func (m *Metrics) declined(d *DeclinedError) {
	if m == nil {
		return
	}
	reason := d.Code
	if !reasonRE.MatchString(reason) {
		reason = "other"
	}
	m.declines.WithLabelValues(reason).Inc()
}
