package edge

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// Headers are the security headers of the store's pages, as deploy/helm/hangar/headers.yaml
// lists them: the file the Helm chart renders the Ingress's page headers from, so the dev
// edge and the cluster send the same.
type Headers struct {
	ContentSecurityPolicy  []string `json:"contentSecurityPolicy"`
	RemoteOriginDirectives []string `json:"remoteOriginDirectives"`
	FieldsOriginDirectives []string `json:"fieldsOriginDirectives"`
	// HumanVerificationSources are the chart's only (reCAPTCHA's origins while checkout's
	// human verification is on); the dev edge's verifier is same-origin.
	HumanVerificationSources map[string][]string `json:"humanVerificationSources"`
	Headers                  map[string]string   `json:"headers"`
	StrictTransportSecurity  string              `json:"strictTransportSecurity"`
}

// LoadHeaders reads and checks the headers file.
func LoadHeaders(file string) (*Headers, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read page headers: %w", err)
	}
	return ParseHeaders(raw)
}

// ParseHeaders parses the headers file; unknown keys, a CSP without frame-ancestors and
// a headers map naming the CSP or HSTS (they have their own keys) are refused.
func ParseHeaders(raw []byte) (*Headers, error) {
	var h Headers
	if err := yaml.UnmarshalStrict(raw, &h); err != nil {
		return nil, fmt.Errorf("parse page headers: %w", err)
	}
	if !strings.Contains(strings.Join(h.ContentSecurityPolicy, ";"), "frame-ancestors") {
		return nil, fmt.Errorf("parse page headers: the content security policy has no frame-ancestors")
	}
	for k := range h.Headers {
		if c := http.CanonicalHeaderKey(k); c == "Content-Security-Policy" || c == "Strict-Transport-Security" {
			return nil, fmt.Errorf("parse page headers: %s has its own key", k)
		}
	}
	return &h, nil
}

// CSP answers the Content-Security-Policy with remoteOrigins added to the directives that
// name them, and fieldsOrigin (payments' card-fields origin, the one frame the store's
// pages embed; empty: none) to fieldsOriginDirectives.
func (h *Headers) CSP(remoteOrigins []string, fieldsOrigin string) string {
	out := make([]string, 0, len(h.ContentSecurityPolicy))
	for _, d := range h.ContentSecurityPolicy {
		name, _, _ := strings.Cut(d, " ")
		if slices.Contains(h.RemoteOriginDirectives, name) && len(remoteOrigins) > 0 {
			d += " " + strings.Join(remoteOrigins, " ")
		}
		if slices.Contains(h.FieldsOriginDirectives, name) && fieldsOrigin != "" {
			d += " " + fieldsOrigin
		}
		out = append(out, d)
	}
	return strings.Join(out, "; ")
}

// Page answers the headers of a page served over plain http (no HSTS).
func (h *Headers) Page(remoteOrigins []string, fieldsOrigin string) http.Header {
	out := http.Header{}
	if h == nil {
		return out
	}
	out.Set("Content-Security-Policy", h.CSP(remoteOrigins, fieldsOrigin))
	for k, v := range h.Headers {
		out.Set(k, v)
	}
	return out
}
