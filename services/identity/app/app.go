// Package app assembles the identity service: configuration, telemetry, its database, the
// outbox relay, the shared request security (CSRF and sessions) and its gRPC, REST and
// admin listeners. main, the dev runner and the end-to-end tests build the same App.
package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/db"
	"github.com/hangar/hangar/internal/platform/events"
	"github.com/hangar/hangar/internal/platform/human"
	"github.com/hangar/hangar/internal/platform/kafka"
	"github.com/hangar/hangar/internal/platform/ratelimit"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/identity/internal/adapters"
	iapp "github.com/hangar/hangar/services/identity/internal/app"
	"github.com/hangar/hangar/services/identity/internal/domain"
	"github.com/hangar/hangar/services/identity/internal/ports"
)

// Name is the service name in logs, traces and metrics.
const Name = "identity"

// Config is the identity service's configuration, read from the environment.
type Config struct {
	config.Platform
	config.Database
	config.Kafka
	auth.Config

	SessionIdle     time.Duration `env:"IDENTITY_SESSION_IDLE" default:"30m" doc:"a session ends after this long unused"`
	SessionAbsolute time.Duration `env:"IDENTITY_SESSION_ABSOLUTE" default:"12h" doc:"a session ends this long after login, used or not"`
	SessionTouch    time.Duration `env:"IDENTITY_SESSION_TOUCH" default:"1m" doc:"a session's last use is written at most this often"`

	Argon2MemoryKiB int `env:"IDENTITY_ARGON2_MEMORY_KIB" default:"19456" doc:"argon2id memory per password hash, KiB (OWASP: 19 MiB)"`
	Argon2Time      int `env:"IDENTITY_ARGON2_TIME" default:"2" doc:"argon2id passes"`
	Argon2Threads   int `env:"IDENTITY_ARGON2_THREADS" default:"1" doc:"argon2id lanes"`

	ThrottleWindow       time.Duration `env:"IDENTITY_THROTTLE_WINDOW" default:"15m" doc:"the window of the failed-login limits: each is N per window, a bucket of N refilled one every window/N"`
	ThrottleAccountIP    int           `env:"IDENTITY_THROTTLE_ACCOUNT_IP" default:"5" doc:"failed logins per account and client address in the window"`
	ThrottleAccount      int           `env:"IDENTITY_THROTTLE_ACCOUNT" default:"50" doc:"failed logins per account from any address in the window after which the account is under attack (it never blocks the account)"`
	ThrottleUnderAttack  int           `env:"IDENTITY_THROTTLE_UNDER_ATTACK_ACCOUNT_IP" default:"2" doc:"failed logins per account and client address in the window while the account is under attack"`
	ThrottleIP           int           `env:"IDENTITY_THROTTLE_IP" default:"100" doc:"failed logins per client address over all accounts in the window (high: one office or carrier NAT is one address)"`
	ThrottleDevice       int           `env:"IDENTITY_THROTTLE_DEVICE" default:"10" doc:"logins, right or wrong, per known device (a device cookie of the account) in the window; such a login is counted in this bucket only"`
	DeviceKey            string        `env:"IDENTITY_DEVICE_KEY" secret:"true" dev:"hangar-dev-device-key-not-for-production" doc:"HMAC key of the device cookies of known devices, from a Secret; required outside development mode (HANGAR_DEV_MODE)"`
	HashMemoryMiB        int           `env:"IDENTITY_HASH_MEMORY_MIB" default:"80" doc:"memory for password hashing: the pool has this divided by IDENTITY_ARGON2_MEMORY_KIB work areas (at least 1), allocated once and reused; hashes beyond them queue"`
	HashKnownDevices     int           `env:"IDENTITY_HASH_KNOWN_DEVICES" default:"1" doc:"work areas of the pool only logins from known devices take (they are served first besides)"`
	HashPerAddress       int           `env:"IDENTITY_HASH_PER_ADDRESS" default:"1" doc:"work areas one client address holds at once (its further logins queue behind each other); 0: no cap"`
	HashQueue            int           `env:"IDENTITY_HASH_QUEUE" default:"1024" doc:"logins waiting for a work area beyond which a login is answered 429 busy"`
	HashWait             time.Duration `env:"IDENTITY_HASH_WAIT" default:"30s" doc:"the longest a login waits for a work area before it is answered 429 busy"`
	CodeTTL              time.Duration `env:"IDENTITY_CODE_TTL" default:"15m" doc:"a military verification code expires this long after it is sent"`
	CodeMaxAttempts      int           `env:"IDENTITY_CODE_MAX_ATTEMPTS" default:"5" doc:"wrong guesses before a code is dead"`
	CodeMaxPerHour       int           `env:"IDENTITY_CODE_MAX_PER_HOUR" default:"5" doc:"codes sent to one address per hour"`
	WelcomeLinkTTL       time.Duration `env:"IDENTITY_WELCOME_LINK_TTL" default:"72h" doc:"the set-password link of a welcome e-mail (an account created at checkout) expires this long after it is sent"`
	ResetLinkTTL         time.Duration `env:"IDENTITY_RESET_LINK_TTL" default:"1h" doc:"a forgot-password link expires this long after it is sent"`
	InvitationTTL        time.Duration `env:"IDENTITY_INVITATION_TTL" default:"168h" doc:"an invitation to join an organization can be accepted until this long after it is sent"`
	DevSeed              bool          `env:"IDENTITY_DEV_SEED" default:"false" doc:"create the demo accounts on start (dev only; never in production)"`
	SessionSweepInterval time.Duration `env:"IDENTITY_SESSION_SWEEP" default:"1h" doc:"how often ended sessions are deleted"`
	// Human verification (reCAPTCHA) of a login past the throttle's limits.
	RecaptchaRequired bool          `env:"IDENTITY_RECAPTCHA_REQUIRED" default:"false" doc:"a login past the throttle's limits asks for the human-verification value (recaptchaValue) and goes on with it, instead of answering 429"`
	RecaptchaSecret   string        `env:"IDENTITY_RECAPTCHA_SECRET" secret:"true" secretWhen:"IDENTITY_RECAPTCHA_REQUIRED" dev:"" doc:"Google reCAPTCHA secret key, from a Secret; required with IDENTITY_RECAPTCHA_REQUIRED outside development mode; empty in development: a development verifier accepts any non-empty value"`
	RecaptchaURL      string        `env:"IDENTITY_RECAPTCHA_URL" default:"https://www.google.com/recaptcha/api/siteverify" doc:"Google reCAPTCHA siteverify endpoint"`
	RecaptchaTimeout  time.Duration `env:"IDENTITY_RECAPTCHA_TIMEOUT" default:"3s" doc:"deadline of one reCAPTCHA verification"`
	RecaptchaMinScore float64       `env:"IDENTITY_RECAPTCHA_MIN_SCORE" default:"0" doc:"lowest reCAPTCHA v3 score taken for a human; 0: the score is not checked (v2)"`
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

// App is a configured, not yet running identity service.
type App struct {
	cfg      Config
	log      *slog.Logger
	srv      *server.Server
	svc      *iapp.Service
	store    *adapters.Store
	pool     *pgxpool.Pool
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
	log := deps.Logger
	hasher, err := domain.NewHasher(domain.Argon2Params{MemoryKiB: uint32(cfg.Argon2MemoryKiB), Time: uint32(cfg.Argon2Time), Threads: uint8(cfg.Argon2Threads)})
	if err != nil {
		return nil, err
	}
	// The connection budget's size (db.ServiceBudget) unless DATABASE_MAX_CONNS sets one:
	// every checkout of a new buyer waits on ProvisionAccount, a commit that waits for the
	// WAL flush, beside logins and the event consumers.
	cfg.Database.DefaultPool(db.ServiceBudget(Name).Max)
	pool, err := db.Open(ctx, cfg.URL, cfg.MaxConns, db.IdleAfter(cfg.IdleTimeout))
	if err != nil {
		return nil, err
	}
	if err := db.RegisterPool(deps.Registry, pool, "main"); err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, log: log, pool: pool, shutdown: shutdown, deps: deps}
	a.store = adapters.NewStore(pool, deps.Propagator)
	a.svc = iapp.New(a.store, hasher, iapp.Policies{
		Sessions: domain.SessionPolicy{Idle: cfg.SessionIdle, Absolute: cfg.SessionAbsolute, Touch: cfg.SessionTouch},
		Throttle: domain.Throttle{Window: cfg.ThrottleWindow, PerAccountIP: cfg.ThrottleAccountIP, PerAccount: cfg.ThrottleAccount,
			UnderAttackPerAccountIP: cfg.ThrottleUnderAttack, PerIP: cfg.ThrottleIP, PerDevice: cfg.ThrottleDevice},
		Codes: domain.CodePolicy{TTL: cfg.CodeTTL, MaxAttempts: cfg.CodeMaxAttempts, MaxPerHour: cfg.CodeMaxPerHour},
		Links: domain.LinkPolicy{WelcomeTTL: cfg.WelcomeLinkTTL, ResetTTL: cfg.ResetLinkTTL, InvitationTTL: cfg.InvitationTTL},
		Hashing: iapp.HashPoolConfig{Size: cfg.HashMemoryMiB * 1024 / max(cfg.Argon2MemoryKiB, 1), Reserved: cfg.HashKnownDevices,
			PerAddress: cfg.HashPerAddress, Queue: cfg.HashQueue, Wait: cfg.HashWait},
		Devices: domain.NewDeviceCookies([]byte(cfg.DeviceKey)),
		Human: human.FromConfig(cfg.RecaptchaRequired, human.RecaptchaConfig{Secret: cfg.RecaptchaSecret, URL: cfg.RecaptchaURL,
			Timeout: cfg.RecaptchaTimeout, MinScore: cfg.RecaptchaMinScore, Registry: deps.Registry}),
	}, time.Now, log)

	a.srv = server.New(cfg.ServiceName, cfg.Platform, deps)
	a.srv.Ready().Require("database")
	a.srv.ProbeReady("database", db.Probe(pool), db.LostDatabase(pool)) // a database lost later makes the service unready again
	identityv1.RegisterIdentityServiceServer(a.srv, ports.NewGRPC(a.svc, cfg.TrustedProxies))
	identityv1.RegisterOrganizationServiceServer(a.srv, ports.NewOrganizations(a.svc, cfg.TrustedProxies))
	a.srv.Gateway(func(ctx context.Context, mux *runtime.ServeMux, conn grpc.ClientConnInterface) error {
		if err := identityv1.RegisterOrganizationServiceHandlerClient(ctx, mux, identityv1.NewOrganizationServiceClient(conn)); err != nil {
			return err
		}
		return identityv1.RegisterIdentityServiceHandlerClient(ctx, mux, identityv1.NewIdentityServiceClient(conn))
	})
	a.srv.GatewayOptions(ports.GatewayOptions()...)
	a.srv.EmitDefaults(ports.FullAnswers()...)
	a.srv.UseHTTP(ports.TrailingSlash)
	auth.Install(a.srv, auth.Options{Resolver: ports.Resolver(a.svc), CSRF: auth.CSRFConfig{AllowedOrigins: cfg.AllowedOrigins}})
	// The buckets are shared by every replica in identity's database (rate_limits), so a
	// burst spread over replicas meets the same limit as one replica would.
	a.srv.UseUnary(ratelimit.UnaryShared(AnonymousLimits, AnonymousKey(cfg.TrustedProxies), time.Now, ratelimit.NewPostgreSQL(pool), log))
	a.svc.SetResetLimit(ratelimit.NewShared("password-reset-email", ResetPerEmail, time.Now, ratelimit.NewPostgreSQL(pool), log))
	a.svc.SetInviteLimits(iapp.InviteLimits{
		PerOrganization: ratelimit.NewShared("invite-organization", InvitePerOrganization, time.Now, ratelimit.NewPostgreSQL(pool), log),
		PerSession:      ratelimit.NewShared("invite-session", InvitePerSession, time.Now, ratelimit.NewPostgreSQL(pool), log)})
	return a, nil
}

