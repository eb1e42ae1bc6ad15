package check

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// routesPath is routes.yaml of the chart; HANGAR_ROUTES overrides it.
func routesPath() string {
	if p := os.Getenv("HANGAR_ROUTES"); p != "" {
		return p
	}
	return filepath.Join("..", "hangar", "routes.yaml")
}

// headersPath is headers.yaml of the chart; HANGAR_HEADERS overrides it.
func headersPath() string {
	if p := os.Getenv("HANGAR_HEADERS"); p != "" {
		return p
	}
	return filepath.Join("..", "hangar", "headers.yaml")
}

func loadHeaders(t *testing.T) Headers {
	t.Helper()
	h, err := ParseHeaders(mustRead(t, headersPath()))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func loadRoutes(t *testing.T) []Route {
	t.Helper()
	b, err := os.ReadFile(routesPath())
	if err != nil {
		t.Fatal(err)
	}
	routes, err := ParseRoutes(b)
	if err != nil {
		t.Fatal(err)
	}
	return routes
}

// TestRendered checks the renderings named by HANGAR_RENDERED (a list of files separated
// by the OS path-list separator, ':' here), as scripts/helm-check.sh passes them.
func TestRendered(t *testing.T) {
	t.Parallel()
	env := os.Getenv("HANGAR_RENDERED")
	if env == "" {
		t.Skip("HANGAR_RENDERED is not set; scripts/helm-check.sh renders the chart and sets it")
	}
	routes := loadRoutes(t)
	for _, path := range filepath.SplitList(env) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := Decode(f)
			if err != nil {
				t.Fatalf("strict decode: %v", err)
			}
			if len(r.Deployments) == 0 {
				t.Fatal("no Deployment rendered")
			}
			for _, err := range Check(r, routes) {
				t.Error(err)
			}
			for _, err := range CheckHeaders(r, routes, loadHeaders(t)) {
				t.Error(err)
			}
			t.Logf("%d Deployments, %d Services, %d HPAs, %d PDBs, %d NetworkPolicies, %d Ingresses, %d ServiceMonitors, %d PrometheusRules, %d dashboards",
				len(r.Deployments), len(r.Services), len(r.HPAs), len(r.PDBs), len(r.NetworkPolicies), len(r.Ingresses), len(r.ServiceMonitors), len(r.PrometheusRules), len(r.ConfigMaps))
		})
	}
}

