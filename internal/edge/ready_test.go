package edge

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// The edge follows readiness as the Ingress does (its probes on /readyz take a pod out of
// the Service until it is ready): while a backend is not ready, its routes answer 503 with
// Retry-After from the edge and nothing reaches the backend; /-/ready says 503 too. Before,
// the edge proxied to a starting service (a child process not yet listening answered 502).
func TestEdgeFollowsBackendReadiness(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	defer api.Close()
	tab, _ := ParseTable([]byte(table))
	u, _ := url.Parse(api.URL)
	var ready atomic.Bool
	srv := httptest.NewServer(New(tab, committedHeaders(t), []Backend{{Name: "catalog", URL: u, Ready: ready.Load}}, t.TempDir(), nil))
	defer srv.Close()

	var body string
	get := func(path string) *http.Response {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		resp.Body.Close()
		return resp
	}
	resp := get("/account/api/subscription/available/add-ons")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || calls.Load() != 0 {
		t.Fatalf("not ready: status %d, Retry-After %q, backend calls %d; want 503, set, 0", resp.StatusCode, resp.Header.Get("Retry-After"), calls.Load())
	}
	// Issue 39: the edge cannot tell a starting service from one whose database is lost, so
	// it says neither (it said "The service is starting" through a database outage).
	if strings.Contains(body, "starting") {
		t.Errorf("not ready: %s; the edge does not know the service is starting", body)
	}
	// Every 503 says when to ask again, /-/ready's too.
	if r := get("/-/ready"); r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("/-/ready = %d Retry-After %q while a backend is not ready; want 503 with Retry-After", r.StatusCode, r.Header.Get("Retry-After"))
	}
	ready.Store(true)
	if r := get("/account/api/subscription/available/add-ons"); r.StatusCode != http.StatusOK || calls.Load() != 1 {
		t.Errorf("ready: status %d, backend calls %d; want 200, 1", r.StatusCode, calls.Load())
	}
	if r := get("/-/ready"); r.StatusCode != http.StatusOK {
		t.Errorf("/-/ready = %d once every backend is ready", r.StatusCode)
	}
}
