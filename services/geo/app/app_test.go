package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	geov1 "github.com/hangar/hangar/gen/go/hangar/geo/v1"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/servicetest"
	"github.com/hangar/hangar/services/geo/app"
)

func start(t *testing.T, trusted string) (base string, client geov1.GeoServiceClient) {
	t.Helper()
	vars := map[string]string{
		"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
		"SHUTDOWN_TIMEOUT": "2s", "LOG_LEVEL": "warn", "TRUSTED_PROXIES": trusted,
	}
	var cfg app.Config
	if err := config.LoadFrom(&cfg, func(k string) (string, bool) { v, ok := vars[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, io.Discard)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	servicetest.Run(t, ctx, cancel, a)
	grpcAddr, httpAddr, _ := a.Addrs()
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return "http://" + httpAddr, geov1.NewGeoServiceClient(conn)
}

type answer struct {
	IP       string `json:"ip"`
	Location struct {
		IsEU        *bool  `json:"is_eu"`
		CountryCode string `json:"country_code"`
	} `json:"location"`
	Currency struct {
		Code string `json:"code"`
	} `json:"currency"`
}

func lookup(t *testing.T, url string, xff ...string) answer {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for _, v := range xff {
		req.Header.Add("X-Forwarded-For", v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Cache-Control") != "private, no-store" {
		t.Fatalf("GET %s: %d, Cache-Control %q", url, res.StatusCode, res.Header.Get("Cache-Control"))
	}
	var a answer
	if err := json.NewDecoder(res.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	if a.Location.IsEU == nil {
		t.Fatalf("GET %s: is_eu missing (false must be written out)", url)
	}
	return a
}

// The browser's route, with the embedded data set, behind a loopback proxy as in make dev.
func TestLookupThroughTrustedProxy(t *testing.T) {
	t.Parallel()
	base, _ := start(t, "127.0.0.0/8,::1")
	for _, tc := range []struct {
		name, xff, ip, country, currency string
		eu                               bool
	}{
		{"Germany", "193.99.144.80", "193.99.144.80", "DE", "EUR", true},
		{"France", "212.27.48.10", "212.27.48.10", "FR", "EUR", true},
		{"Sweden (EU, own currency)", "80.239.224.1", "80.239.224.1", "SE", "USD", true},
		{"United Kingdom", "81.2.69.142", "81.2.69.142", "GB", "GBP", false},
		{"Canada", "24.48.0.1", "24.48.0.1", "CA", "CAD", false},
		{"Australia", "1.128.0.1", "1.128.0.1", "AU", "AUD", false},
		{"United States", "8.8.8.8", "8.8.8.8", "US", "USD", false},
		{"IPv6 Germany", "2003:e0::1", "2003:e0::1", "DE", "EUR", true},
		{"IPv6 United States", "2001:4860:4860::8888", "2001:4860:4860::8888", "US", "USD", false},
		{"private address", "10.1.2.3", "10.1.2.3", "", "USD", false},
		{"garbage header: the peer", "garbage", "127.0.0.1", "", "USD", false},
		{"forged entries left of the proxy's report are ignored", "193.99.144.80, 8.8.8.8, 127.0.0.1", "8.8.8.8", "US", "USD", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := lookup(t, base+"/freegeoip/api/json/", tc.xff)
			if a.IP != tc.ip || a.Location.CountryCode != tc.country || *a.Location.IsEU != tc.eu || a.Currency.Code != tc.currency {
				t.Errorf("X-Forwarded-For %s: %+v eu=%v, want %s %s eu=%v %s", tc.xff, a, *a.Location.IsEU, tc.ip, tc.country, tc.eu, tc.currency)
			}
		})
	}
	if a := lookup(t, base+"/freegeoip/api/json", "193.99.144.80"); a.Currency.Code != "EUR" {
		t.Errorf("without the trailing slash: %+v", a)
	}
}

// In the cluster the Ingress is one hop: only its report counts.
func TestLookupWithHopCount(t *testing.T) {
	t.Parallel()
	base, _ := start(t, "1")
	if a := lookup(t, base+"/freegeoip/api/json/", "8.8.8.8, 193.99.144.80"); a.Location.CountryCode != "DE" {
		t.Errorf("hop count 1: %+v, want the Ingress's report (DE)", a)
	}
	if a := lookup(t, base+"/freegeoip/api/json/"); a.IP != "127.0.0.1" {
		t.Errorf("no header: %+v, want the peer", a)
	}
}

// A peer that is not a trusted proxy cannot choose its location.
func TestUntrustedPeerIsTheClient(t *testing.T) {
	t.Parallel()
	base, _ := start(t, "10.0.0.0/8")
	if a := lookup(t, base+"/freegeoip/api/json/", "193.99.144.80"); a.IP != "127.0.0.1" || *a.Location.IsEU {
		t.Errorf("untrusted peer: %+v, want 127.0.0.1, not EU", a)
	}
}

func TestLocateOverGRPC(t *testing.T) {
	t.Parallel()
	_, client := start(t, "1")
	ctx := context.Background()
	res, err := client.Locate(ctx, &geov1.LocateRequest{Ip: "81.2.69.142"})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetLocation().GetCountryCode() != "GB" || res.GetLocation().GetIsEu() || res.GetCurrency().GetCode() != "GBP" {
		t.Errorf("Locate(GB) = %v", res)
	}
	res, err = client.Locate(ctx, &geov1.LocateRequest{})
	if err != nil || res.GetIp() != "127.0.0.1" || res.GetCurrency().GetCode() != "USD" {
		t.Errorf("Locate(caller) = %v, %v; want the loopback peer in USD", res, err)
	}
	_, err = client.Locate(ctx, &geov1.LocateRequest{Ip: "999.1.1.1"})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("Locate(garbage) error = %v, want InvalidArgument", err)
	}
}

// A service that received a browser's request through the proxies (checkout's default
// currency) hands geo the chain it saw: geo believes only its own trusted proxies.
func TestLocateClientChainOverGRPC(t *testing.T) {
	t.Parallel()
	_, loopback := start(t, "127.0.0.0/8,::1")
	_, oneHop := start(t, "1")
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		client  geov1.GeoServiceClient
		chain   []string
		country string
		cur     string
	}{
		{"make dev: the visitor's address behind loopback hops", loopback, []string{"193.99.144.80, 127.0.0.1", "127.0.0.1"}, "DE", "EUR"},
		{"one comma list with the peer last", loopback, []string{"81.2.69.142, 127.0.0.1"}, "GB", "GBP"},
		{"an untrusted peer is the client", loopback, []string{"193.99.144.80", "8.8.8.8"}, "US", "USD"},
		{"garbage before a trusted peer: the peer", loopback, []string{"garbage", "127.0.0.1"}, "", "USD"},
		{"a garbage peer: nothing is located", loopback, []string{"193.99.144.80", "garbage"}, "", "USD"},
		{"cluster: the Ingress's report", oneHop, []string{"8.8.8.8, 24.48.0.1", "10.0.0.7"}, "CA", "CAD"},
	} {
		res, err := tc.client.Locate(ctx, &geov1.LocateRequest{ClientChain: tc.chain})
		if err != nil || res.GetLocation().GetCountryCode() != tc.country || res.GetCurrency().GetCode() != tc.cur {
			t.Errorf("%s: Locate(%q) = %v, %v; want %s %s", tc.name, tc.chain, res, err, tc.country, tc.cur)
		}
	}
	// ip wins over the chain.
	if res, err := oneHop.Locate(ctx, &geov1.LocateRequest{Ip: "1.128.0.1", ClientChain: []string{"193.99.144.80", "10.0.0.7"}}); err != nil || res.GetCurrency().GetCode() != "AUD" {
		t.Errorf("ip and chain: %v, %v", res, err)
	}
}

func BenchmarkCountryIPv4(b *testing.B) {
	a := netip.MustParseAddr("193.99.144.80")
	for b.Loop() {
		app.Country(a)
	}
}

func BenchmarkCountryIPv6(b *testing.B) {
	a := netip.MustParseAddr("2003:e0::1")
	app.Country(a) // the IPv6 table is unpacked on first use
	for b.Loop() {
		app.Country(a)
	}
}
