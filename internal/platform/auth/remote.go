package auth

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar/hangar/internal/platform/kitclient"
)

// Anonymous resolves no session: every caller is anonymous. It is what a service runs with
// when no identity address is configured (a service tested on its own).
var Anonymous Resolver = ResolverFunc(func(context.Context, string) (Caller, error) {
	return Caller{}, ErrLoginRequired
})

// IdentityClient is the outbound chain (kitclient) of calls to identity: its reads and
// ProvisionAccount (one account per e-mail however often it is asked) and
// ProvisionOrganization (one organization per owner account) may be retried.
// While identity is down the breaker makes every service answer at once instead of holding
// requests for the deadline, and identity is not hammered on recovery.
func IdentityClient(reg prometheus.Registerer) kitclient.Config {
	return kitclient.Config{Client: "identity", Registry: reg,
		Idempotent: []string{"Authenticate", "ProvisionAccount", "ProvisionOrganization", "ListUsers", "IsBusiness", "GetMe", "GetUserInfo"}}
}

// DialIdentity answers the resolver a service other than identity uses: identity's
// Authenticate over a traced gRPC connection through the outbound chain, behind the
// configured cache; Anonymous when cfg names no identity address. Call closeConn on exit.
func DialIdentity(cfg Config, tp trace.TracerProvider, prop propagation.TextMapPropagator, reg prometheus.Registerer) (r Resolver, closeConn func() error, err error) {
	if cfg.IdentityAddr == "" {
		return Anonymous, func() error { return nil }, nil
	}
	conn, err := kitclient.Dial(cfg.IdentityAddr, IdentityClient(reg), tp, prop)
	if err != nil {
		return nil, nil, fmt.Errorf("dial identity %s: %w", cfg.IdentityAddr, err)
	}
	return RemoteResolver(cfg, conn), conn.Close, nil
}
