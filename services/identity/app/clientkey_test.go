package app_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"google.golang.org/grpc/metadata"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/services/identity/app"
)

// Issue 41: identity's anonymous doors keyed on the raw address, so an IPv6 client with a
// /64 had a fresh burst at every address of it. Behind the trusted proxy, the addresses of
// one /64 now share one bucket, while the next /64 and an IPv4 client are served.
func TestAnonymousLimitsCountAnIPv6ClientByItsSlash64(t *testing.T) {
	t.Parallel()
	r := start(t, map[string]string{"TRUSTED_PROXIES": "1"})
	lookup := func(addr string) int {
		req, _ := http.NewRequest("GET", r.base+"/buy/api/isbusiness?email=owner@acme.hangar.test", nil)
		req.Header.Set("X-Forwarded-For", addr)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	// The bucket refills while the look-ups run (one per rule.Every on a loaded machine):
	// the /64 is refused within a few look-ups past its burst, and at once after that.
	burst := app.AnonymousLimits[identityv1.IdentityService_IsBusiness_FullMethodName].Burst
	refused := 0
	for i := range burst + 5 {
		if code := lookup(fmt.Sprintf("2001:db8:41:1::%x", i+1)); code == http.StatusTooManyRequests {
			refused = i + 1
			break
		}
	}
	if refused == 0 {
		t.Fatalf("%d look-ups from one /64, each from a new address, none refused", burst+5)
	}
	if code := lookup("2001:db8:41:1:ffff::1"); code != http.StatusTooManyRequests {
		t.Errorf("another address of the /64 past the burst = %d, want 429", code)
	}
	if code := lookup("2001:db8:41:2::1"); code != http.StatusOK {
		t.Errorf("the next /64 = %d, want 200", code)
	}
	if code := lookup("198.51.100.41"); code != http.StatusOK {
		t.Errorf("an IPv4 client = %d, want 200", code)
	}
}

// AnonymousKey is the platform's client key: the addresses of one /64 behind the trusted
// proxy are one client.
func TestAnonymousKeyIsThePlatformsClientKey(t *testing.T) {
	t.Parallel()
	key := app.AnonymousKey(1)
	ctx := func(xff string) context.Context {
		return metadata.NewIncomingContext(context.Background(), metadata.Pairs("x-forwarded-for", xff))
	}
	if a, b := key(ctx("2001:db8:41:1::1, 10.0.0.9")), key(ctx("2001:db8:41:1:ffff::2, 10.0.0.9")); a != b || a != "2001:db8:41:1::/64" {
		t.Errorf("two addresses of one /64 = %q and %q, want 2001:db8:41:1::/64 for both", a, b)
	}
	if a := key(ctx("198.51.100.41, 10.0.0.9")); a != "198.51.100.41" {
		t.Errorf("an IPv4 client = %q", a)
	}
}
