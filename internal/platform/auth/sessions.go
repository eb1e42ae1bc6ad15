package auth

import (
	"context"
	"crypto/sha256"
	"net/http"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	identityv1 "github.com/hangar/hangar/gen/go/hangar/identity/v1"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
)

// Resolver answers the caller of a session token: errs Unauthorized when the session is
// unknown, revoked or expired; another error when identity cannot answer.
type Resolver interface {
	Resolve(ctx context.Context, token string) (Caller, error)
}

// ResolverFunc adapts a function (identity's own in-process lookup) to Resolver.
type ResolverFunc func(ctx context.Context, token string) (Caller, error)

func (f ResolverFunc) Resolve(ctx context.Context, token string) (Caller, error) {
	return f(ctx, token)
}

// IdentityResolver asks identity's Authenticate RPC.
type IdentityResolver struct {
	Client  identityv1.IdentityServiceClient
	Timeout time.Duration // per call; default 2 s
}

// NewIdentityResolver resolves over conn (a client connection to identity's gRPC port).
func NewIdentityResolver(conn grpc.ClientConnInterface) *IdentityResolver {
	return &IdentityResolver{Client: identityv1.NewIdentityServiceClient(conn)}
}

func (r *IdentityResolver) Resolve(ctx context.Context, token string) (Caller, error) {
	d := r.Timeout
	if d == 0 {
		d = 2 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	resp, err := r.Client.Authenticate(ctx, &identityv1.AuthenticateRequest{SessionToken: token})
	if err != nil {
		if st, ok := status.FromError(err); ok {
			return Caller{}, errs.FromStatus(st)
		}
		return Caller{}, errs.Wrap(errs.Unavailable, err, "identity is unavailable")
	}
	c := resp.GetCaller()
	var ms []Membership
	for _, m := range c.GetMemberships() {
		ms = append(ms, Membership{OrganizationAccount: m.GetOrganizationAccount(), Roles: m.GetRoles()})
	}
	return Caller{Memberships: ms,
		AccountUUID: c.GetAccountUuid(), Username: c.GetUsername(), AccountKind: c.GetAccountKind(),
		OrganizationAccount: c.GetOrganizationAccount(), Roles: c.GetRoles(),
		IsCreditCardAdmin: c.GetIsCreditCardAdmin(), IsEmployee: c.GetIsEmployee(), IsMilitary: c.GetIsMilitary(),
		IsChild: c.GetIsChild(), SessionID: c.GetSessionId(),
	}, nil
}

// Cache remembers the tokens identity refused (unknown, revoked or expired) for a while,
// so a flood of made-up or old cookies costs identity one lookup per token, not one per
// request. A live session is never served from the cache: every request asks identity,
// so a logout or revocation is refused by every service and replica on the very next
// request (before, live sessions were reused for 5 s, and a logged-out cookie kept
// working on checkout and payments that long). A refused token never becomes valid again
// (a login always issues a new one), so remembering refusals serves nothing stale.
// Entries are keyed by the token's hash; the cache is bounded.
type Cache struct {
	next Resolver
	ttl  time.Duration
	max  int
	now  func() time.Time

	mu      sync.Mutex
	entries map[[32]byte]time.Time // refused token -> forget it at
}

// NewCache remembers next's refusals for ttl, holding at most max entries.
func NewCache(next Resolver, ttl time.Duration, max int, now func() time.Time) *Cache {
	return &Cache{next: next, ttl: ttl, max: max, now: now, entries: map[[32]byte]time.Time{}}
}

func (c *Cache) Resolve(ctx context.Context, token string) (Caller, error) {
	key := sha256.Sum256([]byte(token))
	now := c.now()
	c.mu.Lock()
	until, hit := c.entries[key]
	c.mu.Unlock()
	if hit && now.Before(until) {
		return Caller{}, ErrLoginRequired
	}
	caller, err := c.next.Resolve(ctx, token)
	if err == nil || errs.CodeOf(err) != errs.Unauthorized {
		return caller, err // live sessions and outages are not cached
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		c.evict(now)
	}
	c.entries[key] = now.Add(c.ttl)
	return caller, err
}

// evict drops expired entries, and when none expired, an arbitrary half: a full cache of
// live entries only happens under a flood, when dropping some is the right answer.
func (c *Cache) evict(now time.Time) {
	for k, until := range c.entries {
		if !now.Before(until) {
			delete(c.entries, k)
		}
	}
	for k := range c.entries {
		if len(c.entries) < c.max/2+1 {
			break
		}
		delete(c.entries, k)
	}
}

// Sessions resolves the session of each request into its caller.
type Sessions struct{ r Resolver }

// NewSessions resolves with r (usually a Cache over an IdentityResolver).
func NewSessions(r Resolver) *Sessions { return &Sessions{r: r} }

// resolve answers ctx with the caller of token. An invalid session is an anonymous
// request (the route decides whether it needs a caller); identity being unavailable is an
// error, since treating a logged-in user as anonymous could misdirect a purchase.
func (s *Sessions) resolve(ctx context.Context, token string) (context.Context, error) {
	if token == "" {
		return ctx, nil
	}
	ctx = withToken(ctx, token)
	c, err := s.r.Resolve(ctx, token)
	switch {
	case err == nil:
		return WithCaller(ctx, c), nil
	case errs.CodeOf(err) == errs.Unauthorized:
		return ctx, nil
	default:
		return ctx, err
	}
}

// HTTP makes the session cookie's caller available to plain HTTP handlers. It resolves
// lazily, on the first CallerFrom or Require: requests that go on through grpc-gateway
// are resolved by the interceptor instead, so they cost one lookup, not two.
func (s *Sessions) HTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(SessionCookie)
		if err != nil || c.Value == "" {
			next.ServeHTTP(w, r)
			return
		}
		ctx := withToken(r.Context(), c.Value)
		ctx = context.WithValue(ctx, lazyKey{}, &lazy{s: s, ctx: context.WithoutCancel(ctx), token: c.Value})
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

type lazyKey struct{}

type lazy struct {
	s     *Sessions
	ctx   context.Context
	token string
	once  sync.Once
	c     Caller
	ok    bool
	err   error
}

func (l *lazy) get() (Caller, bool, error) {
	l.once.Do(func() {
		ctx, err := l.s.resolve(l.ctx, l.token)
		l.err = err
		l.c, l.ok = ctx.Value(callerKey{}).(Caller)
	})
	return l.c, l.ok, l.err
}

// UnaryInterceptor resolves the session of gRPC calls: the cookie grpc-gateway forwards
// for REST requests, or the session metadata another service forwards. Identity is asked
// for every token; a token is never trusted on its own.
func (s *Sessions) UnaryInterceptor() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		ctx, err := s.resolve(ctx, Token(ctx))
		if err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
}

