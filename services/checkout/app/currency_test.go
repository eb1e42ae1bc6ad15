package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/servicetest"
	geo "github.com/hangar/hangar/services/geo/app"
)

// startGeo runs the real geo service, trusting loopback proxies as in make dev, and
// answers its gRPC address.
func startGeo(t *testing.T) string {
	t.Helper()
	var cfg geo.Config
	vars := map[string]string{"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
		"SHUTDOWN_TIMEOUT": "2s", "LOG_LEVEL": "warn", "TRUSTED_PROXIES": "127.0.0.0/8,::1"}
	if err := config.LoadFrom(&cfg, lookup(vars)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	g, err := geo.New(ctx, cfg, io.Discard)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	servicetest.Run(t, ctx, cancel, g)
	addr, _, _ := g.Addrs()
	return addr
}

// A visitor without a stored currency gets the currency cookie's, else their location's
// (checkout asks geo over gRPC with the proxy chain it received), else USD; a customer's
// subscription and a military cart keep theirs.
func TestDefaultCurrencyFromGeo(t *testing.T) {
	t.Parallel()
	// A generous deadline: this test asserts the lookup's answers, not its speed, and a
	// loaded CI machine can take longer than production's 150 ms.
	base := start(t, map[string]string{"GEO_ADDR": startGeo(t), "CHECKOUT_GEO_TIMEOUT": "10s"})
	const germany, us = "193.99.144.80", "8.8.8.8"
	for _, tc := range []struct {
		name, path, xff, cookie, currency, source string
	}{
		{"an EU visitor", "/buy/api/currency", germany, "", "EUR", "location"},
		{"a UK visitor", "/buy/api/currency", "81.2.69.142", "", "GBP", "location"},
		{"a US visitor", "/buy/api/currency", us, "", "USD", "location"},
		{"the currency cookie wins over the location", "/buy/api/currency", germany, "ff_currency_choice=CAD", "CAD", "cookie"},
		{"a cookie the store does not sell in is ignored", "/buy/api/currency", germany, "ff_currency_choice=JPY", "EUR", "location"},
		{"an unknown e-mail is a visitor", "/buy/api/currency?email=nobody@example.com", germany, "", "EUR", "location"},
		{"a customer keeps the subscription's", "/buy/api/currency?email=pilot@demo.hangar.test", germany, "", "USD", "subscription"},
	} {
		code, m := callWithCookie(t, "GET", base+tc.path, tc.cookie, "X-Forwarded-For", tc.xff)
		if code != 200 || m["currency"] != tc.currency || m["source"] != tc.source {
			t.Errorf("%s: %d %v, want %s from %s", tc.name, code, m, tc.currency, tc.source)
		}
	}
	// The preview and the gift form without a currency price in the visitor's.
	_, pv := call(t, "POST", base+"/buy/api/invoice/preview", `{"addOns":["performance","included_geo_eu"]}`, "X-Forwarded-For", germany)
	if pv["currency"] != "EUR" {
		t.Errorf("preview without a currency from Germany: %v", pv["currency"])
	}
	_, pv = call(t, "POST", base+"/buy/api/invoice/preview", `{"addOns":["performance","included_geo_eu"],"currency":"GBP"}`, "X-Forwarded-For", germany)
	if pv["currency"] != "GBP" {
		t.Errorf("preview with GBP chosen from Germany: %v", pv["currency"])
	}
	_, pv = call(t, "POST", base+"/buy/api/invoice/preview", `{"military":true,"addOns":["mfb_pro"]}`, "X-Forwarded-For", germany)
	if pv["currency"] != "USD" {
		t.Errorf("military preview from Germany: %v, want the fixed USD", pv["currency"])
	}
	_, g := call(t, "POST", base+"/buy/api/gift/validate", `{"giftCertValues":[125]}`, "X-Forwarded-For", "1.128.0.1")
	if g["currency"] != "AUD" {
		t.Errorf("gift form without a currency from Australia: %v", g["currency"])
	}
}

// Without geo (down, or GEO_ADDR unset) a visitor gets USD; nothing fails.
func TestDefaultCurrencyWithoutGeo(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close()
	for _, env := range []map[string]string{{"GEO_ADDR": down}, nil} {
		base := start(t, env)
		code, m := call(t, "GET", base+"/buy/api/currency", "", "X-Forwarded-For", "193.99.144.80")
		if code != 200 || m["currency"] != "USD" || m["source"] != "default" {
			t.Errorf("geo %v: %d %v", env, code, m)
		}
	}
}

// callWithCookie is a GET with a browser cookie besides the XSRF pair.
func callWithCookie(t *testing.T, method, url, cookie string, hdr ...string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	req.Header.Set("Cookie", "XSRF-TOKEN=test-xsrf; "+cookie)
	req.Header.Set("X-XSRF-TOKEN", "test-xsrf")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}
