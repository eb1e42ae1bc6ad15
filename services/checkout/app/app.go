// Package app assembles the checkout service: configuration, telemetry, its database, the
// catalogue copied from the catalog service and kept in memory, and its gRPC, REST and
// admin listeners. main, the dev runner and the end-to-end tests build the same App.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"

	checkoutv1 "github.com/hangar/hangar/gen/go/hangar/checkout/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/fault"
	"github.com/hangar/hangar/internal/platform/human"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/kitclient"
	"github.com/hangar/hangar/internal/platform/ratelimit"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/checkout/internal/adapters"
	iapp "github.com/hangar/hangar/services/checkout/internal/app"
	"github.com/hangar/hangar/services/checkout/internal/domain/rules"
	"github.com/hangar/hangar/services/checkout/internal/domain/tax"
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
	SalesContact    string        `env:"CHECKOUT_SALES_CONTACT" required:"true" format:"email" dev:"sales@hangar.example" doc:"the sales contact named in messages to buyers; required outside development mode"`
	VATRegister     string        `env:"CHECKOUT_VAT_REGISTER" default:"" doc:"the register EU VAT IDs are checked in beyond their format: vies (the European Commission's VIES, CHECKOUT_VIES_URL), dev (the development register, make dev and the tests: every well-formed number not ending in 000000), or empty (the format only)"`
	VIESURL         string        `env:"CHECKOUT_VIES_URL" default:"https://ec.europa.eu/taxation_customs/vies/rest-api" doc:"VIES REST service (CHECKOUT_VAT_REGISTER=vies)"`
	VIESTimeout     time.Duration `env:"CHECKOUT_VIES_TIMEOUT" default:"3s" doc:"deadline of one VIES request; past it the VAT ID is not counted (VAT charged) and the buyer told to try again"`
	QuoteKey        string        `env:"CHECKOUT_QUOTE_KEY" secret:"true" dev:"dev-only-quote-key" doc:"secret signing quote ids, from a Secret; required outside development mode (HANGAR_DEV_MODE)"`
	// ReceiptKeys sign the receipt cookies (iapp.ReceiptKeys): their own keys, rotated by id.
	// Gift certificate caps (issues 26, 41), in USD minor units: an order in another currency
	// is converted with the catalogue's rate.
	GiftOrderCap int64    `env:"CHECKOUT_GIFT_ORDER_CAP" default:"200000" doc:"most one gift certificate order may total, in USD minor units (200000: $2,000.00; another currency converted with the catalogue's rate); 0: no cap"`
	GiftDayCap   int64    `env:"CHECKOUT_GIFT_DAY_CAP" default:"500000" doc:"most each of a gift order's paying card, buyer e-mail, recipient e-mail, session and client address (IPv6: its /64) may buy in gift certificates per UTC day, in USD minor units over every currency (500000: $5,000.00), reserved for all of them before the charge; 0: no cap"`
	ReceiptKeys  []string `env:"CHECKOUT_RECEIPT_KEYS" secret:"true" dev:"dev=hangar-dev-receipt-key-not-for-production" doc:"keys of receipt access tokens as id=secret,id2=secret2 (the first signs, all verify: put a new key first and keep the old until its links lapse), from a Secret; required outside development mode"`
	// The seller printed on receipts and invoices (their PDF and print): the deployment's
	// own company, so no default outside development mode (issue 31).
	SellerName    string        `env:"CHECKOUT_SELLER_NAME" required:"true" dev:"Hangar Aviation Software Ltd (development)" doc:"the seller's name printed on receipts and invoices; required outside development mode"`
	SellerAddress string        `env:"CHECKOUT_SELLER_ADDRESS" required:"true" dev:"1 Runway Road;Dublin D02 X285;Ireland" doc:"the seller's postal address printed on receipts and invoices (one line, or lines separated by ';'); required outside development mode"`
	SellerVAT     string        `env:"CHECKOUT_SELLER_VAT" required:"true" dev:"IE0000000XX" doc:"the seller's EU VAT number printed on receipts and invoices (country prefix and number, e.g. IE1234567T); required outside development mode"`
	CodeAttempts  int           `env:"CHECKOUT_CODE_ATTEMPTS" default:"10" doc:"promo/gift code attempts allowed per client and per account in each window; 0 disables the limit"`
	CodeWindow    time.Duration `env:"CHECKOUT_CODE_WINDOW" default:"1m" doc:"the window of CHECKOUT_CODE_ATTEMPTS"`
	// PromotionsPerOrder is the stacking rule: how many promotions one order takes.
	PromotionsPerOrder int `env:"CHECKOUT_PROMOTIONS_PER_ORDER" default:"1" doc:"how many promotions one order takes (the first that apply, in the order entered); 1: promotions do not stack"`
	// DeeplinkAllow lists where deeplinkOnSuccess may send a buyer after payment.
	DeeplinkAllow []string `env:"CHECKOUT_DEEPLINK_ALLOW" default:"hangar:" doc:"where deeplinkOnSuccess may go after payment (comma list): an app scheme (hangar:) or an https host (https://app.example); any other link is dropped and logged"`
	// RecaptchaRequired makes validate ask for the human-verification value.
	RecaptchaRequired bool `env:"CHECKOUT_RECAPTCHA_REQUIRED" default:"false" doc:"validation requires the human-verification value (recaptchaValue)"`
	// RecaptchaSecret, when set, verifies the value with Google's siteverify; unset, a
	// development verifier takes any non-empty value.
	RecaptchaSecret   string        `env:"CHECKOUT_RECAPTCHA_SECRET" secret:"true" secretWhen:"CHECKOUT_RECAPTCHA_REQUIRED" dev:"" doc:"Google reCAPTCHA secret key, from a Secret; required with CHECKOUT_RECAPTCHA_REQUIRED outside development mode; empty in development: a development verifier accepts any non-empty value"`
	RecaptchaURL      string        `env:"CHECKOUT_RECAPTCHA_URL" default:"https://www.google.com/recaptcha/api/siteverify" doc:"Google reCAPTCHA siteverify endpoint"`
	RecaptchaSiteKey  string        `env:"CHECKOUT_RECAPTCHA_SITE_KEY" default:"" doc:"the widget's public site key, sent to the pages (GET /buy/api/human-verification)"`
	RecaptchaScript   string        `env:"CHECKOUT_RECAPTCHA_SCRIPT_URL" default:"https://www.google.com/recaptcha/api.js" doc:"the widget's script the pages load (make dev: the development verifier's, on the store's origin)"`
	RecaptchaTimeout  time.Duration `env:"CHECKOUT_RECAPTCHA_TIMEOUT" default:"3s" doc:"deadline of one reCAPTCHA verification"`
	RecaptchaMinScore float64       `env:"CHECKOUT_RECAPTCHA_MIN_SCORE" default:"0" doc:"lowest reCAPTCHA v3 score taken for a human; 0: the score is not checked (v2)"`
	PaymentsAddr      string        `env:"PAYMENTS_ADDR" default:"127.0.0.1:9093" doc:"gRPC address of the payments service (submit charges through it)"`
	GeoAddr           string        `env:"GEO_ADDR" default:"" doc:"gRPC address of the geo service: the default currency of a visitor without one (cookie, then location); unset: USD"`
	GeoTimeout        time.Duration `env:"CHECKOUT_GEO_TIMEOUT" default:"150ms" doc:"deadline of one geo lookup (tried twice); past it a visitor without a currency gets USD"`
	ReconcileInterval time.Duration `env:"CHECKOUT_RECONCILE_INTERVAL" default:"30s" doc:"how often interrupted submits (charged, not written) are completed or refunded"`
	SubmitLease       time.Duration `env:"CHECKOUT_SUBMIT_LEASE" default:"10s" doc:"how long a submit keeps its idempotency key without renewing it (it renews every third of it while it runs); a retry of the key or the reconciler takes over a dead request's key after it"`
	// AllocationAddr is the allocation service, which owns who holds which licence.
	AllocationAddr    string        `env:"ALLOCATION_ADDR" default:"" doc:"gRPC address of the allocation service (tail allocations, add-ons allocated to users); unset: subscriptions have no allocations (checkout alone)"`
	AllocationTimeout time.Duration `env:"CHECKOUT_ALLOCATION_TIMEOUT" default:"2s" doc:"how long a preview waits for the allocation service before pricing without it (pooled add-ons locked, notice ALLOCATIONS_UNAVAILABLE)"`
	Renewal           RenewalConfig
	// Features is the deployment's feature flags, the same list the pages get in
	// /config.json (web/tools/assemble-site.mjs reads the same variable).
	Features []string `env:"HANGAR_FEATURES" default:"one-off-purchases" doc:"feature flags on (comma list); without one-off-purchases the one-off cart routes answer 404"`
}

