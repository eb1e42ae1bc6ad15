package ports

import (
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/phuslu/iploc"

	"github.com/hangar/hangar/internal/platform/clientaddr"
	"github.com/hangar/hangar/services/geo/internal/app"
)

// BenchmarkLookup is the browser's route end to end inside the service: proxy chain,
// data set, JSON.
func BenchmarkLookup(b *testing.B) {
	proxies, _ := clientaddr.ParseProxies([]string{"10.0.0.0/8"})
	h := Lookup{Loc: app.NewLocator(func(a netip.Addr) string { return iploc.IPCountry(a) }, proxies)}
	req := httptest.NewRequest("GET", LookupPath, nil)
	req.RemoteAddr = "10.1.0.5:40000"
	req.Header.Set("X-Forwarded-For", "198.51.100.1, 193.99.144.80")
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
