// Package app assembles the notifications service: configuration, telemetry, its database
// (inbox and message queue), the inbox consumer of the events that cause e-mails, the SMTP
// sender, and its gRPC (health), HTTP and admin listeners. main, the dev runner and the
// end-to-end tests build the same App.
package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/notifications/internal/adapters"
	napp "github.com/hangar/hangar/services/notifications/internal/app"
	"github.com/hangar/hangar/services/notifications/internal/domain"
	"github.com/hangar/hangar/services/notifications/internal/ports"
)

// Name is the service name in logs, traces and metrics.
const Name = "notifications"

// Config is the notifications service's configuration, read from the environment.
type Config struct {
	config.Platform
	config.Database
	config.Kafka

	SMTPAddr        string        `env:"SMTP_ADDR" default:"127.0.0.1:25" doc:"SMTP relay host:port (make dev: the in-process dev mail sink)"`
	SMTPUsername    string        `env:"SMTP_USERNAME" default:"" doc:"SMTP user; empty: no authentication"`
	SMTPPassword    string        `env:"SMTP_PASSWORD" secret:"true" secretWhen:"SMTP_USERNAME" dev:"" doc:"SMTP password, from a Secret; required with SMTP_USERNAME outside development mode"`
	SMTPTLS         string        `env:"SMTP_TLS" default:"opportunistic" doc:"none, opportunistic (STARTTLS when offered) or mandatory"`
	MailFrom        string        `env:"MAIL_FROM" required:"true" format:"email" dev:"Hangar <no-reply@hangar.example>" doc:"sender of every e-mail; required outside development mode"`
	MessageIDDomain string        `env:"MAIL_MESSAGE_ID_DOMAIN" required:"true" dev:"notifications.hangar.example" doc:"right-hand side of Message-IDs (<event id>.<template>@domain), a domain of the store's; required outside development mode"`
	StoreURL        string        `env:"STORE_BASE_URL" required:"true" format:"https" dev:"http://localhost:8080" doc:"the store's public https URL, for links in e-mails; required outside development mode"`
	SupportEmail    string        `env:"SUPPORT_EMAIL" required:"true" format:"email" dev:"support@hangar.example" doc:"contact named in every e-mail; required outside development mode"`
	SMTPIdleTimeout time.Duration `env:"SMTP_IDLE_TIMEOUT" default:"30s" doc:"how long an open SMTP connection waits for the next e-mail before it is closed"`

	Group         string        `env:"NOTIFICATIONS_GROUP" default:"notifications" doc:"Kafka consumer group (and inbox name)"`
	EventAttempts int           `env:"NOTIFICATIONS_EVENT_ATTEMPTS" default:"5" doc:"attempts at handling an event before it goes to <topic>.dlq"`
	SendAttempts  int           `env:"NOTIFICATIONS_SEND_ATTEMPTS" default:"12" doc:"SMTP attempts per e-mail before it is given up"`
	SendBackoff   time.Duration `env:"NOTIFICATIONS_SEND_BACKOFF" default:"2s" doc:"first retry delay after a temporary SMTP failure (doubling, at most 15m)"`
	SendWorkers   int           `env:"NOTIFICATIONS_SEND_WORKERS" default:"8" doc:"concurrent SMTP senders per replica (they wait on the relay, not the CPU; too few and new mails overflow to the poll)"`
	SendBatch     int           `env:"NOTIFICATIONS_SEND_BATCH" default:"20" doc:"due e-mails the poll claims per statement, and a sender takes and records as sent in one"`
	SendPoll      time.Duration `env:"NOTIFICATIONS_SEND_POLL_INTERVAL" default:"1s" doc:"how often the replica's poller claims due e-mails (retries, a dead replica's, overflow) for its senders; new ones are handed to them at once"`
	SendIdlePoll  time.Duration `env:"NOTIFICATIONS_SEND_IDLE_POLL" default:"10s" doc:"how long the replica's poller waits after a poll that found nothing, unless the replica made mails due itself (overflow, a put-back, a retry): what other replicas leave waits up to this"`
	BatchMax      int           `env:"NOTIFICATIONS_BATCH_MAX" default:"100" doc:"most events consumed in one inbox transaction"`
	BatchLinger   time.Duration `env:"NOTIFICATIONS_BATCH_LINGER" default:"10ms" doc:"how long a batch of events waits for more after its first"`
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
type Option func(*server.Deps)

// WithTracerProvider traces with tp (a test's in-memory exporter) instead of the one the
// platform configuration builds.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(d *server.Deps) { d.Tracer = tp }
}

// App is a configured, not yet running notifications service.
type App struct {
	cfg      Config
	log      *slog.Logger
	srv      *server.Server
	svc      *napp.Service
	store    *adapters.Store
	mailer   *adapters.SMTP
	pool     *pgxpool.Pool
	deps     server.Deps
	shutdown func(context.Context) error
}

