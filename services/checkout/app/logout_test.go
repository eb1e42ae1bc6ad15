package app_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db/dbtest"
	"github.com/hangar/hangar/internal/platform/servicetest"
	payments "github.com/hangar/hangar/services/payments/app"
)

// startPayments runs the real payments service (its dev seed, two card readers) resolving
// sessions at identityAddr, and answers its REST base URL.
func startPayments(t *testing.T, identityAddr string) string {
	t.Helper()
	var cfg payments.Config
	if err := config.LoadFrom(&cfg, lookup(map[string]string{"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
		"PAYMENTS_FIELDS_ADDR": "127.0.0.1:0", "DATABASE_URL": dbtest.New(t), "SHUTDOWN_TIMEOUT": "2s", "IDENTITY_ADDR": identityAddr, "PAYMENTS_DEV_SEED": "true",
		"PAYMENTS_CARD_READERS": "RDR-0001,RDR-0002", "TRUSTED_PROXIES": "0", "LOG_LEVEL": "warn"})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := payments.New(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Run(t, ctx, cancel, a)
	_, h, _ := a.Addrs()
	return "http://" + h
}

// startPayments runs beside `make dev`, which holds the store's ports (the edge on :8080,
// payments' card-fields origin on :8081): every listener of the service it starts is one
// the test chose. The test holds the dev fields port itself unless something (make dev)
// already does.
func TestStartPaymentsBesideMakeDev(t *testing.T) {
	t.Parallel()
	if ln, err := net.Listen("tcp", devFieldsAddr); err == nil {
		t.Cleanup(func() { _ = ln.Close() })
	}
	identityAddr, _ := startIdentity(t)
	pay := startPayments(t, identityAddr)
	if code, body := call(t, "GET", pay+"/buy/api/subscription/payment-method/00000000-0000-4000-8000-000000000001", ""); code != http.StatusUnauthorized {
		t.Fatalf("payments beside make dev answered %d %v, want 401 for a call without a session", code, body)
	}
}

// devFieldsAddr is where `make dev` serves the card-fields origin (cmd/hangar-dev FIELDS_ADDR).
const devFieldsAddr = ":8081"

// A logout ends the session everywhere at once. Before, checkout and payments kept
// serving the old cookie from their resolver caches for up to 5 s (SESSION_CACHE_TTL):
// a stolen or shared-computer cookie outlived the logout. Two checkout replicas, each
// with its own cache, and payments, all having just served the session, refuse it on the
// very next request.
func TestLogoutEndsTheSessionInEveryServiceAtOnce(t *testing.T) {
	t.Parallel()
	identityAddr, identityBase := startIdentity(t)
	env := map[string]string{"IDENTITY_ADDR": identityAddr, "TRUSTED_PROXIES": "0"}
	checkoutA, checkoutB := start(t, env), start(t, env)
	pay := startPayments(t, identityAddr)

	const pilot = "00000000-0000-4000-8000-000000000001"
	cookie := login(t, identityBase, "pilot@demo.hangar.test")
	routes := map[string]string{
		"checkout A": checkoutA + "/buy/api/account/" + pilot + "/subscription",
		"checkout B": checkoutB + "/buy/api/account/" + pilot + "/subscription",
		"payments":   pay + "/buy/api/subscription/payment-method/" + pilot,
	}
	for name, url := range routes {
		if code, body := call(t, "GET", url, "", "Cookie", cookie); code != 200 {
			t.Fatalf("%s with a live session = %d %v", name, code, body)
		}
	}

	if code, body := call(t, "POST", identityBase+"/pricing/api/logout", "", "Cookie", cookie); code != 200 {
		t.Fatalf("logout = %d %v", code, body)
	}
	for name, url := range routes {
		if code, body := call(t, "GET", url, "", "Cookie", cookie); code == http.StatusOK {
			t.Errorf("%s right after logout = %d %v; want the session refused", name, code, body)
		}
	}
}
