// Package metrics holds the RED (rate, errors, duration) metrics every service exposes for
// each RPC and route. The registry is passed in; nothing registers on a global.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
)

// RED holds the request counters and latency histograms of one service.
type RED struct {
	service      string
	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	grpcRequests *prometheus.CounterVec
	grpcDuration *prometheus.HistogramVec
}

// Buckets suit a store whose SLOs are in the 10–500 ms range.
var buckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}

// NewRegistry builds a registry with the Go runtime and process collectors.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// NewRED registers the RED metrics of service on reg.
func NewRED(reg prometheus.Registerer, service string) (*RED, error) {
	m := &RED{
		service: service,
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hangar_http_requests_total", Help: "HTTP requests by route, method and status code.",
		}, []string{"service", "route", "method", "code"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hangar_http_request_duration_seconds", Help: "HTTP request latency by route and method.", Buckets: buckets,
		}, []string{"service", "route", "method"}),
		grpcRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hangar_grpc_requests_total", Help: "gRPC requests handled by method and status code.",
		}, []string{"service", "method", "code"}),
		grpcDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "hangar_grpc_request_duration_seconds", Help: "gRPC handling latency by method.", Buckets: buckets,
		}, []string{"service", "method"}),
	}
	for _, c := range []prometheus.Collector{m.httpRequests, m.httpDuration, m.grpcRequests, m.grpcDuration} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// UnaryServerInterceptor counts and times every unary RPC.
func (m *RED) UnaryServerInterceptor() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		resp, err := handler(ctx, req)
		m.grpcRequests.WithLabelValues(m.service, info.FullMethod, status.Code(err).String()).Inc()
		m.grpcDuration.WithLabelValues(m.service, info.FullMethod).Observe(time.Since(start).Seconds())
		return resp, err
	}
}

type routeKey struct{}

// SetRoute records the matched route pattern for the request's metrics. Routers call it
// once they know the pattern; unmatched requests are labelled "unmatched", so a scan of
// random paths cannot explode the label set.
func SetRoute(r *http.Request, pattern string) {
	if p, ok := r.Context().Value(routeKey{}).(*string); ok {
		*p = pattern
	}
}

// HTTPMiddleware counts and times every request, labelled by the route set with SetRoute.
func (m *RED) HTTPMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		route := "unmatched"
		r = r.WithContext(context.WithValue(r.Context(), routeKey{}, &route))
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(sw, r)
		m.httpRequests.WithLabelValues(m.service, route, r.Method, strconv.Itoa(sw.code)).Inc()
		m.httpDuration.WithLabelValues(m.service, route, r.Method).Observe(time.Since(start).Seconds())
	})
}

type statusWriter struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.code, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wroteHeader = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer (flush, deadlines).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
