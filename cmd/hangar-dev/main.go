// Command hangar-dev runs the whole store on one machine for development and browser tests:
// every service in-process on loopback ports, an in-process Kafka-protocol broker (unless
// KAFKA_BROKERS is set), one database per service on the local PostgreSQL (created and
// migrated on start), and the edge on EDGE_ADDR routing the public route table exactly as
// the Ingress does. Ctrl-C stops everything; nothing is left behind to clean up.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/hangar/hangar/internal/devmail"
	"github.com/hangar/hangar/internal/edge"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/kafka"
	allocation "github.com/hangar/hangar/services/allocation/app"
	catalog "github.com/hangar/hangar/services/catalog/app"
	checkout "github.com/hangar/hangar/services/checkout/app"
	geo "github.com/hangar/hangar/services/geo/app"
	identity "github.com/hangar/hangar/services/identity/app"
	notifications "github.com/hangar/hangar/services/notifications/app"
	payments "github.com/hangar/hangar/services/payments/app"
)

// Config is the dev runner's own configuration.
type Config struct {
	EdgeAddr    string   `env:"EDGE_ADDR" default:":8080" doc:"where the edge listens (the store's URL)"`
	RoutesFile  string   `env:"EDGE_ROUTES" default:"deploy/helm/hangar/routes.yaml" doc:"the public route table (shared with the Helm Ingress)"`
	HeadersFile string   `env:"EDGE_HEADERS" default:"deploy/helm/hangar/headers.yaml" doc:"the pages' security headers (shared with the Helm Ingress)"`
	WebDir      string   `env:"WEB_DIST_DIR" default:"web/dist/site" doc:"the web production build served for page routes"`
	PagesFile   string   `env:"WEB_PAGES_FILE" default:"web/apps/shell/src/routes.ts" doc:"the shell's route table: page paths it does not list answer 404"`
	DatabaseURL string   `env:"DATABASE_URL" default:"postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable" doc:"PostgreSQL server; each service gets its own database hangar_<service> on it"`
	DBPrefix    string   `env:"HANGAR_DB_PREFIX" default:"hangar_" doc:"prefix of the per-service database names"`
	KafkaBroker []string `env:"KAFKA_BROKERS" default:"" doc:"external Kafka brokers; unset starts an in-process broker"`
	SMTPAddr    string   `env:"SMTP_ADDR" default:"" doc:"SMTP relay for the notifications service; unset starts the in-process dev mail sink (listed at /-/mail)"`
	LogFormat   string   `env:"LOG_FORMAT" default:"text" doc:"json or text"`
	LogLevel    string   `env:"LOG_LEVEL" default:"info" doc:"debug, info, warn or error"`
	// Multi-process mode (processes.go): each service its own process behind the edge.
	Processes    bool          `env:"HANGAR_DEV_PROCESSES" default:"false" doc:"run each service binary as its own process, the edge proxying over HTTP (kill one to test faults)"`
	ProcessBin   string        `env:"HANGAR_DEV_BIN" default:"bin/dev" doc:"where the multi-process mode builds the service binaries"`
	RestartDelay time.Duration `env:"HANGAR_DEV_RESTART_DELAY" default:"500ms" doc:"multi-process mode: pause before restarting a service process that exited"`
	MailMax      int           `env:"HANGAR_DEV_MAIL_MAX" default:"10000" doc:"multi-process mode: messages the dev mail sink keeps (the chaos run reconciles every one)"`
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	runner := run
	if len(os.Args) > 1 && os.Args[1] == "broker" {
		runner = runBroker
	}
	if err := runner(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "hangar-dev:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	var cfg Config
	if err := config.Load(&cfg); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil)).With("service", "hangar-dev")
	table, err := edge.LoadTable(cfg.RoutesFile)
	if err != nil {
		return err
	}
	headers, err := edge.LoadHeaders(cfg.HeadersFile)
	if err != nil {
		return err
	}

	brokers := cfg.KafkaBroker
	if len(brokers) == 0 {
		b, err := kafka.StartBroker(0)
		if err != nil {
			return err
		}
		defer b.Close()
		brokers = b.Addrs()
		log.Info("in-process Kafka-protocol broker started", "brokers", strings.Join(brokers, ","))
	}

	if cfg.Processes {
		return runProcesses(ctx, cfg, table, headers, brokers, log)
	}

	// Every service gets loopback ports picked by the kernel, so a stale process or a second
	// checkout never collides; the edge learns the addresses directly.
	env := func(service string) config.Lookup {
		dbURL, _ := url.Parse(cfg.DatabaseURL)
		dbURL.Path = "/" + cfg.DBPrefix + service
		over := map[string]string{
			"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0",
			"DATABASE_URL": dbURL.String(), "DATABASE_CREATE": "true",
			"KAFKA_BROKERS": strings.Join(brokers, ","),
			"LOG_FORMAT":    cfg.LogFormat, "LOG_LEVEL": cfg.LogLevel,
			"SHUTDOWN_TIMEOUT": "5s",
			// Shared request security: the edge calls services in-process (no proxy hop), and
			// the store's origin is the edge's.
			"TRUSTED_PROXIES": "0", "ALLOWED_ORIGINS": devOrigins(cfg.EdgeAddr),
			// identity's dev-only part: the demo accounts.
			"IDENTITY_DEV_SEED": "true",
		}
		return func(name string) (string, bool) {
			if v, ok := over[name]; ok {
				return v, true
			}
			return os.LookupEnv(name)
		}
	}

	g, gctx := errgroup.WithContext(ctx)
	var backends []edge.Backend
	var targets scrapeTargets
	// launch binds a built service's listeners, hands it to the edge and runs it; it
	// answers the service's gRPC address for the services that call it.
	launch := func(name string, svc service, err error) (string, error) {
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		if err := svc.Listen(); err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		grpcAddr, httpAddr, adminAddr := svc.Addrs()
		backends = append(backends, edge.Backend{Name: name, URL: &url.URL{Scheme: "http", Host: httpAddr}, Handler: svc.Handler(), Ready: svc.Ready})
		targets.add(name, adminAddr)
		g.Go(func() error { return svc.Run(gctx) })
		log.Info("service started", "name", name, "grpc", grpcAddr, "http", httpAddr, "admin", adminAddr)
		return grpcAddr, nil
	}

	var ccfg catalog.Config
	if err := config.LoadFrom(&ccfg, env("catalog")); err != nil {
		return err
	}
	cat, err := catalog.New(gctx, ccfg, os.Stdout)
	catalogAddr, err := launch(catalog.Name, cat, err)
	if err != nil {
		return err
	}

	var icfg identity.Config
	if err := config.LoadFrom(&icfg, env("identity")); err != nil {
		return err
	}
	id, err := identity.New(gctx, icfg, os.Stdout)
	identityAddr, err := launch(identity.Name, id, err)
	if err != nil {
		return err
	}

	// payments resolves sessions through identity, runs the sandbox card processor with two
	// development card readers and their simulator, and seeds a quarterly check-paying
	// account (services/payments/README.md).
	var pcfg payments.Config
	if err := config.LoadFrom(&pcfg, env("payments")); err != nil {
		return err
	}
	pcfg.IdentityAddr = identityAddr
	pcfg.DevSeed, pcfg.ReaderSimulator = true, true
	if len(pcfg.CardReaders) == 0 {
		pcfg.CardReaders = []string{"RDR-0001", "RDR-0002"}
	}
	pay, err := payments.New(gctx, pcfg, os.Stdout)
	paymentsAddr, err := launch(payments.Name, pay, err)
	if err != nil {
		return err
	}

	// geo (started before checkout, which asks it for a visitor's default currency)
	// believes X-Forwarded-For from loopback: the edge calls it in-process, so the peer
	// is whoever called the edge, and browser tests present a visitor's address that way
	// (curl -H 'X-Forwarded-For: 193.99.144.80' .../freegeoip/api/json/).
	var gcfg geo.Config
	genv := env("geo")
	if err := config.LoadFrom(&gcfg, func(name string) (string, bool) {
		if name == "TRUSTED_PROXIES" {
			return "127.0.0.0/8,::1", true
		}
		return genv(name)
	}); err != nil {
		return err
	}
	gs, err := geo.New(gctx, gcfg, os.Stdout)
	geoAddr, err := launch(geo.Name, gs, err)
	if err != nil {
		return err
	}

	// allocation resolves sessions and lists the organization's users through identity,
	// consumes subscription-changed events, and seeds the demo organization's licence pools
	// (services/allocation/README.md).
	var acfg allocation.Config
	if err := config.LoadFrom(&acfg, env("allocation")); err != nil {
		return err
	}
	acfg.Auth.IdentityAddr = identityAddr
	acfg.DevSeed = true
	alloc, err := allocation.New(gctx, acfg, os.Stdout)
	allocationAddr, err := launch(allocation.Name, alloc, err)
	if err != nil {
		return err
	}

	// checkout reads the catalogue from the in-process catalog over gRPC, resolves sessions
	// through identity, reads who holds which licence from allocation, and seeds the
	// development subscriptions, promotions and gift certificates
	// (services/checkout/README.md); submit charges through payments.
	var kcfg checkout.Config
	if err := config.LoadFrom(&kcfg, env("checkout")); err != nil {
		return err
	}
	kcfg.CatalogAddr = catalogAddr
	kcfg.Auth.IdentityAddr = identityAddr
	kcfg.PaymentsAddr = paymentsAddr
	kcfg.AllocationAddr = allocationAddr
	kcfg.GeoAddr = geoAddr
	kcfg.DevSeed = true
	ck, err := checkout.New(gctx, kcfg, os.Stdout)
	if _, err := launch(checkout.Name, ck, err); err != nil {
		return err
	}

	// notifications mails what the store's events ask for: to the in-process dev mail sink
	// (a real SMTP server; what it receives is at /-/mail) unless SMTP_ADDR names a relay.
	var sink *devmail.Sink
	var ncfg notifications.Config
	if err := config.LoadFrom(&ncfg, env("notifications")); err != nil {
		return err
	}
	if cfg.SMTPAddr == "" {
		if sink, err = devmail.Listen("127.0.0.1:0", 200); err != nil {
			return err
		}
		defer sink.Close()
		ncfg.SMTPAddr, ncfg.SMTPTLS = sink.Addr(), "none"
		log.Info("dev mail sink started", "smtp", sink.Addr())
	}
	ncfg.StoreURL = "http://" + devHost(cfg.EdgeAddr)
	ns, err := notifications.New(gctx, ncfg, os.Stdout)
	if _, err := launch(notifications.Name, ns, err); err != nil {
		return err
	}

	for _, name := range table.Services() {
		if name == "web" {
			continue
		}
		if !hasBackend(backends, name) {
			log.Warn("route table names a service this runner does not start", "service", name)
		}
	}

	pages, err := edge.LoadPages(cfg.PagesFile)
	if err != nil {
		return err
	}
	e := edge.New(table, headers, backends, cfg.WebDir, log).WithPages(pages)
	ln, err := net.Listen("tcp", cfg.EdgeAddr)
	if err != nil {
		return fmt.Errorf("edge listen %s (is another make dev running?): %w", cfg.EdgeAddr, err)
	}
	// The mail the dev sink received, as JSON (?to=) or, for a browser, a page.
	mux := http.NewServeMux()
	if sink != nil {
		mux.Handle("GET /-/mail", sink)
	}
	mux.Handle("GET /-/prometheus/targets", &targets)
	mux.Handle("/", e)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	g.Go(func() error {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	})
	g.Go(func() error { return announce(gctx, ln.Addr().String(), backends, log) })
	err = g.Wait()
	log.Info("stopped")
	return err
}

