package kitclient

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sony/gobreaker/v2"
)

// metrics of every client of a service share one set of collectors on its registry,
// labelled by client (the remote service) and method.
type metrics struct {
	requests *prometheus.CounterVec
	errors   *prometheus.CounterVec
	retries  *prometheus.CounterVec
	duration *prometheus.HistogramVec
	breaker  *prometheus.GaugeVec
}

var buckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hangar_client_requests_total", Help: "Outbound calls by remote service and method (retries of a call count once).",
		}, []string{"client", "method"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hangar_client_errors_total", Help: "Outbound calls that failed, by remote service, method and gRPC code.",
		}, []string{"client", "method", "code"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hangar_client_retries_total", Help: "Retries of idempotent outbound calls by remote service and method.",
		}, []string{"client", "method"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hangar_client_request_duration_seconds", Help: "Outbound call latency (all attempts) by remote service and method.",
			Buckets: buckets,
		}, []string{"client", "method"}),
		breaker: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "hangar_client_breaker_state", Help: "Circuit breaker state by remote service: 0 closed, 1 half-open, 2 open.",
		}, []string{"client"}),
	}
	if reg == nil {
		return m
	}
	// Several clients of one service register on one registry: the first registers, the
	// others share its collectors.
	m.requests = register(reg, m.requests)
	m.errors = register(reg, m.errors)
	m.retries = register(reg, m.retries)
	m.duration = register(reg, m.duration)
	m.breaker = register(reg, m.breaker)
	return m
}

func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	err := reg.Register(c)
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing
		}
	}
	return c
}

func (m *metrics) state(client string, s gobreaker.State) {
	m.breaker.WithLabelValues(client).Set(float64(s))
}