// fixture is a small valid rendering: one Go component and one static component behind
// the Ingress, as the chart renders them.
const fixture = `
apiVersion: v1
kind: ServiceAccount
metadata: {name: h-catalog}
automountServiceAccountToken: false
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: h-web}
automountServiceAccountToken: false
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: h-catalog}
spec:
  selector: {matchLabels: {app.kubernetes.io/instance: h, app.kubernetes.io/component: catalog}}
  template:
    metadata: {labels: {app.kubernetes.io/instance: h, app.kubernetes.io/component: catalog}}
    spec:
      serviceAccountName: h-catalog
      automountServiceAccountToken: false
      terminationGracePeriodSeconds: 35
      securityContext: {runAsNonRoot: true, runAsUser: 65532, seccompProfile: {type: RuntimeDefault}}
      containers:
        - name: catalog
          image: registry.example.com/catalog:1.0.0
          ports:
            - {name: http, containerPort: 8080}
            - {name: grpc, containerPort: 9090}
            - {name: admin, containerPort: 9464}
          env:
            - {name: SHUTDOWN_TIMEOUT, value: 20s}
          resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {memory: 256Mi}}
          startupProbe: {httpGet: {path: /healthz, port: admin}}
          livenessProbe: {httpGet: {path: /healthz, port: admin}}
          readinessProbe: {httpGet: {path: /readyz, port: admin}}
          lifecycle: {preStop: {sleep: {seconds: 5}}}
          securityContext:
            runAsNonRoot: true
            runAsUser: 65532
            readOnlyRootFilesystem: true
            allowPrivilegeEscalation: false
            capabilities: {drop: [ALL]}
          volumeMounts: [{name: tmp, mountPath: /tmp}]
      volumes: [{name: tmp, emptyDir: {}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: h-web}
spec:
  replicas: 2
  selector: {matchLabels: {app.kubernetes.io/instance: h, app.kubernetes.io/component: web}}
  template:
    metadata: {labels: {app.kubernetes.io/instance: h, app.kubernetes.io/component: web}}
    spec:
      serviceAccountName: h-web
      automountServiceAccountToken: false
      securityContext: {runAsNonRoot: true, runAsUser: 65532, seccompProfile: {type: RuntimeDefault}}
      containers:
        - name: web
          image: registry.example.com/web@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
          ports: [{name: http, containerPort: 8080}]
          resources: {requests: {cpu: 50m, memory: 32Mi}, limits: {memory: 64Mi}}
          startupProbe: {httpGet: {path: /healthz, port: http}}
          livenessProbe: {httpGet: {path: /healthz, port: http}}
          readinessProbe: {httpGet: {path: /readyz, port: http}}
          securityContext:
            runAsNonRoot: true
            readOnlyRootFilesystem: true
            allowPrivilegeEscalation: false
            capabilities: {drop: [ALL]}
          volumeMounts: [{name: tmp, mountPath: /tmp}]
      volumes: [{name: tmp, emptyDir: {}}]
---
apiVersion: v1
kind: Service
metadata: {name: h-catalog, labels: {app.kubernetes.io/instance: h, app.kubernetes.io/component: catalog}}
spec:
  selector: {app.kubernetes.io/instance: h, app.kubernetes.io/component: catalog}
  ports:
    - {name: http, port: 8080, targetPort: http}
    - {name: grpc, port: 9090, targetPort: grpc}
    - {name: admin, port: 9464, targetPort: admin}
---
apiVersion: v1
kind: Service
metadata: {name: h-web}
spec:
  selector: {app.kubernetes.io/instance: h, app.kubernetes.io/component: web}
  ports: [{name: http, port: 8080, targetPort: http}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: h-catalog}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: h-catalog}
  minReplicas: 2
  maxReplicas: 4
  metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: h-catalog}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app.kubernetes.io/instance: h, app.kubernetes.io/component: catalog}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: h-catalog}
spec:
  podSelector: {matchLabels: {app.kubernetes.io/instance: h, app.kubernetes.io/component: catalog}}
  policyTypes: [Ingress, Egress]
  ingress:
    - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ingress-nginx}}}]
      ports: [{port: http}]
    - from: [{podSelector: {matchLabels: {app.kubernetes.io/instance: h}}}]
      ports: [{port: grpc}]
    - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}}]
      ports: [{port: admin}]
  egress:
    - ports: [{port: 53, protocol: UDP}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: h}
spec:
  rules:
    - http:
        paths:
          - {path: /a, pathType: Exact, backend: {service: {name: h-catalog, port: {name: http}}}}
          - {path: /, pathType: Prefix, backend: {service: {name: h-web, port: {name: http}}}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: h-catalog}
spec:
  selector: {matchLabels: {app.kubernetes.io/instance: h, app.kubernetes.io/component: catalog}}
  namespaceSelector: {matchNames: [default]}
  endpoints: [{port: admin, path: /metrics, scheme: http, interval: 30s, scrapeTimeout: 10s, honorLabels: true}]
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: h-catalog}
spec:
  groups:
    - name: h-catalog.alerts
      rules:
        - alert: Down
          expr: absent(up{job="h-catalog"} == 1)
          labels: {severity: critical}
          annotations: {summary: down, runbook_url: "https://example.com/docs/runbooks/service-alerts.md#down"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: h-catalog-dashboard, labels: {grafana_dashboard: "1"}}
data:
  hangar-catalog.json: |-
    {"uid": "hangar-catalog", "title": "Hangar / catalog", "panels": [{"type": "row", "title": "HTTP"},
      {"type": "timeseries", "title": "Requests", "targets": [{"expr": "sum(rate(hangar_http_requests_total{job=\"h-catalog\"}[5m]))"}]}]}
`

var fixtureRoutes = []Route{
	{Path: "/a", PathType: "Exact", Service: "catalog"},
	{Path: "/", PathType: "Prefix", Service: "web"},
	{Path: "/checkout", PathType: "Prefix", Service: "checkout"}, // not rendered: must be absent
}

// check decodes doc and returns its policy violations, or the decode error.
func check(doc string) (policy []error, decodeErr error) {
	r, err := Decode(strings.NewReader(doc))
	if err != nil {
		return nil, err
	}
	return Check(r, fixtureRoutes), nil
}