// service is what the runner needs of every service's app.App.
type service interface {
	Listen() error
	Addrs() (grpcAddr, httpAddr, adminAddr string)
	Handler() http.Handler
	Ready() bool
	Run(ctx context.Context) error
}

func hasBackend(bs []edge.Backend, name string) bool {
	for _, b := range bs {
		if b.Name == name {
			return true
		}
	}
	return false
}

// announce prints the store's address once every service is ready.
func announce(ctx context.Context, addr string, backends []edge.Backend, log *slog.Logger) error {
	host := addr
	if h, p, err := net.SplitHostPort(addr); err == nil && (h == "" || h == "::" || h == "0.0.0.0") {
		host = "localhost:" + p
	}
	for {
		ready := true
		for _, b := range backends {
			ready = ready && b.Ready()
		}
		if ready {
			log.Info("Hangar is up", "url", "http://"+host+"/", "catalogue", "http://"+host+"/account/api/subscription/available/add-ons",
				"mail", "http://"+host+"/-/mail")
			printDemoAccounts()
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// devHost is the edge's host:port as a browser reaches it.
func devHost(edgeAddr string) string {
	h, p, err := net.SplitHostPort(edgeAddr)
	if err != nil {
		return "localhost:8080"
	}
	if h == "" || h == "::" || h == "0.0.0.0" {
		h = "localhost"
	}
	return net.JoinHostPort(h, p)
}

// devOrigins answers the edge's origins for CSRF checks: localhost and 127.0.0.1 on its port.
func devOrigins(edgeAddr string) string {
	_, port, err := net.SplitHostPort(edgeAddr)
	if err != nil || port == "" {
		port = "8080"
	}
	return "http://localhost:" + port + ",http://127.0.0.1:" + port
}

// printDemoAccounts lists the seeded demo accounts and their passwords (dev only).
func printDemoAccounts() {
	fmt.Fprintln(os.Stderr, "\nDemo accounts (log in at /pricing/api/login):")
	for _, a := range identity.DemoAccounts() {
		fmt.Fprintf(os.Stderr, "  %-30s %-18s %s\n", a.Email, a.Password, a.Role)
	}
	m := identity.DemoAssociationMember
	fmt.Fprintf(os.Stderr, "Aircraft-owner association demo member: number %s, last name %s\n\n", m.Number, m.LastName)
}
