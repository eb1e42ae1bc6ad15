// Package app assembles the checkout service: configuration, telemetry, its database, the
// catalogue copied from the catalog service and kept in memory, and its gRPC, REST and
// admin listeners. main, the dev runner and the end-to-end tests build the same App.
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
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	checkoutv1 "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/kitclient"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
	iapp "github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain/rules"
	"github.com/hangar/hangar/services/checkout/internal/order"
	"github.com/hangar/hangar/services/checkout/internal/ports"
)

// Name is the service name in logs, traces and metrics.
const Name = "checkout"

// Config is the checkout service's configuration, read from the environment.
type Config struct {
	config.Platform
	config.Database
	config.Kafka
	// Auth configures the shared CSRF and session middleware (identity resolves sessions).
	Auth            auth.Config
	CatalogAddr     string        `env:"CATALOG_ADDR" default:"127.0.0.1:9090" doc:"gRPC address of the catalog service"`
	RefreshInterval time.Duration `env:"CHECKOUT_REFRESH_INTERVAL" default:"30s" doc:"how often to refresh the catalogue and promotions kept in memory"`
	DevSeed         bool          `env:"CHECKOUT_DEV_SEED" default:"false" doc:"write the development subscriptions, promotions and gift certificates at start (dev only)"`
	SalesContact    string        `env:"CHECKOUT_SALES_CONTACT" default:"sales@hangar.example" doc:"the sales contact named in messages"`
	QuoteKey        string        `env:"CHECKOUT_QUOTE_KEY" default:"dev-only-quote-key" doc:"secret signing quote ids; set a random value in production"`
	CodeAttempts    int           `env:"CHECKOUT_CODE_ATTEMPTS" default:"10" doc:"promo/gift code attempts allowed per client and per account in each window; 0 disables the limit"`
	CodeWindow      time.Duration `env:"CHECKOUT_CODE_WINDOW" default:"1m" doc:"the window of CHECKOUT_CODE_ATTEMPTS"`
	// RecaptchaRequired makes validate ask for the human-verification value.
	RecaptchaRequired bool          `env:"CHECKOUT_RECAPTCHA_REQUIRED" default:"false" doc:"validation requires the human-verification value (recaptchaValue)"`
	PaymentsAddr      string        `env:"PAYMENTS_ADDR" default:"127.0.0.1:9093" doc:"gRPC address of the payments service (submit charges through it)"`
	ReconcileInterval time.Duration `env:"CHECKOUT_RECONCILE_INTERVAL" default:"30s" doc:"how often interrupted submits (charged, not written) are completed or refunded"`
	SubmitLease       time.Duration `env:"CHECKOUT_SUBMIT_LEASE" default:"2m" doc:"how long a submit owns its idempotency key before the reconciler may take it over"`
}

// LoadConfig reads Config from the environment.
func LoadConfig() (Config, error) {
	var c Config
	err := config.Load(&c)
	config.ServiceDefaults(Name, &c.Platform, &c.Database)
	return c, err
}

// PrintEnv lists the environment variables and their defaults.
func PrintEnv(out io.Writer) { config.PrintEnv(out, &Config{}) }

// App is a configured, not yet running checkout service.
type App struct {
	cfg      Config
	log      *slog.Logger
	srv      *server.Server
	svc      *iapp.Service
	store    *adapters.Store
	pool     *pgxpool.Pool
	conn     *grpc.ClientConn
	identity *grpc.ClientConn // nil without IDENTITY_ADDR
	payments *grpc.ClientConn
	orders   *order.Pipeline
	deps     server.Deps
	shutdown func(context.Context) error
}