func TestFixtureIsValid(t *testing.T) {
	t.Parallel()
	policy, decodeErr := check(fixture)
	if decodeErr != nil {
		t.Fatal(decodeErr)
	}
	for _, err := range policy {
		t.Error(err)
	}
}

// TestCatchesMistakes proves the checker fails on each mistake it exists to catch.
func TestCatchesMistakes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		old, new  string
		decodeErr bool   // the strict decode must fail
		want      string // else: a policy error containing this
	}{
		{"misspelled containerPort", "containerPort: 8080", "containerPortt: 8080", true, ""},
		{"misspelled readinessProbe", "readinessProbe: {httpGet: {path: /readyz, port: admin}}", "readinessProbee: {httpGet: {path: /readyz, port: admin}}", true, ""},
		{"misspelled ServiceMonitor field", "honorLabels: true", "honorLabelz: true", true, ""},
		{"duplicate key", "terminationGracePeriodSeconds: 35", "terminationGracePeriodSeconds: 35\n      terminationGracePeriodSeconds: 36", true, ""},
		{"unpinned image", "catalog:1.0.0", "catalog:latest", false, "not pinned"},
		{"image without tag", "catalog:1.0.0", "catalog", false, "not pinned"},
		{"no memory limit", "limits: {memory: 256Mi}", "limits: {}", false, "limits.memory"},
		{"no readiness probe", "readinessProbe: {httpGet: {path: /readyz, port: admin}}", "", false, "readinessProbe is not set"},
		{"probe on undeclared port", "livenessProbe: {httpGet: {path: /healthz, port: admin}}", "livenessProbe: {httpGet: {path: /healthz, port: metrics}}", false, "does not declare"},
		{"writable root filesystem", "readOnlyRootFilesystem: true\n            allowPrivilegeEscalation: false\n            capabilities: {drop: [ALL]}\n          volumeMounts: [{name: tmp, mountPath: /tmp}]\n      volumes: [{name: tmp, emptyDir: {}}]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: h-web}", "readOnlyRootFilesystem: false\n            allowPrivilegeEscalation: false\n            capabilities: {drop: [ALL]}\n          volumeMounts: [{name: tmp, mountPath: /tmp}]\n      volumes: [{name: tmp, emptyDir: {}}]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: h-web}", false, "readOnlyRootFilesystem"},
		{"grace shorter than shutdown", "terminationGracePeriodSeconds: 35", "terminationGracePeriodSeconds: 20", false, "terminationGracePeriodSeconds"},
		{"service selector matches nothing", "selector: {app.kubernetes.io/instance: h, app.kubernetes.io/component: web}", "selector: {app.kubernetes.io/instance: h, app.kubernetes.io/component: webb}", false, "selects the pods of 0 Deployments"},
		{"HPA target missing", "name: h-catalog}\n  minReplicas", "name: h-catalogue}\n  minReplicas", false, "is not rendered"},
		{"PDB selector mismatch", "maxUnavailable: 1\n  selector: {matchLabels: {app.kubernetes.io/instance: h, app.kubernetes.io/component: catalog}}", "maxUnavailable: 1\n  selector: {matchLabels: {app.kubernetes.io/instance: x}}", false, "PodDisruptionBudget"},
		{"ingress backend port missing", "backend: {service: {name: h-web, port: {name: http}}}", "backend: {service: {name: h-web, port: {name: grpc}}}", false, "has no port"},
		{"ingress backend service missing", "backend: {service: {name: h-web,", "backend: {service: {name: h-webb,", false, "not rendered"},
		{"route missing from ingress", "          - {path: /a, pathType: Exact, backend: {service: {name: h-catalog, port: {name: http}}}}\n", "", false, "is missing"},
		{"route with wrong pathType", "{path: /a, pathType: Exact", "{path: /a, pathType: Prefix", false, "is not a route"},
		{"networkpolicy port unknown", "ports: [{port: grpc}]", "ports: [{port: grcp}]", false, "is not a port"},
		{"servicemonitor port unknown", "endpoints: [{port: admin,", "endpoints: [{port: metrics,", false, "has no port"},
		{"alert without runbook", `runbook_url: "https://example.com/docs/runbooks/service-alerts.md#down"`, `runbook_url: ""`, false, "no runbook_url"},
		{"dashboard placeholder left", `"title": "Hangar / catalog"`, `"title": "Hangar / __COMPONENT__"`, false, "unfilled placeholder"},
		{"dashboard not JSON", `"uid": "hangar-catalog",`, `"uid": "hangar-catalog"`, false, "not JSON"},
		{"dashboard panel without query", `"targets": [{"expr"`, `"targetz": [{"expr"`, false, "has no query"},
		{"replicas wait for a migrate Job that is not rendered", "- {name: SHUTDOWN_TIMEOUT, value: 20s}\n", "- {name: SHUTDOWN_TIMEOUT, value: 20s}\n            - {name: DB_MIGRATE, value: \"false\"}\n", false, "no h-catalog-migrate Job"},
		{"service account token mounted", "serviceAccountName: h-web\n      automountServiceAccountToken: false", "serviceAccountName: h-web\n      automountServiceAccountToken: true", false, "automountServiceAccountToken"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(fixture, tc.old) {
				t.Fatalf("fixture does not contain %q", tc.old)
			}
			doc := strings.Replace(fixture, tc.old, tc.new, 1)
			policy, decodeErr := check(doc)
			if tc.decodeErr {
				if decodeErr == nil {
					t.Fatalf("strict decode accepted the mistake (policy errors: %v)", policy)
				}
				return
			}
			if decodeErr != nil {
				t.Fatalf("decode: %v", decodeErr)
			}
			for _, err := range policy {
				if strings.Contains(err.Error(), tc.want) {
					return
				}
			}
			t.Fatalf("no policy error containing %q; got %v", tc.want, policy)
		})
	}
}

