package ports

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hangar/hangar/services/catalog/data"
	"github.com/hangar/hangar/services/catalog/internal/domain"
)

func prepared(tb testing.TB) *AvailablePlans {
	tb.Helper()
	cat, err := domain.Parse(data.Catalog)
	if err != nil {
		tb.Fatal(err)
	}
	h := &AvailablePlans{}
	h.Prepare(cat)
	return h
}

func TestAcceptsGzip(t *testing.T) {
	t.Parallel()
	for ae, want := range map[string]bool{
		"":                    false,
		"gzip":                true,
		"br, gzip, deflate":   true,
		"gzip;q=0":            false,
		"gzip;q=0.5":          true,
		"identity":            false,
		"GZIP":                true,
		"deflate, gzip; q=0 ": false,
		"gzip;q=0.0":          false,
		"gzip;q=0.001":        true,
		"gzip;q=abc":          false,
	} {
		if got := acceptsGzip(ae); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", ae, got, want)
		}
	}
}

func TestHeadAndWeakValidators(t *testing.T) {
	t.Parallel()
	h := prepared(t)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodHead, AvailablePlansPath, nil))
	if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") == "" {
		t.Errorf("HEAD = %d, %d bytes, length %q", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Length"))
	}
	tag := rec.Header().Get("ETag")
	req := httptest.NewRequest(http.MethodGet, AvailablePlansPath, nil)
	req.Header.Set("If-None-Match", `"other", W/`+tag)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified {
		t.Errorf("If-None-Match list with weak tag = %d, want 304", rec.Code)
	}
}

// BenchmarkAvailablePlans is the service's handler alone; compare with BenchmarkBareHandler
// (the same bytes from a bare handler). The end-to-end comparison over loopback, which the
// performance target is stated in, is scripts/perf-catalog.sh (docs/performance.md).
func BenchmarkAvailablePlans(b *testing.B) {
	h := prepared(b)
	req := httptest.NewRequest(http.MethodGet, AvailablePlansPath, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(discard{h: http.Header{}}, req)
	}
}

func BenchmarkBareHandler(b *testing.B) {
	h := prepared(b)
	body := h.cur.Load().byCur[""].gz
	bare := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(body)
	})
	req := httptest.NewRequest(http.MethodGet, AvailablePlansPath, nil)
	b.ReportAllocs()
	for b.Loop() {
		bare.ServeHTTP(discard{h: http.Header{}}, req)
	}
}

type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(p []byte) (int, error) { return len(p), nil }
func (d discard) WriteHeader(int)             {}