// AnonymousLimits throttle identity's anonymous doors per client address, across replicas
// (ratelimit.UnaryShared): the e-mail look-up (it answers account ids), account creation,
// and the eligibility checks (member numbers and military codes are guessable). Bursts a person needs pass; a script is
// refused with 429 and Retry-After. Failed logins have their own limit over the same store
// (app.reserveAttempt, domain.Throttle).
var AnonymousLimits = map[string]ratelimit.Rule{
	identityv1.IdentityService_IsBusiness_FullMethodName:              {Every: 2 * time.Second, Burst: 30},
	identityv1.IdentityService_CreateAccount_FullMethodName:           {Every: 3 * time.Second, Burst: 20},
	identityv1.IdentityService_VerifyAssociationMember_FullMethodName: {Every: 6 * time.Second, Burst: 10},
	identityv1.IdentityService_RequestMilitaryCode_FullMethodName:     {Every: 6 * time.Second, Burst: 10},
	identityv1.IdentityService_VerifyMilitaryCode_FullMethodName:      {Every: 6 * time.Second, Burst: 10},
	// Forgot password mails whoever's address is typed in: per address as the sign-ups,
	// and per e-mail besides (ResetPerEmail).
	identityv1.IdentityService_RequestPasswordReset_FullMethodName: {Every: 6 * time.Second, Burst: 10},
	// A link's token cannot be guessed (256 bits); this bounds the password hashing a
	// client can ask for with made-up or spent links.
	identityv1.IdentityService_SetPassword_FullMethodName: {Every: 6 * time.Second, Burst: 10},
	// An invitation's token cannot be guessed either; accepting one may hash a password.
	identityv1.OrganizationService_GetInvitation_FullMethodName:    {Every: 2 * time.Second, Burst: 30},
	identityv1.OrganizationService_AcceptInvitation_FullMethodName: {Every: 6 * time.Second, Burst: 10},
}