func TestRoutesFileParses(t *testing.T) {
	t.Parallel()
	routes := loadRoutes(t)
	seen := map[string]bool{}
	for _, r := range routes {
		if !strings.HasPrefix(r.Path, "/") || r.Service == "" || (r.PathType != "Exact" && r.PathType != "Prefix") {
			t.Errorf("bad route %+v", r)
		}
		key := r.PathType + " " + r.Path
		if seen[key] {
			t.Errorf("route %s listed twice", key)
		}
		seen[key] = true
	}
	if _, err := ParseRoutes(bytes.ReplaceAll(mustRead(t, routesPath()), []byte("pathType:"), []byte("pathTyp:"))); err == nil {
		t.Error("ParseRoutes accepted a misspelled field")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fixtureIngress is the single Ingress of fixture; headersFixture splits it as the chart
// does: the APIs' Ingress and the pages' with the security headers, over TLS.
const fixtureIngress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: h}
spec:
  rules:
    - http:
        paths:
          - {path: /a, pathType: Exact, backend: {service: {name: h-catalog, port: {name: http}}}}
          - {path: /, pathType: Prefix, backend: {service: {name: h-web, port: {name: http}}}}
`

const headersIngresses = `apiVersion: v1
kind: ConfigMap
metadata: {name: h-api-headers, namespace: s, labels: {app.kubernetes.io/component: ingress-headers}}
data:
  Strict-Transport-Security: "max-age=31536000; includeSubDomains"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: h-page-headers, namespace: s, labels: {app.kubernetes.io/component: ingress-headers}}
