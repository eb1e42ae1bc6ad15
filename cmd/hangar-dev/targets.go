package main

import (
	"encoding/json"
	"net/http"
	"sync"
)

// scrapeTargets answers Prometheus HTTP service discovery (http_sd_configs) with every
// service's admin address (/metrics), labelled the way the Helm chart's ServiceMonitors
// label them in the cluster (job = the Kubernetes Service name, namespace "store"), so the
// chart's recording rules, alerts and dashboards work unchanged against a dev stack
// (scripts/test-prometheus.sh).
type scrapeTargets struct {
	mu      sync.Mutex
	targets []targetGroup
}

type targetGroup struct {
	Targets []string          `json:"targets"`
	Labels  map[string]string `json:"labels"`
}

func (t *scrapeTargets) add(service, adminAddr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.targets = append(t.targets, targetGroup{
		Targets: []string{adminAddr},
		Labels:  map[string]string{"job": "hangar-" + service, "namespace": "store", "component": service},
	})
}

func (t *scrapeTargets) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(t.targets)
}
