package app_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/servicetest"
	"github.com/hangar/hangar/services/catalog/app"
	"github.com/hangar/hangar/services/catalog/data"
)

// syncBuffer collects a service's log output for assertions.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type running struct {
	cfg               app.Config
	http, grpc, admin string
	logs              *syncBuffer
	stop              func() error
}

func start(t *testing.T, dbURL string, env map[string]string) *running {
	t.Helper()
	vars := map[string]string{
		"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
		"DATABASE_URL": dbURL, "CATALOG_REFRESH_INTERVAL": "100ms", "SHUTDOWN_TIMEOUT": "5s",
	}
	for k, v := range env {
		vars[k] = v
	}
	var cfg app.Config
	if err := config.LoadFrom(&cfg, func(k string) (string, bool) { v, ok := vars[k]; return v, ok }); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	a, err := app.New(ctx, cfg, logs)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	r := &running{cfg: cfg, logs: logs}
	// Not servicetest.Run: some tests start the service without a database on purpose.
	r.stop = servicetest.Start(t, ctx, cancel, a)
	r.grpc, r.http, r.admin = a.Addrs()
	return r
}

func (r *running) waitReady(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + r.admin + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("catalog not ready; logs:\n%s", r.logs.String())
}

func get(t *testing.T, url string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	tr := &http.Transport{DisableCompression: true}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

type plansBody struct {
	Version string `json:"version"`
	Plans   map[string]struct {
		Entries []struct {
			AddOnCode  string `json:"addOnCode"`
			Deprecated bool   `json:"deprecated"`
			Price      map[string]struct {
				AmountInCents int64 `json:"amountInCents"`
				Included      bool  `json:"included"`
			} `json:"price"`
		} `json:"entries"`
	} `json:"plans"`
}

func (p plansBody) price(code, cur string) (int64, bool) {
	for _, g := range p.Plans {
		for _, e := range g.Entries {
			if e.AddOnCode == code {
				pr, ok := e.Price[cur]
				return pr.AmountInCents, ok
			}
		}
	}
	return 0, false
}

func TestCatalogServesTheCatalogue(t *testing.T) {
	t.Parallel()
	r := start(t, dbtest.New(t), nil)
	r.waitReady(t)
	base := "http://" + r.http

	t.Run("available plans", func(t *testing.T) {
		resp, body := get(t, base+"/account/api/subscription/available/add-ons", nil)
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		var p plansBody
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		for code, want := range map[string]int64{"pro_plus": 19999, "performance": 37000, "basic_plus": 12500} {
			if got, _ := p.price(code, "USD"); got != want {
				t.Errorf("%s USD = %d, want %d", code, got, want)
			}
		}
		regions := map[string]bool{}
		for _, e := range p.Plans["REGIONS"].Entries {
			regions[e.AddOnCode] = true
		}
		for _, r := range []string{"us", "ca", "eu", "af", "as", "au", "la", "ms", "nz"} {
			if !regions["add_geo_"+r] || !regions["included_geo_"+r] {
				t.Errorf("REGIONS lacks add_geo_%s / included_geo_%s", r, r)
			}
		}
		if _, listed := p.price("mfb_old", "USD"); listed {
			t.Error("deprecated mfb_old is listed")
		}
		if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age") {
			t.Errorf("Cache-Control = %q", cc)
		}
	})

	t.Run("etag and 304", func(t *testing.T) {
		resp, _ := get(t, base+"/account/api/subscription/available/add-ons", nil)
		etag := resp.Header.Get("ETag")
		if etag == "" {
			t.Fatal("no ETag")
		}
		resp2, body := get(t, base+"/account/api/subscription/available/add-ons", map[string]string{"If-None-Match": etag})
		if resp2.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Errorf("If-None-Match: status %d, %d bytes; want 304 and no body", resp2.StatusCode, len(body))
		}
		resp3, _ := get(t, base+"/account/api/subscription/available/add-ons", map[string]string{"If-None-Match": `"stale"`})
		if resp3.StatusCode != http.StatusOK {
			t.Errorf("stale If-None-Match: status %d, want 200", resp3.StatusCode)
		}
	})

	t.Run("gzip and currency variant", func(t *testing.T) {
		resp, body := get(t, base+"/account/api/subscription/available/add-ons?currency=eur", map[string]string{"Accept-Encoding": "gzip"})
		if resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("Content-Encoding = %q", resp.Header.Get("Content-Encoding"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := io.ReadAll(zr)
		var p plansBody
		if err := json.Unmarshal(plain, &p); err != nil {
			t.Fatal(err)
		}
		if got, _ := p.price("pro_plus", "EUR"); got != 18599 {
			t.Errorf("pro_plus EUR = %d, want 18599", got)
		}
		if _, ok := p.price("pro_plus", "USD"); ok {
			t.Error("currency=EUR answer still carries USD prices")
		}
	})

	for _, tc := range []struct {
		name, path string
		status     int
		want       string
	}{
		{"unknown currency on plans", "/account/api/subscription/available/add-ons?currency=XYZ", 400, `unknown currency \"XYZ\"`},
		{"add-on prices", "/buy/api/subscription/add-on-prices?addOnCodes=pro_plus,add_geo_eu&currency=GBP", 200, `"amountInCents":15999`},
		{"add-on prices missing codes", "/buy/api/subscription/add-on-prices?currency=USD", 400, "addOnCodes is required"},
		{"add-on prices missing currency", "/buy/api/subscription/add-on-prices?addOnCodes=pro_plus", 400, "currency is required"},
		{"add-on prices unknown code", "/buy/api/subscription/add-on-prices?addOnCodes=pro_plus,warp_drive&currency=USD", 400, "warp_drive"},
		{"add-on prices unknown currency", "/buy/api/subscription/add-on-prices?addOnCodes=pro_plus&currency=JPY", 400, `\"JPY\"`},
		{"scheduled prices", "/buy/api/subscription/scheduled-prices?quantity=10&currency=USD", 200, `"addOnCode":"business_pro"`},
		{"scheduled prices malformed quantity", "/buy/api/subscription/scheduled-prices?quantity=abc&currency=USD", 400, `"field":"quantity","message":"quantity must be a whole number."`},
		{"scheduled prices quantity 1", "/buy/api/subscription/scheduled-prices?quantity=1&currency=USD", 400, "minimum of two licenses"},
		{"scheduled prices over 100", "/buy/api/subscription/scheduled-prices?quantity=101&currency=USD", 400, "contact sales"},
		{"scheduled prices missing quantity", "/buy/api/subscription/scheduled-prices?currency=USD", 400, "quantity is required"},
		{"fleet prices", "/account/api/subscription/available/fleet-prices", 200, `"minQuantity":50`},
		{"avionics", "/buy/api/jeppesen/avionics/add-on/garmin/g1000", 200, `"category":"navdata"`},
		{"avionics unknown", "/buy/api/jeppesen/avionics/add-on/garmin/g9999", 404, "g9999"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := get(t, base+tc.path, nil)
			if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.want) {
				t.Errorf("GET %s = %d %s; want %d containing %s", tc.path, resp.StatusCode, body, tc.status, tc.want)
			}
			if tc.status >= 400 && !strings.Contains(string(body), `"code":`) {
				t.Errorf("error body %s lacks the error shape", body)
			}
		})
	}

	t.Run("grpc", func(t *testing.T) {
		conn, err := grpc.NewClient(r.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		c := catalogv1.NewCatalogServiceClient(conn)
		ctx := context.Background()
		got, err := c.GetEntries(ctx, &catalogv1.GetEntriesRequest{AddOnCodes: []string{"mfb_old", "pro_plus"}})
		if err != nil || len(got.GetEntries()) != 2 || !got.GetEntries()[0].GetDeprecated() {
			t.Errorf("GetEntries(legacy, current) = %v, %v", got, err)
		}
		_, err = c.GetEntries(ctx, &catalogv1.GetEntriesRequest{AddOnCodes: []string{"nope"}})
		if status.Code(err) != codes.NotFound {
			t.Errorf("GetEntries(unknown) = %v, want NotFound", err)
		}
		full, err := c.GetCatalog(ctx, &catalogv1.GetCatalogRequest{})
		if err != nil || len(full.GetEntries()) < 100 || len(full.GetAircraft()) == 0 {
			t.Fatalf("GetCatalog = %d entries, %v", len(full.GetEntries()), err)
		}
		same, err := c.GetCatalog(ctx, &catalogv1.GetCatalogRequest{IfVersionNot: full.GetVersion()})
		if err != nil || !same.GetNotModified() || len(same.GetEntries()) != 0 {
			t.Errorf("GetCatalog(current version) = %v, %v; want not_modified", same, err)
		}
	})

	t.Run("metrics", func(t *testing.T) {
		_, body := get(t, "http://"+r.admin+"/metrics", nil)
		for _, want := range []string{
			`hangar_http_requests_total{code="200",method="GET",route="/account/api/subscription/available/add-ons",service="catalog"}`,
			`hangar_http_requests_total{code="400",method="GET",route="/buy/api/subscription/scheduled-prices"`,
			`hangar_grpc_requests_total{code="NotFound",method="/hangar.catalog.v1.CatalogService/GetEntries",service="catalog"}`,
		} {
			if !strings.Contains(string(body), want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
	})

	if err := r.stop(); err != nil {
		t.Errorf("graceful stop: %v", err)
	}
}

// A new data version loaded while the service runs is served without a restart.
func TestCatalogPicksUpNewDataVersion(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.New(t)
	r := start(t, dbURL, nil)
	r.waitReady(t)
	url := "http://" + r.http + "/account/api/subscription/available/add-ons"
	resp, _ := get(t, url, nil)
	oldTag := resp.Header.Get("ETag")

	// The shipped version, read from the file so that a data release does not break the test.
	shipped := regexp.MustCompile(`(?m)^version: "([^"]+)"`).FindStringSubmatch(string(data.Catalog))
	if shipped == nil {
		t.Fatal("no version line in the shipped catalogue")
	}
	next := strings.Replace(string(data.Catalog), shipped[0], `version: "2099.1.0"`, 1)
	next = strings.Replace(next, "USD: 19999,", "USD: 20999,", 1)
	if next == string(data.Catalog) || !strings.Contains(next, "2099.1.0") {
		t.Fatal("test could not derive a new data version")
	}
	file := filepath.Join(t.TempDir(), "catalog.yaml")
	if err := os.WriteFile(file, []byte(next), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := app.Admin(context.Background(), r.cfg, "load", file, &out); err != nil {
		t.Fatalf("load new version: %v\n%s", err, out.String())
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, body := get(t, url, nil)
		var p plansBody
		_ = json.Unmarshal(body, &p)
		if p.Version == "2099.1.0" {
			if resp.Header.Get("ETag") == oldTag {
				t.Error("ETag did not change with the data version")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still serving %s after loading 2099.1.0", p.Version)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Loading the same version with different content is refused: releases are immutable.
	tampered := strings.Replace(next, "USD: 20999,", "USD: 21999,", 1)
	if err := os.WriteFile(file, []byte(tampered), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := app.Admin(context.Background(), r.cfg, "load", file, &out); err == nil || !strings.Contains(err.Error(), "bump the version") {
		t.Errorf("reloading 2099.1.0 with other content = %v, want a conflict", err)
	}
	// Rollback.
	if err := app.Admin(context.Background(), r.cfg, "activate", shipped[1], &out); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		_, body := get(t, url, nil)
		var p plansBody
		_ = json.Unmarshal(body, &p)
		if p.Version == shipped[1] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rollback not picked up; serving %s", p.Version)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// With PostgreSQL unreachable the service stays up, unready, saying why, and retrying.
func TestCatalogUnreadyWithoutDatabase(t *testing.T) {
	t.Parallel()
	r := start(t, "postgres://postgres@127.0.0.1:1/hangar_catalog?sslmode=disable&connect_timeout=1", nil)
	// Wait for the second failed attempt: by then the service has tried, logged and retried.
	for deadline := time.Now().Add(10 * time.Second); strings.Count(r.logs.String(), "database unreachable; retrying") < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no repeated retry within 10 s:\n%s", r.logs.String())
		}
	}
	resp, body := get(t, "http://"+r.admin+"/readyz", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "database") {
		t.Errorf("/readyz = %d %s; want 503 naming the database", resp.StatusCode, body)
	}
	if resp, _ := get(t, "http://"+r.admin+"/healthz", nil); resp.StatusCode != 200 {
		t.Errorf("/healthz = %d; the process must stay alive", resp.StatusCode)
	}
	resp, body = get(t, "http://"+r.http+"/account/api/subscription/available/add-ons", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"code":"unavailable"`) {
		t.Errorf("plans before load = %d %s; want 503 unavailable", resp.StatusCode, body)
	}
	if n := strings.Count(r.logs.String(), "database unreachable; retrying"); n < 2 {
		t.Errorf("want repeated retry log lines, got %d:\n%s", n, r.logs.String())
	}
	if err := r.stop(); err != nil {
		t.Errorf("stop while retrying: %v", err)
	}
}