data:
  Content-Security-Policy: "default-src 'self'; script-src 'self' https://cdn.example.com; frame-ancestors 'none'"
  X-Content-Type-Options: "nosniff"
  X-Frame-Options: "DENY"
  Strict-Transport-Security: "max-age=31536000; includeSubDomains"
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: h, namespace: s, annotations: {nginx.ingress.kubernetes.io/custom-headers: s/h-api-headers, nginx.ingress.kubernetes.io/configuration-snippet: 'more_clear_input_headers "Grpc-Metadata-*" "X-Hangar-*";'}}
spec:
  tls: [{secretName: tls}]
  rules:
    - http:
        paths:
          - {path: /a, pathType: Exact, backend: {service: {name: h-catalog, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: h-pages, namespace: s, annotations: {nginx.ingress.kubernetes.io/custom-headers: s/h-page-headers, nginx.ingress.kubernetes.io/configuration-snippet: 'more_clear_input_headers "Grpc-Metadata-*" "X-Hangar-*";'}}
spec:
  tls: [{secretName: tls}]
  rules:
    - http:
        paths:
          - {path: /, pathType: Prefix, backend: {service: {name: h-web, port: {name: http}}}}
`

var fixtureHeaders = Headers{
	ContentSecurityPolicy:   []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'"},
	RemoteOriginDirectives:  []string{"script-src"},
	Headers:                 map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"},
	StrictTransportSecurity: "max-age=31536000; includeSubDomains",
}

func headersFixture(t *testing.T) string {
	t.Helper()
	if !strings.Contains(fixture, fixtureIngress) {
		t.Fatal("fixture lost its Ingress")
	}
	return strings.Replace(fixture, fixtureIngress, headersIngresses, 1)
}

// The page headers the Ingress sets are checked against headers.yaml: each mistake below
// (headers missing, weakened, sent to the APIs, HSTS missing over TLS) is caught, and the
// split into two Ingresses is itself valid.
func TestCheckHeaders(t *testing.T) {
	t.Parallel()
	valid := headersFixture(t)
	for _, tc := range []struct{ name, old, new, want string }{
		{"valid", "", "", ""},
		{"no headers annotation on the pages", "annotations: {nginx.ingress.kubernetes.io/custom-headers: s/h-page-headers, ", "annotations: {", "sets no security headers"},
		{"internal headers not cleared", `"Grpc-Metadata-*" "X-Hangar-*";`, `"X-Hangar-*";`, "does not clear the internal request headers"},
		{"frame-ancestors weakened", "frame-ancestors 'none'\"", "frame-ancestors *\"", "frame-ancestors *"},
		{"remote origin on a directive not meant for it", "default-src 'self';", "default-src 'self' https://evil.example;", "default-src"},
		{"nosniff missing", "  X-Content-Type-Options: \"nosniff\"\n", "", "X-Content-Type-Options"},
		{"CSP on the APIs", "data:\n  Strict-Transport-Security", "data:\n  Content-Security-Policy: \"frame-ancestors 'none'\"\n  Strict-Transport-Security", "APIs get the pages'"},
		{"no HSTS where TLS ends", "metadata: {name: h-api-headers, namespace: s, labels: {app.kubernetes.io/component: ingress-headers}}\ndata:\n  Strict-Transport-Security: \"max-age=31536000; includeSubDomains\"", "metadata: {name: h-api-headers, namespace: s, labels: {app.kubernetes.io/component: ingress-headers}}\ndata:\n  X-Other: \"1\"", "Strict-Transport-Security"},
		{"ConfigMap not rendered", "custom-headers: s/h-page-headers", "custom-headers: s/h-page-headerz", "not rendered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := valid
			if tc.old != "" {
				if !strings.Contains(doc, tc.old) {
					t.Fatalf("fixture does not contain %q", tc.old)
				}
				doc = strings.Replace(doc, tc.old, tc.new, 1)
			}
			r, err := Decode(strings.NewReader(doc))
			if err != nil {
				t.Fatal(err)
			}
			policy := append(Check(r, fixtureRoutes), CheckHeaders(r, fixtureRoutes, fixtureHeaders)...)
			if tc.want == "" {
				for _, err := range policy {
					t.Error(err)
				}
				return
			}
			for _, err := range policy {
				if strings.Contains(err.Error(), tc.want) {
					return
				}
			}
			t.Fatalf("no policy error containing %q; got %v", tc.want, policy)
		})
	}
	// The unsplit fixture serves pages and APIs through one Ingress without headers.
	r, _ := Decode(strings.NewReader(fixture))
	errs := fmt.Sprint(CheckHeaders(r, fixtureRoutes, fixtureHeaders))
	if !strings.Contains(errs, "pages (h-web) and APIs together") || !strings.Contains(errs, "sets no security headers") {
		t.Errorf("one Ingress for pages and APIs without headers: %s", errs)
	}
}

func TestHeadersFileParses(t *testing.T) {
	t.Parallel()
	h := loadHeaders(t)
	if !slices.Contains(h.ContentSecurityPolicy, "frame-ancestors 'none'") || h.Headers["X-Content-Type-Options"] != "nosniff" {
		t.Errorf("headers.yaml = %+v", h)
	}
	if _, err := ParseHeaders(bytes.ReplaceAll(mustRead(t, headersPath()), []byte("headers:"), []byte("headerz:"))); err == nil {
		t.Error("ParseHeaders accepted a misspelled key")
	}
}
