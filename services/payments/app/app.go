// Package app assembles the payments service: configuration, telemetry, its database,
// the card processor (the built-in sandbox, its state in the same database), the outbox
// relay, the shared request security (CSRF and sessions through identity) and its gRPC,
// REST and admin listeners, and the fields origin's listener (the hosted card fields and
// tokenisation, docs/pci-saq-a.md). main, the dev runner and the end-to-end tests build the same App.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"golang.org/x/sync/errgroup"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc"

	paymentsv1 "github.com/hangar/hangar/gen/go/hangar/payments/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/human"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/kitclient"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/payments/internal/adapters"
	iapp "github.com/hangar/hangar/services/payments/internal/app"
	"github.com/hangar/hangar/services/payments/internal/domain"
	"github.com/hangar/hangar/services/payments/internal/gateway"
	"github.com/hangar/hangar/services/payments/internal/ports"
)

// Name is the service name in logs, traces and metrics.
const Name = "payments"

// FieldsTokenizePath is the fields origin's tokenize route (the dev runner's replica proxy
// may replay it: it stores nothing).
const FieldsTokenizePath = ports.FieldsTokenizePath

// Config is the payments service's configuration, read from the environment.
type Config struct {
	config.Platform
	config.Database
	config.Kafka
	auth.Config

	Gateway         string        `env:"PAYMENTS_GATEWAY" default:"sandbox" doc:"card processor adapter; only the built-in sandbox exists so far"`
	FingerprintKey  string        `env:"PAYMENTS_FINGERPRINT_KEY" secret:"true" dev:"hangar-dev-fingerprint-key-not-for-production" doc:"HMAC key of card fingerprints, from a Secret; required outside development mode (HANGAR_DEV_MODE)"`
	NonceTTL        time.Duration `env:"PAYMENTS_NONCE_TTL" default:"3h" doc:"life of a single-use payment nonce (sandbox)"`
	SalesContact    string        `env:"PAYMENTS_SALES_CONTACT" required:"true" format:"email" dev:"sales@hangar.example" doc:"the sales contact named in 'contact sales' messages; required outside development mode"`
	CardReaders     []string      `env:"PAYMENTS_CARD_READERS" default:"" doc:"serial numbers of the sales-mode card readers"`
	ReaderTimeout   time.Duration `env:"PAYMENTS_READER_TIMEOUT" default:"5m" doc:"how long a card-reader vault request waits for a card"`
	ReaderSimulator bool          `env:"PAYMENTS_READER_SIMULATOR" default:"false" doc:"serve POST /buy/api/card-reader/simulate, a card reader for development (never in production)"`
	DevSeed         bool          `env:"PAYMENTS_DEV_SEED" default:"false" doc:"create the development billing profiles on start (dev only)"`
	// The fields origin (docs/pci-saq-a.md): the hosted card fields and tokenisation, on a
	// listener of their own that nothing of the store's is served on.
	FieldsAddr      string `env:"PAYMENTS_FIELDS_ADDR" default:":8081" doc:"listen address of the fields origin: the hosted card-fields page, its assets and POST /api/tokenize (the store's origin serves none of them)"`
	FieldsOrigin    string `env:"PAYMENTS_FIELDS_ORIGIN" default:"" doc:"the fields origin's public URL (https://pay.store.example); the client token names it, the store's pages frame it, its tokenize accepts browser requests from it only; empty: the request's own host (tests)"`
	SandboxMaxConns int    `env:"PAYMENTS_SANDBOX_MAX_CONNS" default:"0" doc:"0: the connection budget's (db.ServiceBudget); pool size of the sandbox processor's own connections to DATABASE_URL (separate from the charges' pool, which holds a connection while it calls the processor)"`
	// The card-testing rule (issue 26; services/payments/README.md, Card testing).
	VelocityDeclines int           `env:"PAYMENTS_VELOCITY_DECLINES" default:"5" doc:"declined card attempts one client address (IPv6: its /64), session or card — or an account or e-mail through its own session — may make in PAYMENTS_VELOCITY_WINDOW before its card attempts (tokenize, charges, verifications) answer 429 until the window ends; 0: no limit"`
	VelocityWindow   time.Duration `env:"PAYMENTS_VELOCITY_WINDOW" default:"10m" doc:"the window of PAYMENTS_VELOCITY_DECLINES"`
	VelocityHuman    int           `env:"PAYMENTS_VELOCITY_HUMAN_DECLINES" default:"0" doc:"declines a subject may make in the window with attempts that passed human verification (checkout's card payments, the payment-method update, the card reader, when human verification is on) before they too answer 429; past PAYMENTS_VELOCITY_DECLINES such attempts go on until this many; 0 or at most PAYMENTS_VELOCITY_DECLINES: none go on"`
	// Human verification (reCAPTCHA) of the payment-method update and the card reader.
	RecaptchaRequired bool          `env:"PAYMENTS_RECAPTCHA_REQUIRED" default:"false" doc:"the payment-method update (a card or wallet) and the card-reader vault need the human-verification value (recaptchaValue), as checkout's card payments do"`
	RecaptchaSecret   string        `env:"PAYMENTS_RECAPTCHA_SECRET" secret:"true" secretWhen:"PAYMENTS_RECAPTCHA_REQUIRED" dev:"" doc:"Google reCAPTCHA secret key, from a Secret; required with PAYMENTS_RECAPTCHA_REQUIRED outside development mode; empty in development: a development verifier accepts any non-empty value"`
	RecaptchaURL      string        `env:"PAYMENTS_RECAPTCHA_URL" default:"https://www.google.com/recaptcha/api/siteverify" doc:"Google reCAPTCHA siteverify endpoint"`
	RecaptchaTimeout  time.Duration `env:"PAYMENTS_RECAPTCHA_TIMEOUT" default:"3s" doc:"deadline of one reCAPTCHA verification"`
	RecaptchaMinScore float64       `env:"PAYMENTS_RECAPTCHA_MIN_SCORE" default:"0" doc:"lowest reCAPTCHA v3 score taken for a human; 0: the score is not checked (v2)"`
	// The processor sweep (issue 30): every capture ends in a charge (and so an order) or a refund.
	SweepInterval    time.Duration `env:"PAYMENTS_SWEEP_INTERVAL" default:"1m" doc:"how often the processor's recent transactions are reconciled with the charges (0: never, tests)"`
	SweepWindow      time.Duration `env:"PAYMENTS_SWEEP_WINDOW" default:"1h" doc:"how far back the whole-window sweep looks, once every window (the sweeps between go over what came since the last)"`
	SweepStartWindow time.Duration `env:"PAYMENTS_SWEEP_START_WINDOW" default:"24h" doc:"how far back the sweep at start-up looks (a replica starting after a crash)"`
	SweepSettle      time.Duration `env:"PAYMENTS_SWEEP_SETTLE" default:"10s" doc:"transactions younger than this are left to the charges still running them"`
	SweepLease       time.Duration `env:"PAYMENTS_SWEEP_LEASE" default:"30s" doc:"the sweep's lease (one replica sweeps at a time; renewed every third of it while it sweeps)"`
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

// Option changes how New builds the App (tests).
type Option func(*options)

type options struct {
	resolver     auth.Resolver
	now          func() time.Time
	afterCapture func(processorKey string) error
}

// WithResolver resolves sessions with r instead of identity over IDENTITY_ADDR.
func WithResolver(r auth.Resolver) Option { return func(o *options) { o.resolver = r } }

// WithClock uses now as the clock (nonce expiry, reader timeouts).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithAfterCapture runs f after the processor answered a charge and before payments
// commits it: an error makes the charge fail there, as if payments died between the
// processor's capture and its own commit (crash-injection tests).
func WithAfterCapture(f func(processorKey string) error) Option {
	return func(o *options) { o.afterCapture = f }
}

// App is a configured, not yet running payments service.
type App struct {
	cfg           Config
	log           *slog.Logger
	srv           *server.Server
	svc           *iapp.Service
	store         *adapters.Store
	pool          *pgxpool.Pool
	sandboxPool   *pgxpool.Pool // the sandbox processor's: charges hold a pool connection while they call it
	deps          server.Deps
	closeIdentity func() error // the identity connection; nil without IDENTITY_ADDR
	shutdown      func(context.Context) error
	fields        http.Handler // the fields origin's handler (ports.Fields with telemetry)
	fieldsLn      net.Listener
}

// New builds the service; logs go to logOut.
func New(ctx context.Context, cfg Config, logOut io.Writer, opts ...Option) (*App, error) {
	config.ServiceDefaults(Name, &cfg.Platform, &cfg.Database)
	o := options{now: time.Now}
	for _, f := range opts {
		f(&o)
	}
	if cfg.Gateway != "sandbox" {
		return nil, fmt.Errorf("PAYMENTS_GATEWAY=%q: only the sandbox gateway exists", cfg.Gateway)
	}
	deps, shutdown, err := server.NewDeps(ctx, cfg.Platform, logOut)
	if err != nil {
		return nil, err
	}
	log := deps.Logger
	// A charge holds its connection for the processor call (duplicates wait on the row
	// instead of racing), and every commit waits for the WAL flush: more connections let
	// PostgreSQL's group commit flush many charges at once.
	cfg.Database.DefaultPool(db.ServiceBudget(Name).Max)
	pool, err := db.Open(ctx, cfg.URL, cfg.MaxConns, db.IdleAfter(cfg.IdleTimeout))
	if err != nil {
		return nil, err
	}
	if err := db.RegisterPool(deps.Registry, pool, "main"); err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, log: log, pool: pool, shutdown: shutdown, deps: deps}

	// identity resolves sessions and answers a child account's group parent (the parent
	// reads the child's payment method); without IDENTITY_ADDR every caller is anonymous.
	resolver := o.resolver
	var parents iapp.Parents
	if cfg.IdentityAddr != "" {
		conn, err := kitclient.Dial(cfg.IdentityAddr, auth.IdentityClient(deps.Registry), deps.Tracer, deps.Propagator)
		if err != nil {
			return nil, fmt.Errorf("dial identity %s: %w", cfg.IdentityAddr, err)
		}
		a.closeIdentity, parents = conn.Close, adapters.NewIdentity(conn)
		if resolver == nil {
			resolver = auth.RemoteResolver(cfg.Config, conn)
		}
	}
	if resolver == nil {
		log.WarnContext(ctx, "no IDENTITY_ADDR: every caller is anonymous")
		resolver = auth.Anonymous
	}
	if cfg.FingerprintKey == "" {
		return nil, errors.New("PAYMENTS_FINGERPRINT_KEY is not set")
	}
	key := cfg.FingerprintKey
	// The sandbox is an external system to payments, shared by every replica: its state is
	// in PostgreSQL (the sandbox_* tables), reached through a pool of its own.
	if cfg.SandboxMaxConns <= 0 {
		cfg.SandboxMaxConns = db.ServiceBudget(Name).Extra
	}
	a.sandboxPool, err = db.Open(ctx, cfg.URL, cfg.SandboxMaxConns, db.IdleAfter(cfg.IdleTimeout))
	if err != nil {
		return nil, err
	}
	if err := db.RegisterPool(deps.Registry, a.sandboxPool, "sandbox"); err != nil {
		return nil, err
	}
	// Labelled as a stand-in (standin.go) inside the crash hook, which is payments' own.
	gw := withCrashHook(o.afterCapture, processorStandin{gateway.NewSandbox(adapters.NewSandboxStore(a.sandboxPool), []byte(key), cfg.NonceTTL, o.now)})
	a.store = adapters.NewStore(pool, deps.Propagator)
	attempts, err := iapp.NewAttemptsMetric(deps.Registry)
	if err != nil {
		return nil, err
	}
	a.svc = iapp.New(a.store, gw, iapp.Policies{SalesContact: cfg.SalesContact, Readers: cfg.CardReaders, ReaderTimeout: cfg.ReaderTimeout,
		Velocity: iapp.VelocityRule{Declines: cfg.VelocityDeclines, HumanDeclines: cfg.VelocityHuman, Window: cfg.VelocityWindow, TrustedProxies: cfg.TrustedProxies},
		Attempts: attempts, SweepLease: cfg.SweepLease,
		Human: human.FromConfig(cfg.RecaptchaRequired, human.RecaptchaConfig{Secret: cfg.RecaptchaSecret, URL: cfg.RecaptchaURL,
			Timeout: cfg.RecaptchaTimeout, MinScore: cfg.RecaptchaMinScore, Registry: deps.Registry})}, o.now, log).WithParents(parents)

	a.srv = server.New(cfg.ServiceName, cfg.Platform, deps)
	a.srv.Ready().Require("database")
	a.srv.ProbeReady("database", db.Probe(pool), db.LostDatabase(pool)) // a database lost later makes the service unready again
	a.srv.EmitDefaults(ports.FullAnswers()...)
	rpc := ports.NewGRPC(a.svc)
	rpc.FieldsURL = strings.TrimRight(cfg.FieldsOrigin, "/") + ports.FieldsPagePath
	paymentsv1.RegisterPaymentsServiceServer(a.srv, rpc)
	a.srv.Gateway(func(ctx context.Context, mux *runtime.ServeMux, conn grpc.ClientConnInterface) error {
		return paymentsv1.RegisterPaymentsServiceHandlerClient(ctx, mux, paymentsv1.NewPaymentsServiceClient(conn))
	})
	a.srv.Handle("GET "+ports.CardImagePath, ports.CardImages{})
	// The fields origin: its own handler, never mounted on the store's (srv's) listener.
	fields, err := ports.NewFields(ports.Fields{Origin: strings.TrimRight(cfg.FieldsOrigin, "/"), ParentOrigins: cfg.AllowedOrigins, Tokenize: rpc.Tokenize, Log: log})
	if err != nil {
		return nil, err
	}
	a.fields = otelhttp.NewHandler(deps.RED.HTTPMiddleware(fields), Name+"-fields",
		otelhttp.WithTracerProvider(deps.Tracer), otelhttp.WithPropagators(deps.Propagator))
	if cfg.ReaderSimulator {
		a.srv.Handle("POST "+ports.SimulatorPath, ports.Simulator{Svc: a.svc})
	}
	auth.Install(a.srv, auth.Options{Resolver: resolver, CSRF: auth.CSRFConfig{AllowedOrigins: cfg.AllowedOrigins}})
	return a, nil
}