// New builds the service; logs go to logOut.
func New(ctx context.Context, cfg Config, logOut io.Writer, opts ...Option) (*App, error) {
	config.ServiceDefaults(Name, &cfg.Platform, &cfg.Database)
	deps, shutdown, err := server.NewDeps(ctx, cfg.Platform, logOut)
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(&deps)
	}
	mailer, err := adapters.NewSMTP(adapters.SMTPConfig{Addr: cfg.SMTPAddr, Username: cfg.SMTPUsername, Password: cfg.SMTPPassword,
		TLS: cfg.SMTPTLS, From: cfg.MailFrom, MessageIDDomain: cfg.MessageIDDomain, IdleTimeout: cfg.SMTPIdleTimeout})
	if err != nil {
		return nil, err
	}
	render, err := domain.NewRenderer(domain.Site{Name: "Hangar", BaseURL: cfg.StoreURL, Support: cfg.SupportEmail})
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
	a := &App{cfg: cfg, log: deps.Logger, pool: pool, deps: deps, shutdown: shutdown, mailer: mailer}
	a.store = adapters.NewStore(pool)
	a.svc = napp.New(render, a.store, deps.Propagator, deps.Tracer, deps.Registry, deps.Logger)
	a.srv = server.New(cfg.ServiceName, cfg.Platform, deps)
	a.srv.Ready().Require("database")
	a.srv.ProbeReady("database", db.Probe(pool), db.LostDatabase(pool)) // a database lost later makes the service unready again
	return a, nil
}

// Listen binds the listeners (so callers can read Addrs before Run).
func (a *App) Listen() error { return a.srv.Listen() }

// Addrs answers the bound gRPC, HTTP and admin addresses.
func (a *App) Addrs() (grpcAddr, httpAddr, adminAddr string) { return a.srv.Addrs() }

// Handler is the public HTTP handler (the service has no public routes of its own).
func (a *App) Handler() http.Handler { return a.srv.Handler() }

// Ready reports whether the service is ready for traffic.
func (a *App) Ready() bool { return a.srv.Ready().Ok() }

// Run serves until ctx ends. Once the database is migrated, the event consumer and the SMTP
// senders run beside the listeners.
func (a *App) Run(ctx context.Context) error {
	defer a.pool.Close()
	defer func() { _ = a.shutdown(context.WithoutCancel(ctx)) }()
	defer func() { _ = a.mailer.Close() }() // QUIT the relay's idle sessions
	// In the server's run group, so done before the pool closes: the senders record their
	// last sends and put back in the queue the mails handed to them and not sent, and the
	// consumer puts back what it handed over too late.
	a.srv.Go(a.startData)
	return a.srv.Run(ctx)
}

func (a *App) startData(ctx context.Context) {
	ready := a.srv.Ready()
	report := func(reason string) { ready.Set("database", reason) }
	if !db.Bootstrap(ctx, a.log, a.pool, a.cfg.Database, report, func(ctx context.Context) error {
		return db.Schema(ctx, a.pool, a.cfg.Database, adapters.Migrations, "migrations", a.log)
	}) {
		return
	}
	policy := napp.SenderPolicy{MaxAttempts: a.cfg.SendAttempts, BaseBackoff: a.cfg.SendBackoff, Lease: napp.LeaseFor(a.mailer.MaxSendTime()),
		Batch: a.cfg.SendBatch, Interval: a.cfg.SendPoll, Idle: a.cfg.SendIdlePoll}
	senders := make(chan struct{})
	go func() { defer close(senders); a.svc.RunSenders(ctx, a.mailer, policy, a.cfg.SendWorkers) }()
	defer func() { <-senders }()
	if len(a.cfg.Brokers) == 0 {
		a.log.WarnContext(ctx, "no KAFKA_BROKERS: no events are consumed")
		return
	}
	// One inbox transaction and one INSERT of mails per batch of events, whatever their
	// topics: at checkout's rate an order's two mails, and many orders', share them.
	c := kafka.NewInboxBatchConsumerOf(kafka.ConsumerConfig{Brokers: a.cfg.Brokers, Group: a.cfg.Group, Pool: a.pool, Log: a.log,
		Tracer: a.deps.Tracer, Propagator: a.deps.Propagator, Registry: a.deps.Registry, MaxAttempts: a.cfg.EventAttempts, CommitInterval: a.cfg.CommitInterval},
		ports.Topics, ports.Handler(a.svc, a.store.In), kafka.BatchOptions{Max: a.cfg.BatchMax, Linger: a.cfg.BatchLinger})
	kafka.KeepRunning(ctx, a.log, a.cfg.Group, c)
}