// New builds the service; logs go to logOut.
func New(ctx context.Context, cfg Config, logOut io.Writer) (*App, error) {
	config.ServiceDefaults(Name, &cfg.Platform, &cfg.Database)
	deps, shutdown, err := server.NewDeps(ctx, cfg.Platform, logOut)
	if err != nil {
		return nil, err
	}
	log, tp := deps.Logger, deps.Tracer
	pool, err := db.Open(ctx, cfg.URL, cfg.MaxConns)
	if err != nil {
		return nil, err
	}
	if err := db.RegisterPool(deps.Registry, pool, "main"); err != nil {
		return nil, err
	}
	// Every outbound client goes through the kit chain: deadline, breaker, retries of
	// idempotent calls, metrics.
	conn, err := kitclient.Dial(cfg.CatalogAddr, adapters.CatalogKit(deps.Registry), tp, deps.Propagator)
	if err != nil {
		pool.Close()
		return nil, err
	}
	payConn, err := kitclient.Dial(cfg.PaymentsAddr, adapters.PaymentsKit(deps.Registry), tp, deps.Propagator)
	if err != nil {
		pool.Close()
		return nil, err
	}
	store := adapters.NewStore(pool)
	a := &App{cfg: cfg, log: log, pool: pool, conn: conn, payments: payConn, store: store, deps: deps, shutdown: shutdown}
	a.srv = server.New(cfg.ServiceName, cfg.Platform, deps)
	if err := a.installAuth(tp); err != nil {
		pool.Close()
		return nil, err
	}
	orderMetrics, err := order.NewMetrics(deps.Registry)
	if err != nil {
		return nil, err
	}
	a.orders = order.NewPipeline(pool, adapters.NewPaymentsClient(payConn), deps.Propagator, log, order.Options{Lease: cfg.SubmitLease, AfterCharge: afterCharge, Metrics: orderMetrics})
	opts := iapp.Options{
		Rules: rules.Rules{SalesContact: cfg.SalesContact, RecaptchaRequired: cfg.RecaptchaRequired}, QuoteKey: []byte(cfg.QuoteKey),
		CodeAttempts: cfg.CodeAttempts, CodeWindow: cfg.CodeWindow, Orders: a.orders, Subs: store,
	}
	if a.identity != nil {
		opts.Accounts = adapters.NewIdentityClient(a.identity)
	}
	if cfg.RecaptchaRequired {
		opts.Verifier = iapp.DevVerifier{}
	}
	svc := iapp.New(store, adapters.NewCatalogClient(conn), log, opts)
	a.svc = svc
	a.orders.Register(order.KindSubscription, iapp.SubscriptionFulfiller{Catalog: svc.Catalog})
	a.orders.Register(order.KindGift, iapp.GiftFulfiller{Issue: adapters.IssueGifts})
	a.orders.Register(order.KindOneOff, iapp.OneOffFulfiller{})
	a.srv.GatewayOptions(ports.GatewayOptions()...)
	a.srv.Ready().Require("database")
	a.srv.Ready().Require("catalogue")
	purchases := iapp.NewPurchases(svc, store)
	checkoutv1.RegisterCheckoutServiceServer(a.srv.GRPC(), ports.NewGRPC(svc, cfg.Auth.TrustedProxies).WithPurchases(purchases).WithPaymentMethods(adapters.NewPaymentsClient(payConn)))
	a.srv.Gateway(func(ctx context.Context, mux *runtime.ServeMux, conn *grpc.ClientConn) error {
		return checkoutv1.RegisterCheckoutServiceHandler(ctx, mux, conn)
	})
	return a, nil
}

