package server

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hangar/hangar/internal/platform/errs"
)

// Admission bounds how many public requests one process works on at once, per route class:
// reads (GET, HEAD, OPTIONS) and writes (every other method). A request over its class's
// bound is answered at once, before any work, with 503 "The store is busy" and a
// Retry-After that grows with how many were turned away (Google SRE, "Handling overload":
// shed at admission, never by failing health checks). Readiness (/readyz, on the admin
// port) is not behind it: a busy process is still a ready one. Zero is no bound.
type Admission struct {
	Read  int
	Write int
}

// DefaultAdmission: well above what one process of this store works on at the sustainable
// rate (about 20 journeys a second on two cores keep a few dozen requests in flight), so
// only an overload is shed.
var DefaultAdmission = Admission{Read: 512, Write: 128}

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
	read, write *admissionClass
	now         func() time.Time
	shed        *prometheus.CounterVec
}

func newAdmission(a Admission, now func() time.Time, reg prometheus.Registerer) *admission {
	ad := &admission{now: now}
	if a.Read > 0 {
		ad.read = &admissionClass{name: "read", limit: int64(a.Read)}
	}
	if a.Write > 0 {
		ad.write = &admissionClass{name: "write", limit: int64(a.Write)}
	}
	if reg != nil {
		ad.shed = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "hangar_admission_shed_total",
			Help: "Public requests answered 503 'The store is busy' before any work, by route class (read, write).",
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
		if c.inFlight.Add(1) > c.limit {
			c.inFlight.Add(-1)
			if a.shed != nil {
				a.shed.WithLabelValues(c.name).Inc()
			}
			WriteError(w, busy(c.turnedAway(a.now())))
			return
		}
		defer c.inFlight.Add(-1)
		next.ServeHTTP(w, r)
	})
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
