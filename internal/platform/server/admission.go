package server

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/errs"
)

// Admission bounds how many requests one process works on at once, per class: public
// reads (GET, HEAD, OPTIONS), public writes (every other method) and internal gRPC calls
// (from the other services; the public routes' calls through the in-process gateway were
// admitted as reads or writes). A request over its class's bound is answered at once,
// before any work, with 503 "The store is busy" (gRPC: UNAVAILABLE, reason STORE_BUSY)
// and a Retry-After (gRPC: RetryInfo) that grows with how many were turned away (Google
// SRE, "Handling overload": shed at admission, never by failing health checks). Readiness
// (/readyz on the admin port, the gRPC health service) is not behind it: a busy process is
// still a ready one. Zero is no bound.
//
// A fixed in-flight bound per class, not an adaptive limiter (Netflix's concurrency-limits
// algorithms, github.com/platinummonkey/go-concurrency-limits): this store's requests
// spend their time waiting on PostgreSQL and on each other, so latency-driven limits
// (Vegas, gradient) shrink under a slow database and shed a load the process could serve;
// a counter and a bound set per service (config.Platform's ADMISSION_*) is a few lines and
// says exactly what it admits.
type Admission struct {
	Read     int
	Write    int
	Internal int
}

// AdmissionOf is the admission cfg sets (its ADMISSION_* settings).
func AdmissionOf(cfg config.Platform) Admission {
	return Admission{Read: cfg.AdmitReads, Write: cfg.AdmitWrites, Internal: cfg.AdmitInternal}
}

// busyRetryMax caps the Retry-After of a busy answer.
const busyRetryMax = 30 * time.Second

// ErrBusyReason is the reason of the busy answer.
const ErrBusyReason = "STORE_BUSY"

// admissionClass is the in-flight bound of one route class.
type admissionClass struct {
	name     string
	limit    int64
	inFlight atomic.Int64

	mu sync.Mutex
	// Turned away in the current second (window, Unix seconds) and in the one before: the
	// load the Retry-After grows with.
	window     int64
	shed, prev int64
}

type admission struct {
	read, write, internal *admissionClass
	now                   func() time.Time
	shed                  *prometheus.CounterVec
}

func newAdmission(a Admission, now func() time.Time, reg prometheus.Registerer) *admission {
	ad := &admission{now: now}
	if a.Read > 0 {
		ad.read = &admissionClass{name: "read", limit: int64(a.Read)}
	}
	if a.Write > 0 {
		ad.write = &admissionClass{name: "write", limit: int64(a.Write)}
	}
	if a.Internal > 0 {
		ad.internal = &admissionClass{name: "internal", limit: int64(a.Internal)}
	}
	if reg != nil {
		ad.shed = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hangar_admission_shed_total",
			Help: "Requests answered 503 'The store is busy' (gRPC: UNAVAILABLE STORE_BUSY) before any work, by class (read, write: public; internal: gRPC).",
		}, []string{"class"})
		if err := reg.Register(ad.shed); err != nil {
			if are, ok := err.(prometheus.AlreadyRegisteredError); ok {
				ad.shed = are.ExistingCollector.(*prometheus.CounterVec)
			} else {
				ad.shed = nil
			}
		}
	}
	return ad
}

func (a *admission) classOf(r *http.Request) *admissionClass {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return a.read
	}
	return a.write
}

func (a *admission) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := a.classOf(r)
		if c == nil {
			next.ServeHTTP(w, r)
			return
		}
		if err := a.admit(c); err != nil {
			WriteError(w, err)
			return
		}
		defer c.inFlight.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// admit takes one of c's places, or answers the busy error of a request shed.
func (a *admission) admit(c *admissionClass) error {
	if c.inFlight.Add(1) <= c.limit {
		return nil
	}
	c.inFlight.Add(-1)
	if a.shed != nil {
		a.shed.WithLabelValues(c.name).Inc()
	}
	return busy(c.turnedAway(a.now()))
}

// unary is the admission of internal gRPC calls; the health service (readiness) and
// reflection are never shed.
func (a *admission) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	c := a.internal
	if c == nil || strings.HasPrefix(info.FullMethod, "/grpc.health.v1.Health/") || strings.HasPrefix(info.FullMethod, "/grpc.reflection.") {
		return handler(ctx, req)
	}
	if err := a.admit(c); err != nil {
		return nil, errs.ToStatus(err).Err()
	}
	defer c.inFlight.Add(-1)
	return handler(ctx, req)
}

// turnedAway counts one more request shed at now and answers the wait to ask for: one
// second, plus a second for every bound's worth of requests shed in the last second or two.
func (c *admissionClass) turnedAway(now time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch sec := now.Unix(); sec {
	case c.window:
	case c.window + 1:
		c.prev, c.shed, c.window = c.shed, 0, sec
	default:
		c.prev, c.shed, c.window = 0, 0, sec
	}
	c.shed++
	load := max(c.shed, c.prev)
	return min(time.Second*time.Duration(1+(load-1)/c.limit), busyRetryMax)
}

// busy is the answer of a request shed at admission.
func busy(wait time.Duration) error {
	return &errs.Error{Code: errs.Unavailable, Reason: ErrBusyReason, RetryAfter: wait,
		Message: "The store is busy. Please retry in a moment."}
}
