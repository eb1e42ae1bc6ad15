// Package app assembles the allocation service: configuration, telemetry, its database, the
// subscription-changed consumer (through the inbox), the outbox relay of allocation-changed
// events, the sweep that expires lapsed terms, and its gRPC, REST and admin listeners. main,
// the dev runner and the end-to-end tests build the same App.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc"

	allocationv1 "github.com/hangar/hangar/gen/go/hangar/allocation/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/kitclient"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/allocation/internal/adapters"
	iapp "github.com/hangar/hangar/services/allocation/internal/app"
	"github.com/hangar/hangar/services/allocation/internal/ports"
)

// Name is the service name in logs, traces and metrics.
const Name = "allocation"

// ConsumerGroup is the Kafka consumer group of the subscription-changed consumer.
const ConsumerGroup = "allocation"

// Config is the allocation service's configuration, read from the environment.
type Config struct {
	config.Platform
	config.Database
	config.Kafka
	// Auth configures the shared CSRF and session middleware; IDENTITY_ADDR also serves the
	// user directory (users by allocation).
	Auth          auth.Config
	SweepInterval time.Duration `env:"ALLOCATION_SWEEP_INTERVAL" default:"1m" doc:"how often assignments whose term ended are turned into expired allocations"`
	DevSeed       bool          `env:"ALLOCATION_DEV_SEED" default:"false" doc:"give identity's demo organization (Acme) licence pools and tails at start (dev only)"`
}

// LoadConfig reads Config from the environment.
func LoadConfig() (Config, error) {
	var c Config
	err := config.Load(&c)
	config.ServiceDefaults(Name, &c.Platform, &c.Database)
	return c, err
}

// PrintEnv lists the variables Config reads.
func PrintEnv(out io.Writer) { config.PrintEnv(out, &Config{}) }

// App is a configured, not yet running allocation service.
type App struct {
	cfg      Config
	log      *slog.Logger
	srv      *server.Server
	svc      *iapp.Service
	store    *adapters.Store
	pool     *pgxpool.Pool
	deps     server.Deps
	identity *grpc.ClientConn // nil without IDENTITY_ADDR
	dir      *adapters.Directory
	now      func() time.Time
	shutdown func(context.Context) error
}

// New builds the service; logs go to logOut.
func New(ctx context.Context, cfg Config, logOut io.Writer) (*App, error) {
	config.ServiceDefaults(Name, &cfg.Platform, &cfg.Database)
	deps, shutdown, err := server.NewDeps(ctx, cfg.Platform, logOut)
	if err != nil {
		return nil, err
	}
	cfg.Database.DefaultPool(db.ServiceBudget(Name).Max) // the connection budget's
	pool, err := db.Open(ctx, cfg.URL, cfg.MaxConns, db.IdleAfter(cfg.IdleTimeout))
	if err != nil {
		return nil, err
	}
	if err := db.RegisterPool(deps.Registry, pool, "main"); err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, log: deps.Logger, pool: pool, deps: deps, shutdown: shutdown, now: time.Now}
	a.store = adapters.NewStore(pool, deps.Propagator)

	// Without IDENTITY_ADDR every request is anonymous (a service tested on its own).
	var resolver auth.Resolver = auth.Anonymous
	var dir iapp.Directory
	if cfg.Auth.IdentityAddr != "" {
		conn, err := kitclient.Dial(cfg.Auth.IdentityAddr, auth.IdentityClient(deps.Registry), deps.Tracer, deps.Propagator)
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("dial identity %s: %w", cfg.Auth.IdentityAddr, err)
		}
		a.identity = conn
		resolver = auth.RemoteResolver(cfg.Auth, conn)
		a.dir = adapters.NewDirectory(conn)
		dir = a.dir
	}
	a.svc = iapp.New(a.store, dir, func() time.Time { return a.now() }, a.log)

	a.srv = server.New(cfg.ServiceName, cfg.Platform, deps)
	a.srv.Ready().Require("database")
	a.srv.ProbeReady("database", db.Probe(pool), db.LostDatabase(pool)) // a database lost later makes the service unready again
	allocationv1.RegisterAllocationServiceServer(a.srv, ports.NewGRPC(a.svc))
	a.srv.EmitDefaults(ports.FullAnswers()...)
	a.srv.Gateway(func(ctx context.Context, mux *runtime.ServeMux, conn grpc.ClientConnInterface) error {
		return allocationv1.RegisterAllocationServiceHandlerClient(ctx, mux, allocationv1.NewAllocationServiceClient(conn))
	})
	a.srv.UseHTTP(ports.TrailingSlash)
	auth.Install(a.srv, auth.Options{Resolver: resolver, CSRF: auth.CSRFConfig{AllowedOrigins: cfg.Auth.AllowedOrigins}})
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