// AnonymousKey is the key AnonymousLimits count a client by: the platform's client key
// (auth.ClientKey: the address behind the trusted proxies, IPv6 by its /64).
func AnonymousKey(trustedProxies int) func(context.Context) string {
	return func(ctx context.Context) string { return auth.ClientKey(ctx, trustedProxies) }
}

// ResetPerEmail throttles "forgot password" per e-mail, over every client address and
// replica: 3 at once, then one per 5 minutes, so nobody's mailbox can be filled with
// reset mails. Known and unknown addresses are counted alike.
var ResetPerEmail = ratelimit.Rule{Every: 5 * time.Minute, Burst: 3}

// InvitePerOrganization and InvitePerSession throttle an organization's invitations
// (POST /org/api/members): a team's onboarding at once, then one every few minutes, so
// an administrator's session (or several of one organization) is no mailer.
var (
	InvitePerOrganization = ratelimit.Rule{Every: 3 * time.Minute, Burst: 30}
	InvitePerSession      = ratelimit.Rule{Every: 5 * time.Minute, Burst: 20}
)

// Listen binds the listeners (so callers can read Addrs before Run).
func (a *App) Listen() error { return a.srv.Listen() }

// Addrs answers the bound gRPC, HTTP and admin addresses.
func (a *App) Addrs() (grpcAddr, httpAddr, adminAddr string) { return a.srv.Addrs() }

