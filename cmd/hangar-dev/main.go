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
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/hangar/hangar/internal/devhuman"
	"github.com/hangar/hangar/internal/devmail"
	"github.com/hangar/hangar/internal/edge"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/internal/platform/telemetry"
	"github.com/hangar/hangar/internal/standin"
	identity "github.com/hangar/hangar/services/identity/app"
)

// Config is the dev runner's own configuration.
type Config struct {
	EdgeAddr    string   `env:"EDGE_ADDR" default:":8080" doc:"where the edge listens (the store's URL)"`
	FieldsAddr  string   `env:"FIELDS_ADDR" default:":8081" doc:"where payments serves the card-fields origin (the hosted card fields and tokenize; another port is another origin: docs/pci-saq-a.md)"`
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
	Replicas     int           `env:"HANGAR_DEV_REPLICAS" default:"1" doc:"multi-process mode: processes per service (2: a kill -9 of one is invisible to buyers, the edge moving idempotent requests to the other; processes.go)"`
	RestartDelay time.Duration `env:"HANGAR_DEV_RESTART_DELAY" default:"500ms" doc:"multi-process mode: pause before restarting a service process that exited"`
	MailMax      int           `env:"HANGAR_DEV_MAIL_MAX" default:"10000" doc:"messages the dev mail sink keeps (the chaos run reconciles every one)"`
	BrokerKeep   int           `env:"HANGAR_DEV_BROKER_KEEP_MIB" default:"8" doc:"MiB of events the in-process broker keeps per topic partition, the oldest dropped beyond it (a consumer further behind loses them, as past a cluster's retention)"`
	// HumanVerification turns checkout's human verification on with the development
	// verifier (internal/devhuman) served by the edge at /-/human/: the pages show its
	// checkbox, as they show reCAPTCHA's in the cluster.
	HumanVerification bool   `env:"HANGAR_DEV_HUMAN_VERIFICATION" default:"true" doc:"card payments need the development verifier's tick (as the chart's reCAPTCHA); false turns human verification off"`
	ContractLog       string `env:"HANGAR_CONTRACT_LOG" default:"" doc:"write every API request through the edge and its answer to this file, a JSON line each, for the contract check (cmd/contract-check; scripts/web-e2e.sh sets it)"`
}

// devGCPercent is the runner's garbage-collection target unless GOGC is set: one process
// hosts seven services, the broker and the edge on a live heap of a few tens of MiB, which
// the default (100) collects so often that the collector was a tenth of a checkout order's
// CPU (docs/performance.md); 400 trades a larger heap for it.
const devGCPercent = 400

// brokerTrimInterval is how often the in-process broker drops the events beyond
// HANGAR_DEV_BROKER_KEEP_MIB: a pass over every partition's batch list, cheap at this rate.
const brokerTrimInterval = 10 * time.Second

func main() {
	// gRPC logs through slog from the first line on (grpclog reads its logger unlocked).
	server.InstallGRPCLogs()
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(devGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	runner := run
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "broker":
			runner = runBroker
		case "mail":
			runner = runMail
		}
	}
	if err := runner(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "hangar-dev:", err)
		os.Exit(1)
	}
}

// loadCommand answers the configuration of a hangar-dev command and its logger, named
// service.
func loadCommand[C any](service string) (C, *slog.Logger, error) {
	var cfg C
	if err := config.Load(&cfg); err != nil {
		return cfg, nil, err
	}
	return cfg, slog.New(slog.NewTextHandler(os.Stderr, nil)).With("service", service), nil
}

func run(ctx context.Context) error {
	cfg, log, err := loadCommand[Config]("hangar-dev")
	if err != nil {
		return err
	}
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
		b, err := startBroker(ctx, cfg)
		if err != nil {
			return err
		}
		defer b.Close()
		brokers = b.Addrs()
		if err := createDevTopics(ctx, brokers, log); err != nil {
			return err
		}
		log.Info("in-process Kafka-protocol broker started", "brokers", strings.Join(brokers, ","))
	}

	if cfg.Processes {
		return runProcesses(ctx, cfg, table, headers, brokers, log)
	}

	sink, mail, err := startMail(ctx, cfg, log)
	if err != nil {
		return err
	}
	if sink != nil {
		defer sink.Close()
	}
	human, siteverify, err := startHuman(ctx, cfg, log)
	if err != nil {
		return err
	}
	if human != nil {
		defer human.Close()
	}

	g, gctx := errgroup.WithContext(ctx)
	var backends []edge.Backend
	var targets scrapeTargets
	// Every service gets loopback ports picked by the kernel, so a stale process or a second
	// checkout never collides; the edge learns the addresses directly and calls the
	// services' handlers in-process (no proxy hop).
	dr := &devRun{cfg: cfg, brokers: brokers, trustedProxies: "0", mail: mail, siteverify: siteverify, grpc: map[string]string{}}
	listen := map[string]string{"GRPC_ADDR": "127.0.0.1:0", "HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": "127.0.0.1:0"}
	for _, s := range devServices {
		env, err := dr.env(s, listen)
		if err != nil {
			return err
		}
		svc, err := s.build(gctx, lookup(env))
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if err := svc.Listen(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		grpcAddr, httpAddr, adminAddr := svc.Addrs()
		backends = append(backends, edge.Backend{Name: s.name, URL: &url.URL{Scheme: "http", Host: httpAddr}, Handler: svc.Handler(), Ready: svc.Ready})
		targets.add(s.name, adminAddr)
		g.Go(func() error { return svc.Run(gctx) })
		log.Info("service started", "name", s.name, "grpc", grpcAddr, "http", httpAddr, "admin", adminAddr)
		dr.grpc[s.name] = grpcAddr
	}

	// The connection budget (internal/platform/db/budget.go): what this store may open
	// under load, the same sum the chart's database-budget check makes for its pods.
	log.Info("connection budget", "most", db.Connections(func(string) int { return 1 }, 0), "at_rest", db.AtRest)
	err = serveEdge(gctx, g, cfg, table, headers, backends, sink, &targets, nil, log)
	log.Info("stopped")
	return err
}