// installAuth puts the shared CSRF check and session resolution in front of every route.
// Without IDENTITY_ADDR every request is anonymous (sessions cannot be resolved), which is
// what a checkout running alone in a test needs; CSRF is enforced either way.
func (a *App) installAuth(tp trace.TracerProvider) error {
	var resolver auth.Resolver = auth.ResolverFunc(func(context.Context, string) (auth.Caller, error) {
		return auth.Caller{}, errs.E(errs.Unauthorized, "sessions are not resolved: IDENTITY_ADDR is unset")
	})
	if a.cfg.Auth.IdentityAddr != "" {
		conn, err := kitclient.Dial(a.cfg.Auth.IdentityAddr, adapters.IdentityKit(a.deps.Registry), tp, a.deps.Propagator)
		if err != nil {
			return fmt.Errorf("dial identity %s: %w", a.cfg.Auth.IdentityAddr, err)
		}
		a.identity = conn
		resolver = auth.RemoteResolver(a.cfg.Auth, conn)
	}
	auth.Install(a.srv, auth.Options{Resolver: resolver, CSRF: auth.CSRFConfig{AllowedOrigins: a.cfg.Auth.AllowedOrigins}})
	return nil
}

// Listen binds the listeners (so callers can read Addrs before Run).
func (a *App) Listen() error { return a.srv.Listen() }

// Addrs answers the bound gRPC, HTTP and admin addresses.
func (a *App) Addrs() (grpcAddr, httpAddr, adminAddr string) { return a.srv.Addrs() }

// Handler is the public REST handler, for in-process callers (the dev edge).
func (a *App) Handler() http.Handler { return a.srv.Handler() }

// Ready reports whether the service is ready for traffic.
func (a *App) Ready() bool { return a.srv.Ready().Ok() }

// Run serves until ctx ends. The database and the catalogue are brought up in the
// background: until both are there /readyz says why not, and the service keeps retrying.
func (a *App) Run(ctx context.Context) error {
	defer a.pool.Close()
	defer a.conn.Close()
	defer a.payments.Close()
	if a.identity != nil {
		defer a.identity.Close()
	}
	defer func() { _ = a.shutdown(context.WithoutCancel(ctx)) }()
	go a.startData(ctx)
	go a.startCatalogue(ctx)
	return a.srv.Run(ctx)
}

func (a *App) startData(ctx context.Context) {
	ready := a.srv.Ready()
	report := func(reason string) { ready.Set("database", reason) }
	if !db.Bootstrap(ctx, a.log, a.pool, a.cfg.Database, report, a.prepareData) {
		return // shutting down
	}
	go kafka.RunRelay(ctx, a.cfg.Brokers, a.pool, a.deps.Propagator, a.log, kafka.WithRelayMetrics(a.deps.Registry), kafka.WithRelayTracer(a.deps.Tracer))
	a.orders.RunReconciler(ctx, a.cfg.ReconcileInterval)
}

// Orders is the order pipeline (tests reconcile through it).
func (a *App) Orders() *order.Pipeline { return a.orders }

// afterCharge is the crash-injection seam of the order pipeline; only tests set it.
var afterCharge func(key string) error

// SetAfterChargeForTest makes every submit fail between the charge and the write, as if
// the process died there (crash-injection tests). Not for production use.
func SetAfterChargeForTest(f func(key string) error) { afterCharge = f }

func (a *App) prepareData(ctx context.Context) error {
	if err := db.Migrate(ctx, a.pool, adapters.Migrations, "migrations", a.log); err != nil {
		return err
	}
	if a.cfg.DevSeed {
		if err := adapters.Seed(ctx, a.store, time.Now()); err != nil {
			return err
		}
		a.log.InfoContext(ctx, "development data seeded (see services/checkout/README.md)")
	}
	return a.svc.RefreshPromotions(ctx)
}

func (a *App) startCatalogue(ctx context.Context) {
	ready := a.srv.Ready()
	wait := 200 * time.Millisecond
	for ctx.Err() == nil {
		fctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		ok, err := a.svc.RefreshCatalog(fctx)
		cancel()
		if ok {
			ready.Set("catalogue", "")
			break
		}
		ready.Set("catalogue", "waiting for the catalog service")
		a.log.WarnContext(ctx, "catalogue not loaded yet; retrying", "err", err.Error(), "retry_in", wait.String())
		sleep(ctx, wait)
		wait = min(wait*2, 5*time.Second)
	}
	a.svc.Watch(ctx, a.cfg.RefreshInterval)
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
