// Command genschemas writes standalone, strict JSON schemas for the Kubernetes kinds the
// Hangar chart renders, from the OpenAPI v2 document (swagger.json) of a Kubernetes
// release, in the file layout kubeconform's -schema-location template
// "{{ .ResourceKind }}{{ .KindSuffix }}.json" expects (e.g. deployment-apps-v1.json).
//
// "Standalone" means every $ref is inlined, so kubeconform needs no other file; "strict"
// means every object with declared properties gets additionalProperties: false, so a
// misspelled field (containerPortt) is an error rather than ignored. Descriptions are
// dropped to keep the committed files small.
//
// Usage (scripts/helm-check.sh --regenerate-schemas runs this):
//
//	go mod download -json k8s.io/kubernetes@v1.36.3   # read .Dir from the output
//	go run ./cmd/genschemas -swagger <Dir>/api/openapi-spec/swagger.json -out ../schemas
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// kinds are the group/version/kind triples the chart renders.
var kinds = []gvk{
	{"apps", "v1", "Deployment"},
	{"batch", "v1", "Job"},
	{"", "v1", "Service"},
	{"", "v1", "ServiceAccount"},
	{"autoscaling", "v2", "HorizontalPodAutoscaler"},
	{"policy", "v1", "PodDisruptionBudget"},
	{"networking.k8s.io", "v1", "NetworkPolicy"},
	{"networking.k8s.io", "v1", "Ingress"},
	{"", "v1", "ConfigMap"},
}

type gvk struct{ Group, Version, Kind string }

func (k gvk) apiVersion() string {
	if k.Group == "" {
		return k.Version
	}
	return k.Group + "/" + k.Version
}

// fileName follows kubeconform's {{ .ResourceKind }}{{ .KindSuffix }}.json: the lower-cased
// kind, then the first segment of the group, then the version.
func (k gvk) fileName() string {
	name := strings.ToLower(k.Kind)
	if k.Group != "" {
		name += "-" + strings.ToLower(strings.Split(k.Group, ".")[0])
	}
	return name + "-" + strings.ToLower(k.Version) + ".json"
}

func main() {
	swagger := flag.String("swagger", "", "path of api/openapi-spec/swagger.json of a Kubernetes release")
	out := flag.String("out", "", "directory the schemas are written to")
	flag.Parse()
	if *swagger == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: genschemas -swagger swagger.json -out dir")
		os.Exit(2)
	}
	if err := run(*swagger, *out); err != nil {
		fmt.Fprintln(os.Stderr, "genschemas:", err)
		os.Exit(1)
	}
}

func run(swaggerPath, outDir string) error {
	raw, err := os.ReadFile(swaggerPath)
	if err != nil {
		return err
	}
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("parse %s: %w", swaggerPath, err)
	}
	g := generator{defs: doc.Definitions}
	for _, k := range kinds {
		name, err := g.definitionOf(k)
		if err != nil {
			return err
		}
		s, err := g.expand(map[string]any{"$ref": "#/definitions/" + name}, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", k.Kind, err)
		}
		schema := s.(map[string]any)
		props := schema["properties"].(map[string]any)
		props["apiVersion"] = map[string]any{"type": "string", "enum": []any{k.apiVersion()}}
		props["kind"] = map[string]any{"type": "string", "enum": []any{k.Kind}}
		schema["required"] = mergeRequired(schema["required"], "apiVersion", "kind", "metadata")
		schema["$schema"] = "http://json-schema.org/draft-04/schema#"
		schema["title"] = fmt.Sprintf("%s %s (strict, from %s)", k.apiVersion(), k.Kind, name)
		b, err := json.MarshalIndent(schema, "", " ")
		if err != nil {
			return err
		}
		path := filepath.Join(outDir, k.fileName())
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", path)
	}
	return nil
}

type generator struct {
	defs map[string]map[string]any
}

// definitionOf finds the definition carrying the x-kubernetes-group-version-kind of k.
func (g generator) definitionOf(k gvk) (string, error) {
	var found []string
	for name, def := range g.defs {
		list, _ := def["x-kubernetes-group-version-kind"].([]any)
		for _, e := range list {
			m, _ := e.(map[string]any)
			if m["group"] == k.Group && m["version"] == k.Version && m["kind"] == k.Kind {
				found = append(found, name)
			}
		}
	}
	sort.Strings(found)
	if len(found) != 1 {
		return "", fmt.Errorf("%s %s: want one definition, found %v", k.apiVersion(), k.Kind, found)
	}
	return found[0], nil
}

// expand returns node with every $ref inlined (seen holds the definitions being expanded,
// to refuse cycles) and objects with properties closed.
func (g generator) expand(node any, seen []string) (any, error) {
	switch n := node.(type) {
	case []any:
		out := make([]any, len(n))
		for i, e := range n {
			v, err := g.expand(e, seen)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case map[string]any:
		if ref, ok := n["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/definitions/")
			switch name {
			case "io.k8s.apimachinery.pkg.util.intstr.IntOrString":
				return map[string]any{"oneOf": []any{
					map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}, nil
			case "io.k8s.apimachinery.pkg.api.resource.Quantity":
				return map[string]any{"oneOf": []any{
					map[string]any{"type": "string"}, map[string]any{"type": "number"}}}, nil
			}
			for _, s := range seen {
				if s == name {
					return nil, fmt.Errorf("cyclic reference through %s", strings.Join(append(seen, name), " -> "))
				}
			}
			def, ok := g.defs[name]
			if !ok {
				return nil, errors.New("unknown definition " + name)
			}
			return g.expand(def, append(seen, name))
		}
		out := map[string]any{}
		for key, v := range n {
			if key == "description" || strings.HasPrefix(key, "x-kubernetes-") {
				continue
			}
			if key == "format" && v == "int-or-string" {
				continue
			}
			if key == "properties" {
				props := map[string]any{}
				for pn, pv := range v.(map[string]any) {
					e, err := g.expand(pv, seen)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", pn, err)
					}
					props[pn] = e
				}
				out[key] = props
				continue
			}
			e, err := g.expand(v, seen)
			if err != nil {
				return nil, err
			}
			out[key] = e
		}
		if _, hasProps := out["properties"]; hasProps {
			if _, set := out["additionalProperties"]; !set {
				out["additionalProperties"] = false
			}
		}
		return out, nil
	default:
		return n, nil
	}
}

func mergeRequired(existing any, names ...string) []any {
	var out []any
	have := map[string]bool{}
	list, _ := existing.([]any)
	for _, e := range append(list, toAny(names)...) {
		s := e.(string)
		if !have[s] {
			have[s] = true
			out = append(out, s)
		}
	}
	return out
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
