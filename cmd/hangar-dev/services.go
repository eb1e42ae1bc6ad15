package main

import (
	"context"
	"fmt"
	"github.com/hangar/hangar/internal/devhuman"
	"io"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/hangar/hangar/internal/devmail"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/standin"
	allocation "github.com/hangar/hangar/services/allocation/app"
	catalog "github.com/hangar/hangar/services/catalog/app"
	checkout "github.com/hangar/hangar/services/checkout/app"
	geo "github.com/hangar/hangar/services/geo/app"
	identity "github.com/hangar/hangar/services/identity/app"
	notifications "github.com/hangar/hangar/services/notifications/app"
	payments "github.com/hangar/hangar/services/payments/app"
)

// devService is one service as hangar-dev runs it, in both modes (in-process, main.go; one
// process each, processes.go): its dev-only settings, the services it calls and how it is
// built in-process. Everything reaches the service as its environment, as in the cluster.
type devService struct {
	name string
	// calls maps an environment variable to the service whose gRPC address it takes.
	calls map[string]string
	// env are the service's dev-only settings (seeds, simulators).
	env map[string]string
	// build makes the service in the runner's process from its environment.
	build func(ctx context.Context, env config.Lookup) (service, error)
}

// devServices start in this order: a service comes after those it calls. A new service
// adds its entry here, and both modes run it.
var devServices = []devService{
	{name: catalog.Name, build: inProcess(catalog.New)},
	// The demo accounts (printed once the store is up).
	{name: identity.Name, env: map[string]string{"IDENTITY_DEV_SEED": "true"}, build: inProcess(identity.New)},
	// The sandbox card processor with two development card readers and their simulator, and
	// a quarterly check-paying account (services/payments/README.md).
	{name: payments.Name, calls: map[string]string{"IDENTITY_ADDR": identity.Name},
		// Every browser of make dev is 127.0.0.1: the card-testing rule counts declines per
		// address, so the dev store (the e2e suite declines cards many times) allows more.
		env: map[string]string{"PAYMENTS_DEV_SEED": "true", "PAYMENTS_READER_SIMULATOR": "true", "PAYMENTS_CARD_READERS": "RDR-0001,RDR-0002",
			"PAYMENTS_VELOCITY_DECLINES": "100"},
		build: inProcess(func(ctx context.Context, c payments.Config, w io.Writer) (*payments.App, error) {
			return payments.New(ctx, c, w)
		})},
	// geo (before checkout, which asks it for a visitor's default currency) believes
	// X-Forwarded-For from loopback, where the edge is: browser tests present a visitor's
	// address that way (curl -H 'X-Forwarded-For: 193.99.144.80' .../freegeoip/api/json/).
	{name: geo.Name, env: map[string]string{"TRUSTED_PROXIES": "127.0.0.0/8,::1"}, build: inProcess(geo.New)},
	// allocation seeds the demo organization's licence pools (services/allocation/README.md).
	{name: allocation.Name, calls: map[string]string{"IDENTITY_ADDR": identity.Name},
		env: map[string]string{"ALLOCATION_DEV_SEED": "true"}, build: inProcess(allocation.New)},
	// checkout seeds the development subscriptions, promotions and gift certificates
	// (services/checkout/README.md).
	{name: checkout.Name, calls: map[string]string{"CATALOG_ADDR": catalog.Name, "IDENTITY_ADDR": identity.Name,
		"PAYMENTS_ADDR": payments.Name, "ALLOCATION_ADDR": allocation.Name, "GEO_ADDR": geo.Name},
		env: map[string]string{"CHECKOUT_DEV_SEED": "true", "CHECKOUT_VAT_REGISTER": "dev"}, build: inProcess(func(ctx context.Context, c checkout.Config, w io.Writer) (*checkout.App, error) {
			return checkout.New(ctx, c, w)
		})},
	// notifications: SMTP_ADDR, SMTP_TLS and STORE_BASE_URL come from the run (devRun.mail).
	{name: notifications.Name,
		build: inProcess(func(ctx context.Context, c notifications.Config, w io.Writer) (*notifications.App, error) {
			return notifications.New(ctx, c, w)
		})},
}

// inProcess builds a service from its environment with its app.New.
func inProcess[C any, A service](newApp func(context.Context, C, io.Writer) (A, error)) func(context.Context, config.Lookup) (service, error) {
	return func(ctx context.Context, env config.Lookup) (service, error) {
		var cfg C
		if err := config.LoadFrom(&cfg, env); err != nil {
			return nil, err
		}
		return newApp(ctx, cfg, os.Stdout)
	}
}

// devRun is what every service of one run shares: the runner's settings, the broker, how
// many proxies stand before the services, the mail relay, and the gRPC addresses of the
// services started so far.
type devRun struct {
	cfg     Config
	brokers []string
	// trustedProxies: "0" in-process (the edge calls the handlers directly), "1" with
	// processes (the edge is the one proxy appending X-Forwarded-For, as the Ingress is).
	trustedProxies string
	mail           map[string]string
	// siteverify is the development human verifier's siteverify URL (startHuman).
	siteverify string
	grpc       map[string]string
}