// Handler is the public REST handler, for in-process callers (the dev edge).
func (a *App) Handler() http.Handler { return a.srv.Handler() }

// Ready reports whether the service is ready for traffic.
func (a *App) Ready() bool { return a.srv.Ready().Ok() }

// Run serves until ctx ends. The database is brought up in the background (readiness says
// why not meanwhile); the outbox relay and the session sweeper run beside the listeners.
// identity sends no mail: the notifications service mails the codes it publishes.
func (a *App) Run(ctx context.Context) error {
	defer a.pool.Close()
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
	if len(a.cfg.Brokers) > 0 {
		a.srv.Go(a.consumeSubscriptions)
		a.srv.Go(a.consumeMarketingConsents)
		a.srv.Go(a.consumeOrders)
	}
	a.srv.Go(func(ctx context.Context) {
		kafka.RunRelay(ctx, a.cfg.Brokers, a.pool, a.deps.Propagator, a.log, kafka.WithRelayMetrics(a.deps.Registry), kafka.WithRelayTracer(a.deps.Tracer))
	})
	a.svc.SweepSessions(ctx, a.cfg.SessionSweepInterval)
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

// SubscriptionsGroup is the consumer group of identity's subscription projection.
const SubscriptionsGroup = "identity-subscriptions"

// consumeSubscriptions keeps the subscription projection (/buy/api/me's plan flags) from
// checkout's subscription-changed events until ctx ends, through the platform's batch inbox
// consumer: the events fetched together are recorded in one transaction with their inbox
// rows (a redelivered event changes nothing); a failed batch is retried one event at a time
// and a poison event is dead-lettered. An account's events share a partition and apply in
// their order.
func (a *App) consumeSubscriptions(ctx context.Context) {
	c := kafka.NewInboxBatchConsumer(kafka.ConsumerConfig{Brokers: a.cfg.Brokers, Group: SubscriptionsGroup, Pool: a.pool, Log: a.log,
		Tracer: a.deps.Tracer, Propagator: a.deps.Propagator, Registry: a.deps.Registry, CommitInterval: a.cfg.CommitInterval},
		events.TopicSubscriptionChanged, ports.SubscriptionChanges(a.svc, inbox), kafka.BatchOptions{})
	kafka.KeepRunning(ctx, a.log, SubscriptionsGroup, c)
}

// MarketingConsentsGroup is the consumer group that records the marketing consents buyers
// give with their orders.
const MarketingConsentsGroup = "identity-marketing-consents"

// consumeMarketingConsents records checkout's marketing-consent-given events on the buyers'
// accounts until ctx ends, through the platform's inbox consumer (a redelivered event
// changes nothing; a poison one is dead-lettered). A group of its own: the events are rare
// (one per ticked checkbox), so one at a time is enough, and the subscription projection's
// batch consumer takes one topic.
func (a *App) consumeMarketingConsents(ctx context.Context) {
	c := kafka.NewInboxConsumer(kafka.ConsumerConfig{Brokers: a.cfg.Brokers, Group: MarketingConsentsGroup, Pool: a.pool, Log: a.log,
		Tracer: a.deps.Tracer, Propagator: a.deps.Propagator, Registry: a.deps.Registry, CommitInterval: a.cfg.CommitInterval})
	c.Handle(events.TopicMarketingConsentGiven, ports.MarketingConsentGiven(a.svc, inbox))
	kafka.KeepRunning(ctx, a.log, MarketingConsentsGroup, c)
}

// WelcomesGroup is the consumer group that issues the welcome link of a checkout account
// when its first order completes.
const WelcomesGroup = "identity-welcomes"

// consumeOrders issues welcome links from checkout's order-completed events until ctx
// ends, through the platform's batch inbox consumer: the links of the events fetched
// together, and their events, are written in one transaction with the events' inbox rows
// (a redelivered event issues nothing more); a failed batch is retried one event at a time
// and a poison event is dead-lettered.
func (a *App) consumeOrders(ctx context.Context) {
	prop := a.deps.Propagator
	c := kafka.NewInboxBatchConsumer(kafka.ConsumerConfig{Brokers: a.cfg.Brokers, Group: WelcomesGroup, Pool: a.pool, Log: a.log,
		Tracer: a.deps.Tracer, Propagator: prop, Registry: a.deps.Registry, CommitInterval: a.cfg.CommitInterval},
		events.TopicOrderCompleted, ports.OrderCompletions(a.svc, func(tx pgx.Tx) iapp.Inbox { return adapters.InTxPropagating(tx, prop) }),
		kafka.BatchOptions{})
	kafka.KeepRunning(ctx, a.log, WelcomesGroup, c)
}

// inbox binds the use cases' event writes to the inbox consumer's transaction.
func inbox(tx pgx.Tx) iapp.Inbox { return adapters.InTx(tx) }