// Run serves until ctx ends. The database is brought up in the background; then the
// consumer, the outbox relay and the sweep run beside the listeners.
func (a *App) Run(ctx context.Context) error {
	defer a.pool.Close()
	if a.identity != nil {
		defer a.identity.Close()
	}
	defer func() { _ = a.shutdown(context.WithoutCancel(ctx)) }()
	a.srv.Go(a.startData) // with the workers it starts, done before the pool closes
	return a.srv.Run(ctx)
}

func (a *App) startData(ctx context.Context) {
	ready := a.srv.Ready()
	report := func(reason string) { ready.Set("database", reason) }
	if !db.Bootstrap(ctx, a.log, a.pool, a.cfg.Database, report, a.prepareData) {
		return // shutting down
	}
	if a.cfg.DevSeed {
		a.srv.Go(a.seedWhenIdentityAnswers)
	}
	if len(a.cfg.Brokers) > 0 {
		a.srv.Go(a.consume)
	}
	a.srv.Go(func(ctx context.Context) {
		kafka.RunRelay(ctx, a.cfg.Brokers, a.pool, a.deps.Propagator, a.log, kafka.WithRelayMetrics(a.deps.Registry), kafka.WithRelayTracer(a.deps.Tracer))
	})
	a.sweep(ctx)
}

func (a *App) prepareData(ctx context.Context) error {
	return db.Schema(ctx, a.pool, a.cfg.Database, adapters.Migrations, "migrations", a.log)
}

// consume applies subscription-changed events until ctx ends, through the platform's batch
// inbox consumer: the events fetched together are applied in one transaction with their
// inbox rows (a redelivered event changes nothing); when a batch fails its events are
// applied one at a time and a poison one is dead-lettered. Events of one account share a
// partition and are applied in their order.
func (a *App) consume(ctx context.Context) {
	c := kafka.NewInboxBatchConsumer(kafka.ConsumerConfig{Brokers: a.cfg.Brokers, Group: ConsumerGroup, Pool: a.pool, Log: a.log,
		Tracer: a.deps.Tracer, Propagator: a.deps.Propagator, Registry: a.deps.Registry, CommitInterval: a.cfg.CommitInterval},
		events.TopicSubscriptionChanged, ports.SubscriptionChanged(a.svc, func(tx pgx.Tx) iapp.SubscriptionFiler { return a.store.Within(tx) }),
		kafka.BatchOptions{})
	kafka.KeepRunning(ctx, a.log, ConsumerGroup, c)
}

func (a *App) sweep(ctx context.Context) {
	if a.cfg.SweepInterval <= 0 {
		<-ctx.Done()
		return
	}
	for {
		if err := a.svc.Sweep(ctx); err != nil && ctx.Err() == nil && errs.CodeOf(err) != errs.Unavailable {
			a.log.WarnContext(ctx, "expiry sweep failed", "err", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(a.cfg.SweepInterval):
		}
	}
}

// Service answers the use cases (tests, dev seed).
func (a *App) Service() *iapp.Service { return a.svc }

// SetClock replaces the clock (tests).
func (a *App) SetClock(now func() time.Time) { a.now = now }
