package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/edge"
)

func TestHandlerServesProbesAndPages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"index.html":     "<!doctype html><title>shell</title>",
		"index.buy.html": "<!doctype html><title>buy</title>",
		"assets/a.js":    "console.log(1)",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pages, err := edge.LoadPages("../../web/apps/shell/src/routes.ts")
	if err != nil {
		t.Fatal(err)
	}
	h := Handler(dir, pages)
	for _, tc := range []struct {
		path     string
		code     int
		contains string
	}{
		{"/healthz", 200, "ok"},
		{"/readyz", 200, "ok"},
		{"/buy", 200, "<title>buy</title>"},
		{"/assets/a.js", 200, "console.log"},
		{"/assets/missing.js", 404, ""},
		{"/no-such-page", 404, "<title>shell</title>"},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.contains) {
			t.Errorf("GET %s: %d %q, want %d containing %q", tc.path, rec.Code, rec.Body.String(), tc.code, tc.contains)
		}
	}
}