// Options configure Install.
type Options struct {
	// Resolver answers sessions; wrap a remote one in a Cache.
	Resolver Resolver
	CSRF     CSRFConfig
}

// Install puts CSRF protection and session resolution on a service's public HTTP handler
// and its gRPC server (so gateway routes see the caller too).
func Install(s *server.Server, o Options) {
	sess := NewSessions(o.Resolver)
	s.UseHTTP(CSRF(o.CSRF), sess.HTTP)
	s.UseUnary(sess.UnaryInterceptor())
}

// Config is the shared-middleware configuration a service embeds in its own Config.
type Config struct {
	AllowedOrigins []string      `env:"ALLOWED_ORIGINS" default:"" doc:"the store's origins (scheme://host[:port]) allowed to make non-safe requests; empty: the request's own host"`
	TrustedProxies int           `env:"TRUSTED_PROXIES" default:"1" doc:"proxies in front of the service that append to X-Forwarded-For (the Ingress: 1)"`
	IdentityAddr   string        `env:"IDENTITY_ADDR" default:"" doc:"identity's gRPC address, for services that resolve sessions remotely"`
	CacheTTL       time.Duration `env:"SESSION_CACHE_TTL" default:"5s" doc:"how long a session token identity refused is refused without asking again (live sessions are never cached: a logout is seen at once)"`
	CacheSize      int           `env:"SESSION_CACHE_SIZE" default:"10000" doc:"refused session tokens kept in the resolver cache"`
}

// RemoteResolver resolves sessions through identity over conn, refusals cached.
// conn should come from kitclient.Dial with IdentityClient: its circuit breaker makes an
// identity outage fail requests fast.
func RemoteResolver(cfg Config, conn grpc.ClientConnInterface) Resolver {
	return NewCache(NewIdentityResolver(conn), cfg.CacheTTL, max(cfg.CacheSize, 16), time.Now)
}
