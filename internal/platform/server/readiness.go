package server

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// Readiness tracks the named conditions a service needs before it takes traffic
// (migrations applied, dependencies reachable, data loaded). /readyz and the gRPC health
// service answer SERVING only while every registered condition holds.
type Readiness struct {
	// admit is whether every condition holds (shutting down aside): the readiness gate
	// reads it on every call, without the lock.
	admit    atomic.Bool
	mu       sync.Mutex
	health   *health.Server
	conds    map[string]string // name -> "" when ok, else why not
	probes   map[string]func(context.Context) error
	stopping bool
}

func newReadiness(h *health.Server) *Readiness {
	r := &Readiness{health: h, conds: map[string]string{}, probes: map[string]func(context.Context) error{}}
	r.admit.Store(true)
	return r
}

// Require registers a condition that starts unmet.
func (r *Readiness) Require(name string) { r.Set(name, "starting") }

// Set marks a condition met (reason "") or unmet with a reason.
func (r *Readiness) Set(name, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.conds[name] = reason
	r.publish()
}

// Ok reports whether every condition holds and the server is not stopping.
func (r *Readiness) Ok() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ok()
}

func (r *Readiness) ok() bool {
	if r.stopping {
		return false
	}
	for _, why := range r.conds {
		if why != "" {
			return false
		}
	}
	return true
}

func (r *Readiness) publish() {
	met := true
	for _, why := range r.conds {
		met = met && why == ""
	}
	r.admit.Store(met)
	st := healthpb.HealthCheckResponse_NOT_SERVING
	if r.ok() {
		st = healthpb.HealthCheckResponse_SERVING
	}
	r.health.SetServingStatus("", st)
}

func (r *Readiness) shutdown() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopping = true
	r.health.Shutdown()
}

// probeTimeout bounds one probe: a dependency that cannot answer a ping within it is
// reported unreachable.
const probeTimeout = 3 * time.Second

// unreachable is the reason a failed probe gives its condition. A probe only ever moves
// its condition between met and this reason: one still starting (migrations) or unmet for
// another reason stays as its owner set it.
const unreachable = "unreachable"

// probe runs the check of name, records what it found and answers whether it passed.
func (r *Readiness) probe(ctx context.Context, name string) bool {
	r.mu.Lock()
	check := r.probes[name]
	r.mu.Unlock()
	if check == nil {
		return true
	}
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	err := check(pctx)
	cancel()
	r.mu.Lock()
	defer r.mu.Unlock()
	switch cur := r.conds[name]; {
	case err != nil && cur == "":
		r.conds[name] = unreachable
	case err == nil && cur == unreachable:
		r.conds[name] = ""
	default:
		return err == nil
	}
	r.publish()
	return err == nil
}

func (r *Readiness) runProbes(ctx context.Context) {
	r.mu.Lock()
	names := make([]string, 0, len(r.probes))
	for n := range r.probes {
		names = append(names, n)
	}
	r.mu.Unlock()
	for _, n := range names {
		r.probe(ctx, n)
	}
}

// ServeHTTP answers 200 when ready, 503 otherwise, with the unmet conditions. The probes
// run first, so the answer is about now (a database lost since the last check is seen).
func (r *Readiness) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.runProbes(req.Context())
	r.mu.Lock()
	ok := r.ok()
	var waiting []string
	for name, why := range r.conds {
		if why != "" {
			waiting = append(waiting, name+": "+why)
		}
	}
	if r.stopping {
		waiting = append(waiting, "shutting down")
	}
	r.mu.Unlock()
	sort.Strings(waiting)
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"ready": ok, "waiting": waiting})
}
