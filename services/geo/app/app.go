// Package app assembles the geo service: configuration, telemetry, the embedded IP data
// set and its gRPC, HTTP and admin listeners. main, the dev runner and the end-to-end tests
// build the same App. Geo keeps no state and needs no database.
package app

import (
	"context"
	"io"
	"net/http"
	"net/netip"

	"github.com/phuslu/iploc"

	geov1 "github.com/hangar/hangar/gen/go/hangar/geo/v1"
	"github.com/hangar/hangar/internal/platform/clientaddr"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/server"
	iapp "github.com/hangar/hangar/services/geo/internal/app"
	"github.com/hangar/hangar/services/geo/internal/ports"
)

// Name is the service name in logs, traces and metrics.
const Name = "geo"

// DataVersion is the version of the embedded IP-to-country data set (IP2Location LITE
// through github.com/phuslu/iploc; the module's version is the data's release date).
const DataVersion = iploc.Version

// Config is the geo service's configuration, read from the environment.
type Config struct {
	config.Platform
	TrustedProxies []string `env:"TRUSTED_PROXIES" default:"1" doc:"who may report the client address in X-Forwarded-For: a number of proxy hops in front of the service (the Ingress: 1), or a list of CIDR prefixes/addresses of the proxies (e.g. the Ingress controller's pod network; make dev: loopback)"`
}

// LoadConfig reads Config from the environment.
func LoadConfig() (Config, error) {
	var c Config
	err := config.Load(&c)
	config.ServiceDefaults(Name, &c.Platform, nil)
	return c, err
}

// App is a configured, not yet running geo service.
type App struct {
	srv      *server.Server
	shutdown func(context.Context) error
}

// New builds the service; logs go to logOut.
func New(ctx context.Context, cfg Config, logOut io.Writer) (*App, error) {
	config.ServiceDefaults(Name, &cfg.Platform, nil)
	proxies, err := clientaddr.ParseProxies(cfg.TrustedProxies)
	if err != nil {
		return nil, err
	}
	deps, shutdown, err := server.NewDeps(ctx, cfg.Platform, logOut)
	if err != nil {
		return nil, err
	}
	loc := iapp.NewLocator(Country, proxies)
	a := &App{shutdown: shutdown, srv: server.New(cfg.ServiceName, cfg.Platform, deps)}
	a.srv.Ready().Require("ip data")
	geov1.RegisterGeoServiceServer(a.srv, ports.NewGRPC(loc))
	lookup := ports.Lookup{Loc: loc}
	a.srv.Handle("GET "+ports.LookupPath, lookup)
	a.srv.Handle("GET "+ports.LookupPath[:len(ports.LookupPath)-1], lookup)
	deps.Logger.InfoContext(ctx, "ip data set", "version", DataVersion)
	return a, nil
}

// Country answers an address's country from the embedded data set.
func Country(a netip.Addr) string { return iploc.IPCountry(a) }

// Listen binds the listeners (so callers can read Addrs before Run).
func (a *App) Listen() error { return a.srv.Listen() }

// Addrs answers the bound gRPC, HTTP and admin addresses.
func (a *App) Addrs() (grpcAddr, httpAddr, adminAddr string) { return a.srv.Addrs() }

// Handler is the public HTTP handler, for in-process callers (the dev edge).
func (a *App) Handler() http.Handler { return a.srv.Handler() }

// Ready reports whether the service is ready for traffic: the data set is compiled in and
// loaded.
func (a *App) Ready() bool { return a.srv.Ready().Ok() }

// Run serves until ctx ends, then drains. The IPv6 table is decompressed on its first
// use; it is done here before the service says it is ready, so no visitor waits for it.
func (a *App) Run(ctx context.Context) error {
	defer func() { _ = a.shutdown(context.WithoutCancel(ctx)) }()
	a.srv.Go(func(context.Context) {
		Country(netip.MustParseAddr("2001:db8::1"))
		a.srv.Ready().Set("ip data", "")
	})
	return a.srv.Run(ctx)
}

// PrintEnv lists the environment variables the service reads.
func PrintEnv(out io.Writer) { config.PrintEnv(out, &Config{}) }
