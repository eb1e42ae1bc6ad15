// Package app assembles the catalog service: configuration, telemetry, its database, the
// active catalogue in memory, and its gRPC, REST and admin listeners. main, the dev runner
// and the end-to-end tests build the same App.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc"

	catalogv1 "github.com/hangar/hangar/gen/go/hangar/catalog/v1"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/catalog/data"
	"github.com/hangar/hangar/services/catalog/internal/adapters"
	iapp "github.com/hangar/hangar/services/catalog/internal/app"
	"github.com/hangar/hangar/services/catalog/internal/ports"
)

// Name is the service name in logs, traces and metrics.
const Name = "catalog"

// Config is the catalog service's configuration, read from the environment.
type Config struct {
	config.Platform
	config.Database
	RefreshInterval time.Duration `env:"CATALOG_REFRESH_INTERVAL" default:"30s" doc:"how often to check for a newly activated catalogue data version"`
	SeedEmbedded    bool          `env:"CATALOG_SEED" default:"true" doc:"load the catalogue data file built into the binary when its version is not stored yet"`
}

// LoadConfig reads Config from the environment.
func LoadConfig() (Config, error) {
	var c Config
	err := config.Load(&c)
	config.ServiceDefaults(Name, &c.Platform, &c.Database)
	return c, err
}

// App is a configured, not yet running catalog service.
type App struct {
	cfg      Config
	log      *slog.Logger
	srv      *server.Server
	cats     *iapp.Catalogs
	plans    *ports.AvailablePlans
	pool     *pgxpool.Pool
	shutdown func(context.Context) error
}

// New builds the service; logs go to logOut.
func New(ctx context.Context, cfg Config, logOut io.Writer) (*App, error) {
	config.ServiceDefaults(Name, &cfg.Platform, &cfg.Database)
	deps, shutdown, err := server.NewDeps(ctx, cfg.Platform, logOut)
	if err != nil {
		return nil, err
	}
	log := deps.Logger
	cfg.Database.DefaultPool(db.ServiceBudget(Name).Max) // the connection budget's
	pool, err := db.Open(ctx, cfg.URL, cfg.MaxConns, db.IdleAfter(cfg.IdleTimeout))
	if err != nil {
		return nil, err
	}
	if err := db.RegisterPool(deps.Registry, pool, "main"); err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, log: log, pool: pool, shutdown: shutdown, plans: &ports.AvailablePlans{}}
	a.cats = iapp.NewCatalogs(adapters.NewStore(pool), log)
	a.cats.OnChange(a.plans.Prepare)

	a.srv = server.New(cfg.ServiceName, cfg.Platform, deps)
	// The database is needed to start (migrate, seed, load); once the catalogue is in memory
	// every route serves from it, so a database lost later is not probed into readiness: the
	// pricing pages keep answering through an outage, and the refresh says it failed.
	a.srv.Ready().Require("database")
	a.srv.Ready().Require("catalogue")
	catalogv1.RegisterCatalogServiceServer(a.srv, ports.NewGRPC(a.cats))
	a.srv.Gateway(func(ctx context.Context, mux *runtime.ServeMux, conn grpc.ClientConnInterface) error {
		return catalogv1.RegisterCatalogServiceHandlerClient(ctx, mux, catalogv1.NewCatalogServiceClient(conn))
	})
	a.srv.Handle("GET "+ports.AvailablePlansPath, a.plans)
	mapRes, err := ports.NewMapResources(data.MapOutlines, "map/outlines")
	if err != nil {
		return nil, fmt.Errorf("coverage map outlines: %w", err)
	}
	a.srv.Handle("GET "+ports.MapResourcesPath, mapRes)
	return a, nil
}

// Listen binds the listeners (so callers can read Addrs before Run).
func (a *App) Listen() error { return a.srv.Listen() }

// Addrs answers the bound gRPC, HTTP and admin addresses.
func (a *App) Addrs() (grpcAddr, httpAddr, adminAddr string) { return a.srv.Addrs() }

// Handler is the public REST handler, for in-process callers (the dev edge).
func (a *App) Handler() http.Handler { return a.srv.Handler() }

// Ready reports whether the service is ready for traffic.
func (a *App) Ready() bool { return a.srv.Ready().Ok() }

// Run serves until ctx ends. The database is brought up in the background: until it is
// reachable, migrated and a catalogue is loaded, /readyz says why not, and the process stays
// up retrying with backoff rather than crash-looping.
func (a *App) Run(ctx context.Context) error {
	defer a.pool.Close()
	defer func() { _ = a.shutdown(context.WithoutCancel(ctx)) }()
	a.srv.Go(a.startData) // in the server's run group: done before the pool closes
	return a.srv.Run(ctx)
}

func (a *App) startData(ctx context.Context) {
	ready := a.srv.Ready()
	report := func(reason string) { ready.Set("database", reason) }
	if !db.Bootstrap(ctx, a.log, a.pool, a.cfg.Database, report, a.prepareData) {
		return // shutting down
	}
	ready.Set("catalogue", "")
	a.cats.Watch(ctx, a.cfg.RefreshInterval)
}

func (a *App) prepareData(ctx context.Context) error {
	if err := db.Schema(ctx, a.pool, a.cfg.Database, adapters.Migrations, "migrations", a.log); err != nil {
		return err
	}
	if a.cfg.SeedEmbedded {
		if err := iapp.Seed(ctx, adapters.NewStore(a.pool), data.Catalog, a.log); err != nil {
			return err
		}
	}
	_, err := a.cats.Refresh(ctx)
	return err
}