// RenewalConfig configures the renewal engine (issue 17; services/checkout/README.md).
type RenewalConfig struct {
	Interval    time.Duration `env:"CHECKOUT_RENEWAL_INTERVAL" default:"1m" doc:"how often every replica runs the renewal scheduler (one at a time holds its advisory lock); 0 disables the scheduler and the renewal workers"`
	Window      time.Duration `env:"CHECKOUT_RENEWAL_WINDOW" default:"0s" doc:"renew terms ending before now + window (0: at term end)"`
	Retries     []string      `env:"CHECKOUT_RENEWAL_RETRIES" default:"24h,72h,120h,168h" doc:"retries after a declined renewal, counted from the first decline; after the last one the subscription lapses"`
	OutageRetry time.Duration `env:"CHECKOUT_RENEWAL_OUTAGE_RETRY" default:"10m" doc:"when a renewal that met a processor outage or timeout is tried again (not a decline)"`
	Lease       time.Duration `env:"CHECKOUT_RENEWAL_LEASE" default:"15s" doc:"how long a worker owns a renewal it claimed without renewing it (it renews every third of it while it works; longer than CHECKOUT_SUBMIT_LEASE)"`
	Poll        time.Duration `env:"CHECKOUT_RENEWAL_POLL" default:"30s" doc:"how often an idle renewal worker looks for due renewals: what falls due as time passes, another replica's, a dead worker's once its lease ended (what this replica's scheduler records and a payment-method update's retry wake the workers at once)"`
	Reminder    time.Duration `env:"CHECKOUT_RENEWAL_REMINDER" default:"720h" doc:"reminder e-mail this long before an annual renewal (negative: none)"`
	CardNotice  time.Duration `env:"CHECKOUT_RENEWAL_CARD_NOTICE" default:"720h" doc:"notice this long before a renewal when the stored card expires first (negative: none)"`
	Workers     int           `env:"CHECKOUT_RENEWAL_WORKERS" default:"2" doc:"renewal workers per replica (each claims due renewals from the renewals table)"`
	Batch       int           `env:"CHECKOUT_RENEWAL_BATCH" default:"1000" doc:"rows per scheduler transaction"`
	AccountURL  string        `env:"CHECKOUT_ACCOUNT_URL" default:"/account" doc:"the page the dunning e-mails link to (payment-method update, auto-renew)"`
}