// serveEdge serves the store on EDGE_ADDR in g until ctx ends: the edge routing the public
// route table to backends, the dev mail sink's messages at /-/mail (as JSON with ?to=, or a
// page), the Prometheus targets, and extra's routes; then waits for g.
func serveEdge(ctx context.Context, g *errgroup.Group, cfg Config, table *edge.Table, headers *edge.Headers, backends []edge.Backend,
	sink *devmail.Sink, targets *scrapeTargets, extra func(*http.ServeMux), log *slog.Logger) error {
	for _, name := range table.Services() {
		if name != "web" && !hasBackend(backends, name) {
			log.Warn("route table names a service this runner does not start", "service", name)
		}
	}
	pages, err := edge.LoadPages(cfg.PagesFile)
	if err != nil {
		return err
	}
	e := edge.New(table, headers, backends, cfg.WebDir, log).WithPages(pages).WithFieldsOrigin(fieldsOrigin(cfg.FieldsAddr))
	if cfg.ContractLog != "" {
		f, err := os.Create(cfg.ContractLog)
		if err != nil {
			return fmt.Errorf("contract log: %w", err)
		}
		defer f.Close()
		e = e.WithExchangeLog(f)
	}
	ln, err := net.Listen("tcp", cfg.EdgeAddr)
	if err != nil {
		return fmt.Errorf("edge listen %s (is another make dev running?): %w", cfg.EdgeAddr, err)
	}
	mux := http.NewServeMux()
	// The stand-ins' pages on the edge run labelled as theirs (internal/standin).
	if sink != nil {
		mux.Handle("GET /-/mail", standin.Handler(standin.Mail, sink))
	}
	mux.Handle("GET /-/prometheus/targets", targets)
	if cfg.HumanVerification {
		mux.Handle("/-/human/", standin.Handler(standin.Recaptcha, devhuman.Handler()))
	}
	if extra != nil {
		extra(mux)
	}
	mux.Handle("/", e)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: telemetry.StdLogger(log, slog.LevelWarn, "edge server")}
	g.Go(func() error {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	g.Go(func() error {
		<-ctx.Done()
		return stopServer(srv, "edge", log)
	})
	g.Go(func() error { return announce(ctx, ln.Addr().String(), fieldsOrigin(cfg.FieldsAddr), backends, log) })
	return g.Wait()
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

// announce prints the store's address and the card-fields origin once every service (every
// replica of each) is ready.
func announce(ctx context.Context, addr, fields string, backends []edge.Backend, log *slog.Logger) error {
	host := addr
	if h, p, err := net.SplitHostPort(addr); err == nil && (h == "" || h == "::" || h == "0.0.0.0") {
		host = "localhost:" + p
	}
	for {
		ready := true
		for _, b := range backends {
			ready = ready && (b.Ready == nil || b.Ready())
			for _, r := range b.Replicas {
				ready = ready && r.Ready()
			}
		}
		if ready {
			log.Info("Hangar is up", "url", "http://"+host+"/", "fields", fields+"/", "catalogue", "http://"+host+"/account/api/subscription/available/add-ons",
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

// fieldsOrigin answers the card-fields origin as a browser reaches it: payments listens on
// FIELDS_ADDR itself (in both modes), a port of its own being an origin of its own.
func fieldsOrigin(fieldsAddr string) string { return "http://" + devHost(fieldsAddr) }

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

// stopServer shuts srv down gracefully for up to 5 s and then closes what is left: a
// connection that never sent a request (a browser's preconnect, a client's spare one) counts
// as busy for its first 5 s, and a stop must not fail for it.
func stopServer(srv *http.Server, name string, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		log.Warn(name+": connections still open at shutdown; closed", "after", "5s")
		return srv.Close()
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
