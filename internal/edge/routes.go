// Package edge is the local stand-in for the Kubernetes Ingress: it reads the same route
// table the Helm chart renders the Ingress from (deploy/helm/hangar/routes.yaml) and matches
// paths with the Ingress rules, so what works through `make dev` works in the cluster.
package edge

import (
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

// Route sends a path to a service.
type Route struct {
	Path     string `json:"path"`
	PathType string `json:"pathType"`
	Service  string `json:"service"`
	// Replay says which POSTs of the route may be sent to another replica after one took
	// them and died (GET, HEAD and OPTIONS always may): ReplayKeyed, ReplayReadOnly, or
	// none (a POST that may have taken effect is never sent twice).
	Replay string `json:"replay,omitempty"`
}

// Replay values of a route.
const (
	// ReplayKeyed: a POST with an Idempotency-Key; the service replays the key's first
	// outcome (the submits), so sending it again is doing it once.
	ReplayKeyed = "keyed"
	// ReplayReadOnly: every POST; the route computes and stores nothing (a preview's quote
	// is a signed value, not a row; the validations only answer).
	ReplayReadOnly = "read-only"
)

// Table is the parsed route table.
type Table struct {
	Routes []Route `json:"routes"`
}

// LoadTable reads and validates a route table file.
func LoadTable(path string) (*Table, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read route table: %w", err)
	}
	return ParseTable(raw)
}

// ParseTable parses and validates a route table.
func ParseTable(raw []byte) (*Table, error) {
	var t Table
	if err := yaml.UnmarshalStrict(raw, &t); err != nil {
		return nil, fmt.Errorf("parse route table: %w", err)
	}
	seen := map[string]bool{}
	for _, r := range t.Routes {
		if !strings.HasPrefix(r.Path, "/") {
			return nil, fmt.Errorf("route %q: path must start with /", r.Path)
		}
		if r.PathType != "Exact" && r.PathType != "Prefix" {
			return nil, fmt.Errorf("route %q: pathType %q: want Exact or Prefix", r.Path, r.PathType)
		}
		if r.Service == "" {
			return nil, fmt.Errorf("route %q: no service", r.Path)
		}
		if r.Replay != "" && r.Replay != ReplayKeyed && r.Replay != ReplayReadOnly {
			return nil, fmt.Errorf("route %q: replay %q: want %s, %s or none", r.Path, r.Replay, ReplayKeyed, ReplayReadOnly)
		}
		k := r.PathType + " " + r.Path
		if seen[k] {
			return nil, fmt.Errorf("route %s listed twice", k)
		}
		seen[k] = true
	}
	return &t, nil
}

// Match answers the route for path with Kubernetes Ingress semantics: Exact matches the
// path only; Prefix matches element-wise on "/" boundaries (a trailing slash in either is
// ignored); the longest matching path wins, and Exact wins over Prefix at equal length.
func (t *Table) Match(path string) (Route, bool) {
	var best Route
	bestLen, found := -1, false
	for _, r := range t.Routes {
		var ok bool
		switch r.PathType {
		case "Exact":
			ok = path == r.Path
		case "Prefix":
			ok = prefixMatch(r.Path, path)
		}
		if !ok {
			continue
		}
		l := len(strings.TrimSuffix(r.Path, "/"))
		if l > bestLen || (l == bestLen && r.PathType == "Exact") {
			best, bestLen, found = r, l, true
		}
	}
	return best, found
}

func prefixMatch(prefix, path string) bool {
	p := strings.TrimSuffix(prefix, "/")
	if p == "" {
		return true
	}
	if !strings.HasPrefix(path, p) {
		return false
	}
	rest := path[len(p):]
	return rest == "" || rest[0] == '/'
}

// Services answers the distinct services the table routes to.
func (t *Table) Services() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range t.Routes {
		if !seen[r.Service] {
			seen[r.Service] = true
			out = append(out, r.Service)
		}
	}
	return out
}