// Options answers the renewal options (Retries parsed).
func (c RenewalConfig) Options() (iapp.RenewalOptions, error) {
	o := iapp.RenewalOptions{Window: c.Window, OutageRetry: c.OutageRetry, Lease: c.Lease, ReminderBefore: c.Reminder,
		CardNoticeBefore: c.CardNotice, Batch: c.Batch, ActionURL: c.AccountURL, Retries: []time.Duration{}}
	for _, r := range c.Retries {
		d, err := time.ParseDuration(r)
		if err != nil || d <= 0 {
			return o, fmt.Errorf("CHECKOUT_RENEWAL_RETRIES: %q is not a positive duration", r)
		}
		o.Retries = append(o.Retries, d)
	}
	return o, nil
}

// LoadConfig reads Config from the environment.
func LoadConfig() (Config, error) {
	var c Config
	err := config.Load(&c)
	config.ServiceDefaults(Name, &c.Platform, &c.Database)
	if err == nil {
		err = checkSellerVAT(c.SellerVAT)
	}
	if err == nil {
		err = checkVATRegister(c.VATRegister)
	}
	if err == nil && c.RecaptchaRequired && c.RecaptchaSecret != "" && strings.TrimSpace(c.RecaptchaSiteKey) == "" {
		// Verified by the provider, yet no widget to tick: every card payment would be refused.
		err = errors.New("CHECKOUT_RECAPTCHA_SITE_KEY is required with CHECKOUT_RECAPTCHA_REQUIRED and CHECKOUT_RECAPTCHA_SECRET: the pages show the widget with it")
	}
	return c, err
}

