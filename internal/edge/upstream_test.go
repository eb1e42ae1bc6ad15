package edge

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A backend that accepts the request and never answers (a paused process) is answered 503
// with Retry-After once the upstream timeout passes, instead of holding the request (the
// dev edge had no upstream timeout; issue 30).
func TestEdgeTimesOutAStuckBackend(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer stuck.Close()
	defer close(release)
	tab, _ := ParseTable([]byte(table))
	u, _ := url.Parse(stuck.URL)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := New(tab, committedHeaders(t), []Backend{{Name: "catalog", URL: u, Ready: func() bool { return true }}}, t.TempDir(), log).
		WithUpstreamTimeout(50 * time.Millisecond)
	srv := httptest.NewServer(e)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/account/api/subscription/available/add-ons")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(b), `"unavailable"`) {
		t.Errorf("stuck backend: %d Retry-After=%q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	if UpstreamResponseTimeout <= 0 || UpstreamConnectTimeout <= 0 {
		t.Error("the edge has no upstream timeout by default")
	}
}
