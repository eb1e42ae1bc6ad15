package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Package is what the check reads of one `go list -json` entry.
type Package struct {
	ImportPath string
	Imports    []string
}

// Violation is one forbidden import of an inner-layer package.
type Violation struct {
	Package, Import, Why string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s imports %s (%s)", v.Package, v.Import, v.Why)
}

// inner matches a service's package and names its prefix (up to and including
// services/<svc>/internal/), the service and the layer.
var inner = regexp.MustCompile(`^(.*\bservices/([^/]+)/internal/)(app|domain|gateway|order|subscription)(/.*)?$`)

// innerLayers are the layers checked in every service (gateway: a processor's rules, such
// as payments' sandbox, whose state an adapter keeps); checkout also keeps its submission
// pipeline (order) and subscription rules out of the adapters.
var innerLayers = map[string]bool{"app": true, "domain": true, "gateway": true}

var checkoutLayers = map[string]bool{"order": true, "subscription": true}

// drivers are the database packages only adapters may import, with their sub-packages.
var drivers = []string{"github.com/jackc/pgx/v5", "database/sql"}

// Check answers the forbidden imports of pkgs, sorted by package then import.
func Check(pkgs []Package) []Violation {
	var out []Violation
	for _, p := range pkgs {
		m := inner.FindStringSubmatch(p.ImportPath)
		if m == nil {
			continue
		}
		prefix, svc, layer := m[1], m[2], m[3]
		if !innerLayers[layer] && !(svc == "checkout" && checkoutLayers[layer]) {
			continue
		}
		adapters := prefix + "adapters"
		for _, imp := range p.Imports {
			switch {
			case under(imp, adapters):
				out = append(out, Violation{p.ImportPath, imp, "the service's adapters: declare a port in app and let cmd wire the adapter"})
			case underAny(imp, drivers):
				out = append(out, Violation{p.ImportPath, imp, "a database driver: SQL and transactions belong in adapters"})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Package != out[j].Package {
			return out[i].Package < out[j].Package
		}
		return out[i].Import < out[j].Import
	})
	return out
}

func under(path, root string) bool {
	return path == root || strings.HasPrefix(path, root+"/")
}

func underAny(path string, roots []string) bool {
	for _, r := range roots {
		if under(path, r) {
			return true
		}
	}
	return false
}
