package auth

import (
	"context"
	"fmt"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Anonymous resolves no session: every caller is anonymous. It is what a service runs with
// when no identity address is configured (a service tested on its own).
var Anonymous Resolver = ResolverFunc(func(context.Context, string) (Caller, error) {
	return Caller{}, ErrLoginRequired
})

// DialIdentity answers the resolver a service other than identity uses: identity's
// Authenticate over a traced gRPC connection, behind the configured cache; Anonymous when
// cfg names no identity address. Call closeConn on exit.
func DialIdentity(cfg Config, tp trace.TracerProvider, prop propagation.TextMapPropagator) (r Resolver, closeConn func() error, err error) {
	if cfg.IdentityAddr == "" {
		return Anonymous, func() error { return nil }, nil
	}
	conn, err := grpc.NewClient(cfg.IdentityAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithStatsHandler(otelgrpc.NewClientHandler(otelgrpc.WithTracerProvider(tp), otelgrpc.WithPropagators(prop))))
	if err != nil {
		return nil, nil, fmt.Errorf("dial identity %s: %w", cfg.IdentityAddr, err)
	}
	return RemoteResolver(cfg, conn), conn.Close, nil
}