// env answers s's environment: listen (its addresses), the run's settings, its own dev
// settings, then its callees' gRPC addresses.
func (r *devRun) env(s devService, listen map[string]string) (map[string]string, error) {
	dbURL, err := url.Parse(r.cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	dbURL.Path = "/" + r.cfg.DBPrefix + s.name
	env := map[string]string{
		"DATABASE_URL": dbURL.String(), "DATABASE_CREATE": "true",
		"KAFKA_BROKERS": strings.Join(r.brokers, ","),
		"LOG_FORMAT":    r.cfg.LogFormat, "LOG_LEVEL": r.cfg.LogLevel, "SHUTDOWN_TIMEOUT": "5s",
		// Shared request security: the store's origin is the edge's.
		"TRUSTED_PROXIES": r.trustedProxies, "ALLOWED_ORIGINS": devOrigins(r.cfg.EdgeAddr),
		// Development mode: the secrets take their marked development values (config.DevModeVar).
		config.DevModeVar: "true",
	}
	maps.Copy(env, listen)
	maps.Copy(env, s.env)
	if s.name == notifications.Name {
		maps.Copy(env, r.mail)
	}
	if s.name == payments.Name {
		// The card-fields origin: payments' own listener, framed by the store's pages.
		env["PAYMENTS_FIELDS_ADDR"], env["PAYMENTS_FIELDS_ORIGIN"] = r.cfg.FieldsAddr, fieldsOrigin(r.cfg.FieldsAddr)
	}
	if s.name == checkout.Name && r.cfg.HumanVerification {
		// Human verification on, as in the chart, against the development verifier
		// (internal/devhuman, startHuman): no internet, and its secret is public.
		env["CHECKOUT_RECAPTCHA_REQUIRED"], env["CHECKOUT_RECAPTCHA_SECRET"] = "true", devhuman.Secret
		env["CHECKOUT_RECAPTCHA_SITE_KEY"], env["CHECKOUT_RECAPTCHA_SCRIPT_URL"] = devhuman.SiteKey, devhuman.ScriptPath
		env["CHECKOUT_RECAPTCHA_URL"] = r.siteverify
	}
	if r.cfg.HumanVerification && (s.name == payments.Name || s.name == identity.Name) {
		// The payment-method update and the card reader ask for it as card payments do;
		// a login past its throttle asks for it instead of refusing (issue 41).
		prefix := strings.ToUpper(s.name) + "_RECAPTCHA_"
		env[prefix+"REQUIRED"], env[prefix+"SECRET"] = "true", devhuman.Secret
		env[prefix+"URL"] = r.siteverify
		if n, err := strconv.Atoi(env["PAYMENTS_VELOCITY_DECLINES"]); err == nil && s.name == payments.Name {
			// Past the decline limit, card attempts that passed verification go on to twice it.
			env["PAYMENTS_VELOCITY_HUMAN_DECLINES"] = strconv.Itoa(2 * n)
		}
	}
	for k, callee := range s.calls {
		addr, ok := r.grpc[callee]
		if !ok {
			return nil, fmt.Errorf("%s calls %s, which starts later", s.name, callee)
		}
		env[k] = addr
	}
	return env, nil
}

// startMail answers notifications' mail settings: the in-process dev mail sink (a real SMTP
// server; what it receives is at /-/mail, in either mode, so the mail of a killed and
// restarted notifications process is all in one place) unless SMTP_ADDR names a relay.
// The sink's goroutines carry the mail stand-in's label: in production the relay is
// another's process (internal/standin). sink is nil with a relay; the caller closes it.
func startMail(ctx context.Context, cfg Config, log *slog.Logger) (sink *devmail.Sink, env map[string]string, err error) {
	env = map[string]string{"STORE_BASE_URL": "http://" + devHost(cfg.EdgeAddr)}
	if cfg.SMTPAddr != "" {
		env["SMTP_ADDR"] = cfg.SMTPAddr
		return nil, env, nil
	}
	standin.Do(ctx, standin.Mail, func(context.Context) { sink, err = devmail.Listen("127.0.0.1:0", cfg.MailMax) })
	if err != nil {
		return nil, nil, err
	}
	env["SMTP_ADDR"], env["SMTP_TLS"] = sink.Addr(), "none"
	log.Info("dev mail sink started", "smtp", sink.Addr())
	return sink, env, nil
}

// lookup answers env's values, then the runner's own environment (PG*, OTEL_*).
func lookup(env map[string]string) config.Lookup {
	return func(name string) (string, bool) {
		if v, ok := env[name]; ok {
			return v, true
		}
		return os.LookupEnv(name)
	}
}
