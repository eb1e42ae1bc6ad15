package check

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"
)

// HeadersComponent labels the ConfigMaps of response headers the Ingresses set.
const HeadersComponent = "ingress-headers"

// CustomHeadersAnnotation is ingress-nginx's annotation naming the ConfigMap
// ("<namespace>/<name>") of the headers it sets on every answer of the Ingress.
const CustomHeadersAnnotation = "nginx.ingress.kubernetes.io/custom-headers"

// SnippetAnnotation is ingress-nginx's location configuration snippet; every Ingress of
// the chart clears the internal request headers in it (StripInternalHeaders), so that
// Grpc-Metadata-* (gRPC metadata behind grpc-gateway) never comes from outside.
const (
	SnippetAnnotation    = "nginx.ingress.kubernetes.io/configuration-snippet"
	StripInternalHeaders = `more_clear_input_headers "Grpc-Metadata-*" "X-Hangar-*";`
)

// Headers is headers.yaml of the chart: the pages' security headers.
type Headers struct {
	ContentSecurityPolicy  []string `json:"contentSecurityPolicy"`
	RemoteOriginDirectives []string `json:"remoteOriginDirectives"`
	FieldsOriginDirectives []string `json:"fieldsOriginDirectives"`
	// HumanVerificationSources follow their directives (last) while checkout's human
	// verification is on: reCAPTCHA's origins, those and no others.
	HumanVerificationSources map[string][]string `json:"humanVerificationSources"`
	Headers                  map[string]string   `json:"headers"`
	StrictTransportSecurity  string              `json:"strictTransportSecurity"`
}

// ParseHeaders reads headers.yaml strictly.
func ParseHeaders(b []byte) (Headers, error) {
	var h Headers
	if err := yaml.UnmarshalStrict(b, &h); err != nil {
		return h, fmt.Errorf("headers.yaml: %w", err)
	}
	if len(h.ContentSecurityPolicy) == 0 || len(h.Headers) == 0 || h.StrictTransportSecurity == "" {
		return h, fmt.Errorf("headers.yaml: contentSecurityPolicy, headers and strictTransportSecurity are required")
	}
	return h, nil
}

var headerNameRE = regexp.MustCompile(`^[A-Za-z0-9-]+$`)

// fieldsOriginRE is one origin: the card-fields origin a page may frame.
var fieldsOriginRE = regexp.MustCompile(`^https?://[a-z0-9.-]+(:[0-9]+)?$`)

func (c *checker) headersConfigMap(cm *corev1.ConfigMap) {
	if len(cm.Data) == 0 {
		c.errorf("ConfigMap %s: no headers", cm.Name)
	}
	for k, v := range cm.Data {
		if !headerNameRE.MatchString(k) || strings.TrimSpace(v) == "" || strings.ContainsAny(v, "\r\n") {
			c.errorf("ConfigMap %s: %q: %q is not a header", cm.Name, k, v)
		}
	}
}