// checkVATRegister refuses an unknown register, and the development one outside
// development mode (it knows every well-formed number).
func checkVATRegister(name string) error {
	switch name {
	case "", "vies":
		return nil
	case "dev":
		if dev, err := config.DevMode(os.LookupEnv); err != nil || !dev {
			return errors.New("CHECKOUT_VAT_REGISTER=dev is the development register: use vies (or empty, the format only) outside development mode")
		}
		return nil
	}
	return fmt.Errorf("CHECKOUT_VAT_REGISTER=%q: vies, dev or empty", name)
}

// checkSellerVAT refuses a seller VAT number without the EU shape: the prefix of a member
// state (EL for Greece) and the number the buyers' VAT ids are held to (tax.ValidBusinessIDFormat).
func checkSellerVAT(vat string) error {
	id := strings.ToUpper(strings.NewReplacer(" ", "", ".", "", "-", "").Replace(vat))
	if len(id) >= 2 {
		country := id[:2]
		if country == "EL" {
			country = "GR"
		}
		if tax.IsEUCountry(country) && tax.ValidBusinessIDFormat(id, country) {
			return nil
		}
	}
	return fmt.Errorf("config: CHECKOUT_SELLER_VAT=%q is not an EU VAT number (a member state's prefix and 2 to 12 letters or digits, e.g. IE1234567T)", vat)
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
	alloc    *grpc.ClientConn // nil without ALLOCATION_ADDR
	geo      *grpc.ClientConn // nil without GEO_ADDR
	orders   *order.Pipeline
	renewer  *iapp.Renewer
	renewals *adapters.Renewals
	deps     server.Deps
	shutdown func(context.Context) error
	// catalogLoaded is closed once the first catalogue is in memory.
	catalogLoaded chan struct{}
}

// EmailLookupLimit throttles, per client address, the look-ups that tell a stranger
// something of an e-mail's account (GET /buy/api/currency?email=, POST
// /buy/api/currency/validate by e-mail, gift validation with an e-mail, and invoice
// validation of an anonymous buyer's e-mail): the rule of identity's isbusiness
// (identity.AnonymousLimits). Bursts a person needs pass; a script is refused with 429
// and Retry-After.
var EmailLookupLimit = ratelimit.Rule{Every: 2 * time.Second, Burst: 30}

// Option changes how New builds the App (tests).
type Option func(*options)

type options struct {
	afterCharge func(key string) error
}

// WithAfterCharge makes every submit run f between the charge and the write; an error
// fails the submit there, as if the process died (crash-injection tests).
func WithAfterCharge(f func(key string) error) Option {
	return func(o *options) { o.afterCharge = f }
}