// Listen binds the listeners (so callers can read Addrs before Run).
func (a *App) Listen() error {
	if err := a.srv.Listen(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", a.cfg.FieldsAddr)
	if err != nil {
		return fmt.Errorf("listen fields %s: %w", a.cfg.FieldsAddr, err)
	}
	a.fieldsLn = ln
	return nil
}

// Addrs answers the bound gRPC, HTTP and admin addresses.
func (a *App) Addrs() (grpcAddr, httpAddr, adminAddr string) { return a.srv.Addrs() }

// FieldsAddr answers the bound address of the fields origin's listener (after Listen).
func (a *App) FieldsAddr() string { return a.fieldsLn.Addr().String() }

// FieldsHandler is the fields origin's handler (tests; the listener serves it).
func (a *App) FieldsHandler() http.Handler { return a.fields }

// Handler is the public REST handler, for in-process callers (the dev edge).
func (a *App) Handler() http.Handler { return a.srv.Handler() }

// Ready reports whether the service is ready for traffic.
func (a *App) Ready() bool { return a.srv.Ready().Ok() }

// Run serves until ctx ends. The database is brought up in the background (readiness says
// why not meanwhile); the outbox relay runs beside the listeners.
func (a *App) Run(ctx context.Context) error {
	defer a.pool.Close()
	defer a.sandboxPool.Close()
	defer func() { _ = a.shutdown(context.WithoutCancel(ctx)) }()
	if a.closeIdentity != nil {
		defer a.closeIdentity()
	}
	if a.fieldsLn == nil {
		if err := a.Listen(); err != nil {
			return err
		}
	}
	a.srv.Go(a.startData) // in the server's run group: done before the pools close
	fields := &http.Server{Handler: a.fields, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := fields.Serve(a.fieldsLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("fields listener: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		err := a.srv.Run(gctx)
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.ShutdownTimeout)
		defer cancel()
		return errors.Join(err, fields.Shutdown(sctx))
	})
	a.log.Info("serving the fields origin", "addr", a.fieldsLn.Addr().String(), "origin", a.cfg.FieldsOrigin)
	return g.Wait()
}

func (a *App) startData(ctx context.Context) {
	ready := a.srv.Ready()
	report := func(reason string) { ready.Set("database", reason) }
	if !db.Bootstrap(ctx, a.log, a.pool, a.cfg.Database, report, a.prepareData) {
		return // shutting down
	}
	if a.cfg.SweepInterval > 0 {
		// Waited for before returning: the pools close after startData.
		done := make(chan struct{})
		go func() {
			defer close(done)
			a.svc.RunSweeper(ctx, a.cfg.SweepInterval, a.cfg.SweepWindow, a.cfg.SweepStartWindow, a.cfg.SweepSettle)
		}()
		defer func() { <-done }()
	}
	kafka.RunRelay(ctx, a.cfg.Brokers, a.pool, a.deps.Propagator, a.log, kafka.WithRelayMetrics(a.deps.Registry), kafka.WithRelayTracer(a.deps.Tracer))
}

// Sweep reconciles the processor's transactions created in [from, to) with the charges
// (tests drive it instead of waiting for the sweeper).
func (a *App) Sweep(ctx context.Context, from, to time.Time) (adopted, givenBack int, err error) {
	r, err := a.svc.Sweep(ctx, from, to)
	return r.Adopted, r.GivenBack, err
}

func (a *App) prepareData(ctx context.Context) error {
	if err := db.Schema(ctx, a.pool, a.cfg.Database, adapters.Migrations, "migrations", a.log); err != nil {
		return err
	}
	if a.cfg.DevSeed {
		return a.Seed(ctx)
	}
	return nil
}

// DevQuarterlyCheckAccount is the development account billed quarterly by check: it may
// not change its payment method ("contact sales").
const DevQuarterlyCheckAccount = "20000000-0000-4000-8000-000000000001"

// Seed writes the development billing profiles (idempotent).
func (a *App) Seed(ctx context.Context) error {
	_, err := a.svc.SetBillingProfile(ctx, DevQuarterlyCheckAccount, "INVOICE", "QUARTERLY", "")
	if err != nil && errs.CodeOf(err) != errs.Conflict {
		return err
	}
	return a.seedCards(ctx)
}

// DevPilotAccount is the demo pilot (identity's and checkout's seeds use the same id): a
// Visa ending 1111 is on file, so he renews with his stored card.
const DevPilotAccount = "00000000-0000-4000-8000-000000000001"

// DevCardHolders are the development accounts whose seeded subscriptions (checkout's dev
// seed) are paid by card: each has a Visa ending 1111 on file, so a renewal pass over the
// seed charges every one of them (the agency is paid by a third party and has none).
var DevCardHolders = []struct{ Account, Email, Name string }{
	{DevPilotAccount, "pilot@demo.hangar.test", "Pat Pilot"},
	{"00000000-0000-4000-8000-000000000002", "owner@acme.hangar.test", "Avery Owner"},
	{"00000000-0000-4000-8000-000000000003", "pilot@army.mil", "Sam Soldier"},
	{"00000000-0000-4000-8000-000000000004", "hondajet@example.com", "Hana Jet"},
	{"00000000-0000-4000-8000-000000000005", "child@demo.hangar.test", "Chris Child"},
	{"00000000-0000-4000-8000-000000000006", "legacy@example.com", "Lee Legacy"},
}

func (a *App) seedCards(ctx context.Context) error {
	for _, h := range DevCardHolders {
		if err := a.seedCard(ctx, h.Account, h.Email, h.Name); err != nil {
			return fmt.Errorf("seed card of %s: %w", h.Email, err)
		}
	}
	return nil
}

func (a *App) seedCard(ctx context.Context, account, email, name string) error {
	ctx = iapp.NoClient(auth.WithCaller(ctx, auth.Caller{AccountUUID: account, Username: email}))
	if m, err := a.svc.PaymentMethod(ctx, account); err == nil && m.Profile.Token != "" {
		return nil
	}
	n, err := a.svc.Tokenize(ctx, domain.CardInput{Number: "4111111111111111", CVV: "123", ExpirationDate: "12/2030",
		CardholderName: name, PostalCode: "94105"})
	if err != nil {
		return err
	}
	res, err := a.svc.UpdatePaymentMethod(ctx, domain.MethodUpdate{AccountID: account, Nonce: n.Nonce, Zipcode: "94105",
		CardholderName: name, Country: "US"}, "CREDIT_CARD")
	if err != nil {
		return err
	}
	if !res.Succeeded {
		return fmt.Errorf("%v", res.Errors)
	}
	return nil
}