// CheckHeaders checks the response headers the Ingresses set, against headers.yaml: the
// Ingress of the web component's routes (the pages) sets every header of the file and its
// CSP (directive by directive; remote origins may follow the directives the file names),
// and no Ingress mixes pages with APIs (the APIs and the hosted card fields page must not
// get the pages' CSP, which forbids framing). With TLS every Ingress sets the file's HSTS;
// without, none does.
func CheckHeaders(r *Rendering, routes []Route, h Headers) []error {
	c := &checker{r: r}
	svcs := c.componentServices()
	web := ""
	if s, ok := svcs["web"]; ok {
		web = s.Name
	}
	cms := map[string]*corev1.ConfigMap{}
	for _, cm := range r.ConfigMaps {
		cms[cm.Namespace+"/"+cm.Name] = cm
	}
	for _, ing := range r.Ingresses {
		where := "Ingress " + ing.Name
		pages, apis := 0, 0
		for _, rule := range ing.Spec.Rules {
			if rule.HTTP == nil {
				continue
			}
			for _, p := range rule.HTTP.Paths {
				if p.Backend.Service != nil && p.Backend.Service.Name == web {
					pages++
				} else {
					apis++
				}
			}
		}
		if pages > 0 && apis > 0 {
			c.errorf("%s: routes pages (%s) and APIs together: they need different headers", where, web)
		}
		if !strings.Contains(ing.Annotations[SnippetAnnotation], StripInternalHeaders) {
			c.errorf("%s: does not clear the internal request headers (annotation %s: %s)", where, SnippetAnnotation, StripInternalHeaders)
		}
		tls := len(ing.Spec.TLS) > 0
		set := c.ingressHeaders(ing, cms)
		if pages > 0 {
			if set == nil {
				c.errorf("%s: serves the pages but sets no security headers (annotation %s)", where, CustomHeadersAnnotation)
				continue
			}
			for k, v := range h.Headers {
				if got := set[k]; got != v {
					c.errorf("%s: header %s = %q, want %q (headers.yaml)", where, k, got, v)
				}
			}
			c.csp(where, set["Content-Security-Policy"], h)
		} else if _, ok := set["Content-Security-Policy"]; ok {
			c.errorf("%s: APIs get the pages' Content-Security-Policy", where)
		}
		switch hsts, ok := set["Strict-Transport-Security"]; {
		case tls && hsts != h.StrictTransportSecurity:
			c.errorf("%s: TLS ends here, but Strict-Transport-Security = %q, want %q", where, hsts, h.StrictTransportSecurity)
		case !tls && ok:
			c.errorf("%s: Strict-Transport-Security without TLS", where)
		}
	}
	return c.errs
}

// ingressHeaders answers the headers ing's custom-headers ConfigMap sets (nil: none).
func (c *checker) ingressHeaders(ing *networkingv1.Ingress, cms map[string]*corev1.ConfigMap) map[string]string {
	ref, ok := ing.Annotations[CustomHeadersAnnotation]
	if !ok {
		return nil
	}
	ns, name, found := strings.Cut(ref, "/")
	if !found || ns == "" || name == "" {
		c.errorf("Ingress %s: %s %q is not <namespace>/<name>", ing.Name, CustomHeadersAnnotation, ref)
		return nil
	}
	cm, ok := cms[ref]
	if !ok && ing.Namespace == "" {
		cm, ok = cms["/"+name] // renderings without namespaces
	}
	if !ok {
		c.errorf("Ingress %s: %s names ConfigMap %s, which is not rendered", ing.Name, CustomHeadersAnnotation, ref)
		return nil
	}
	if cm.Labels[ComponentLabel] != HeadersComponent {
		c.errorf("Ingress %s: ConfigMap %s is not labelled %s=%s", ing.Name, ref, ComponentLabel, HeadersComponent)
	}
	return cm.Data
}

func (c *checker) csp(where, got string, h Headers) {
	directives := strings.Split(got, "; ")
	if len(directives) != len(h.ContentSecurityPolicy) {
		c.errorf("%s: Content-Security-Policy %q has %d directives, headers.yaml %d", where, got, len(directives), len(h.ContentSecurityPolicy))
		return
	}
	for i, want := range h.ContentSecurityPolicy {
		d := directives[i]
		name, _, _ := strings.Cut(want, " ")
		if src := h.HumanVerificationSources[name]; len(src) > 0 {
			d = strings.TrimSuffix(d, " "+strings.Join(src, " "))
		}
		if d == want || (slices.Contains(h.RemoteOriginDirectives, name) && strings.HasPrefix(d, want+" ")) {
			continue
		}
		// The card-fields origin (payments.fieldsHost) and nothing else may follow its
		// directives (frame-src): one http(s) origin.
		if slices.Contains(h.FieldsOriginDirectives, name) && fieldsOriginRE.MatchString(strings.TrimPrefix(d, want+" ")) && strings.HasPrefix(d, want+" ") {
			continue
		}
		c.errorf("%s: Content-Security-Policy directive %q, want %q (headers.yaml)", where, d, want)
	}
}