// New builds the service; logs go to logOut.
func New(ctx context.Context, cfg Config, logOut io.Writer, with ...Option) (*App, error) {
	var o options
	for _, f := range with {
		f(&o)
	}
	config.ServiceDefaults(Name, &cfg.Platform, &cfg.Database)
	deps, shutdown, err := server.NewDeps(ctx, cfg.Platform, logOut)
	if err != nil {
		return nil, err
	}
	log, tp := deps.Logger, deps.Tracer
	// The connection budget's size (db.ServiceBudget) unless DATABASE_MAX_CONNS sets one:
	// an order is about five transactions here, two of them commits that wait for the WAL
	// flush, so the pool is sized for group commit rather than for the cores.
	cfg.Database.DefaultPool(db.ServiceBudget(Name).Max)
	pool, err := db.Open(ctx, cfg.URL, cfg.MaxConns, db.IdleAfter(cfg.IdleTimeout))
	if err != nil {
		return nil, err
	}
	if err := db.RegisterPool(deps.Registry, pool, "main"); err != nil {
		return nil, err
	}
	if err := announceTaxRates(log, deps.Registry); err != nil {
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
	a := &App{cfg: cfg, log: log, pool: pool, conn: conn, payments: payConn, store: store, deps: deps, shutdown: shutdown, catalogLoaded: make(chan struct{})}
	a.srv = server.New(cfg.ServiceName, cfg.Platform, deps)
	if err := a.installAuth(tp); err != nil {
		pool.Close()
		return nil, err
	}
	if cfg.QuoteKey == "" {
		pool.Close()
		return nil, errors.New("CHECKOUT_QUOTE_KEY is not set")
	}
	receiptKeys, err := iapp.ParseReceiptKeys(cfg.ReceiptKeys)
	if err != nil {
		pool.Close()
		return nil, err
	}
	orderMetrics, err := order.NewMetrics(deps.Registry)
	if err != nil {
		return nil, err
	}
	crash := o.afterCharge
	if crash == nil {
		crash = fault.Point(fault.CheckoutAfterCharge) // the chaos run's, dev mode only
	}
	payClient := adapters.NewPaymentsClient(payConn)
	a.orders = order.NewPipeline(adapters.NewOrderStore(pool, deps.Propagator), payClient, log, order.Options{Lease: cfg.SubmitLease, AfterCharge: crash, Metrics: orderMetrics})
	opts := iapp.Options{
		Rules: rules.Rules{SalesContact: cfg.SalesContact, RecaptchaRequired: cfg.RecaptchaRequired}, QuoteKey: []byte(cfg.QuoteKey), ReceiptKeys: receiptKeys,
		GiftCaps:     iapp.GiftCaps{Order: cfg.GiftOrderCap, Day: cfg.GiftDayCap, Spend: store, Cards: payClient},
		CodeAttempts: cfg.CodeAttempts, CodeWindow: cfg.CodeWindow, Orders: a.orders, Subs: store, PromotionsPerOrder: cfg.PromotionsPerOrder,
		SellerCountry: tax.SellerCountry(cfg.SellerVAT),
		VATRegistry:   vatRegistry(cfg),
		// Shared by every replica in checkout's database (rate_limits, where the code limit
		// counts too), as identity's isbusiness limit is in its own.
		Lookups: ratelimit.NewShared("email-lookup", EmailLookupLimit, time.Now, store.PostgreSQL, log),
	}
	if opts.Deeplinks, err = iapp.ParseDeeplinks(cfg.DeeplinkAllow); err != nil {
		pool.Close()
		return nil, err
	}
	opts.AccountURL = cfg.Renewal.AccountURL // the auto-renew confirmations link where the dunning e-mails do
	if a.identity != nil {
		ic := adapters.NewIdentityClient(a.identity)
		opts.Accounts, opts.Eligibility = ic, ic
	}
	if cfg.AllocationAddr != "" {
		a.alloc, err = kitclient.Dial(cfg.AllocationAddr, adapters.AllocationKit(deps.Registry, cfg.AllocationTimeout), tp, deps.Propagator)
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("dial allocation %s: %w", cfg.AllocationAddr, err)
		}
		opts.Allocations = adapters.NewAllocationClient(a.alloc, cfg.AllocationTimeout)
	} else {
		log.WarnContext(ctx, "ALLOCATION_ADDR is unset: subscriptions are priced without allocations")
	}
	if cfg.RecaptchaRequired {
		opts.Verifier = iapp.DevVerifier{}
		opts.Widget = iapp.HumanWidget{SiteKey: cfg.RecaptchaSiteKey, ScriptURL: cfg.RecaptchaScript}
		if cfg.RecaptchaSecret != "" {
			opts.Verifier = human.NewRecaptcha(human.RecaptchaConfig{Secret: cfg.RecaptchaSecret, URL: cfg.RecaptchaURL,
				Timeout: cfg.RecaptchaTimeout, MinScore: cfg.RecaptchaMinScore, Registry: deps.Registry})
		} else {
			log.WarnContext(ctx, "CHECKOUT_RECAPTCHA_REQUIRED without CHECKOUT_RECAPTCHA_SECRET: the development verifier accepts any value")
		}
	}
	if cfg.GeoAddr != "" {
		geoConn, err := kitclient.Dial(cfg.GeoAddr, adapters.GeoKit(deps.Registry, cfg.GeoTimeout), tp, deps.Propagator)
		if err != nil {
			pool.Close()
			return nil, fmt.Errorf("dial geo %s: %w", cfg.GeoAddr, err)
		}
		a.geo = geoConn
		opts.Geo = adapters.NewGeoClient(geoConn)
	}
	svc := iapp.New(store, adapters.NewCatalogClient(conn), log, opts)
	a.svc = svc
	a.orders.LinkReceipts(svc.ReceiptLink)
	a.orders.Register(order.KindSubscription, iapp.SubscriptionFulfiller{Catalog: svc.Catalog})
	a.orders.Register(order.KindGift, iapp.GiftFulfiller{})
	a.orders.Register(order.KindOneOff, iapp.OneOffFulfiller{})
	ro, err := cfg.Renewal.Options()
	if err != nil {
		return nil, err
	}
	if ro.Metrics, err = iapp.NewRenewalMetrics(deps.Registry); err != nil {
		return nil, err
	}
	a.renewals = adapters.NewRenewals(pool, deps.Propagator)
	ro.Reader = store
	a.renewer = iapp.NewRenewer(svc, a.renewals, log, ro)
	a.srv.GatewayOptions(ports.GatewayOptions()...)
	a.srv.EmitDefaults(ports.FullAnswers()...)
	a.srv.Ready().Require("database")
	a.srv.ProbeReady("database", db.Probe(pool), db.LostDatabase(pool)) // a database lost later makes the service unready again
	a.srv.Ready().Require("catalogue")
	purchases := iapp.NewPurchases(svc, store, slices.Contains(cfg.Features, iapp.FlagOneOff))
	seller := ports.Seller{Name: cfg.SellerName, Address: strings.ReplaceAll(cfg.SellerAddress, ";", "\n"), VAT: cfg.SellerVAT}
	checkoutv1.RegisterCheckoutServiceServer(a.srv, ports.NewGRPC(svc, cfg.Auth.TrustedProxies).WithPurchases(purchases).WithPaymentMethods(adapters.NewPaymentsClient(payConn)).
		WithRenewals(a.renewer.Account()).WithSeller(seller))
	ports.ReceiptHTTP{Svc: svc, Seller: seller}.Install(a.srv)
	a.srv.Gateway(func(ctx context.Context, mux *runtime.ServeMux, conn grpc.ClientConnInterface) error {
		return checkoutv1.RegisterCheckoutServiceHandlerClient(ctx, mux, checkoutv1.NewCheckoutServiceClient(conn))
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
	// The buyer's address and session go with checkout's charges to payments, whose
	// card-testing rule counts declines by them (adapters.PaymentsClient).
	a.srv.UseUnary(auth.ClientInterceptor(a.cfg.Auth.TrustedProxies))
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
	if a.alloc != nil {
		defer a.alloc.Close()
	}
	if a.geo != nil {
		defer a.geo.Close()
	}
	defer func() { _ = a.shutdown(context.WithoutCancel(ctx)) }()
	// The data start-up, the catalogue and every worker they start run in the server's
	// run group: Run returns (and the pools and connections above close) after they have.
	a.srv.Go(a.startData)
	a.srv.Go(a.startCatalogue)
	return a.srv.Run(ctx)
}

func (a *App) startData(ctx context.Context) {
	ready := a.srv.Ready()
	report := func(reason string) { ready.Set("database", reason) }
	if !db.Bootstrap(ctx, a.log, a.pool, a.cfg.Database, report, a.prepareData) {
		return // shutting down
	}
	a.srv.Go(func(ctx context.Context) {
		kafka.RunRelay(ctx, a.cfg.Brokers, a.pool, a.deps.Propagator, a.log, kafka.WithRelayMetrics(a.deps.Registry), kafka.WithRelayTracer(a.deps.Tracer))
	})
	a.srv.Go(a.runRenewals)
	a.orders.RunReconciler(ctx, a.cfg.ReconcileInterval)
}

// runRenewals runs the renewal engine of this replica: the scheduler (every replica; the
// advisory lock lets one record at a time), the renewal workers (claiming due rows of the
// renewals table, shared by every replica), and the consumer of payments'
// payment-method updates (without brokers, none).
func (a *App) runRenewals(ctx context.Context) {
	rc := a.cfg.Renewal
	if rc.Interval <= 0 {
		return
	}
	// The catalogue prices the renewals: wait for it.
	select {
	case <-a.catalogLoaded:
	case <-ctx.Done():
		return
	}
	a.srv.Go(func(ctx context.Context) { a.renewer.RunWorkers(ctx, rc.Workers, rc.Poll) })
	if len(a.cfg.Brokers) == 0 {
		a.log.WarnContext(ctx, "KAFKA_BROKERS unset: payment-method updates are not consumed")
	} else {
		cc := kafka.ConsumerConfig{Brokers: a.cfg.Brokers, Pool: a.pool, Log: a.log, Tracer: a.deps.Tracer, Propagator: a.deps.Propagator,
			Registry: a.deps.Registry, CommitInterval: a.cfg.CommitInterval}
		c := ports.PaymentMethodUpdates{Renewer: a.renewer, Store: a.renewals}.Consumer(cc)
		a.srv.Go(func(ctx context.Context) { kafka.KeepRunning(ctx, a.log, "renewal", c) })
	}
	a.renewer.RunScheduler(ctx, rc.Interval)
}

// Renewer is the renewal engine (tests drive it).
func (a *App) Renewer() *iapp.Renewer { return a.renewer }

// Orders is the order pipeline (tests reconcile through it).
func (a *App) Orders() *order.Pipeline { return a.orders }

func (a *App) prepareData(ctx context.Context) error {
	if err := db.Schema(ctx, a.pool, a.cfg.Database, adapters.Migrations, "migrations", a.log); err != nil {
		return err
	}
	if a.cfg.DevSeed {
		// The seed's subscription-changed events are built with the catalogue, as an order's
		// are, so the allocation service files the same pools for both.
		select {
		case <-a.catalogLoaded:
		case <-ctx.Done():
			return ctx.Err()
		}
		cat, err := a.svc.Catalog()
		if err != nil {
			return err
		}
		if err := iapp.SeedDemo(ctx, a.store, time.Now(), cat); err != nil {
			return err
		}
		a.log.InfoContext(ctx, "development data seeded (see services/checkout/README.md)")
	}
	return a.svc.RefreshPromotions(ctx)
}

func (a *App) startCatalogue(ctx context.Context) {
	ready := a.srv.Ready()
	_, err := backoff.Retry(ctx, func() (bool, error) {
		fctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if ok, err := a.svc.RefreshCatalog(fctx); !ok {
			return false, err
		}
		return true, nil // loaded, even when a later refresh of it failed
	}, backoff.WithBackOff(&backoff.ExponentialBackOff{InitialInterval: 200 * time.Millisecond, Multiplier: 2, MaxInterval: 5 * time.Second}),
		backoff.WithMaxElapsedTime(0), backoff.WithNotify(func(err error, next time.Duration) {
			ready.Set("catalogue", "waiting for the catalog service")
			a.log.WarnContext(ctx, "catalogue not loaded yet; retrying", "err", err.Error(), "retry_in", next.String())
		}))
	if err == nil {
		ready.Set("catalogue", "")
		close(a.catalogLoaded)
	}
	a.svc.Watch(ctx, a.cfg.RefreshInterval)
}

// vatRegistry answers the register CHECKOUT_VAT_REGISTER names (nil: the format only).
func vatRegistry(cfg Config) iapp.VATRegistry {
	switch cfg.VATRegister {
	case "vies":
		return adapters.NewVIES(cfg.VIESURL, cfg.VIESTimeout)
	case "dev":
		return iapp.DevVATRegistry{}
	}
	return nil
}
