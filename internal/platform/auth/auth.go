// Package auth is the shared request security of every Hangar service: CSRF protection
// for non-safe methods (the XSRF-TOKEN cookie echoed in the X-XSRF-TOKEN header, plus
// Origin and Sec-Fetch-Site checks), and the session resolver that turns the `__Host-`
// session cookie into the caller by asking identity (every request: only refusals are
// cached, so a logout is seen at once), on
// both the service's plain HTTP routes and the gRPC handlers behind grpc-gateway. A
// service installs both with Install; handlers read the caller with CallerFrom or Require.
package auth

import (
	"context"
	"net"
	"net/http"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"github.com/hangar/hangar/internal/platform/clientaddr"
	"github.com/hangar/hangar/internal/platform/errs"
)

// Names on the wire.
const (
	// SessionCookie carries the opaque session token. The __Host- prefix makes browsers
	// insist on Secure, Path=/ and no Domain, so a sibling subdomain cannot plant or
	// overwrite it (browsers treat http://localhost as secure, so dev works too).
	SessionCookie = "__Host-hangar_session"
	// XSRFCookie is readable by the page, which echoes it in XSRFHeader.
	XSRFCookie = "XSRF-TOKEN"
	XSRFHeader = "X-XSRF-TOKEN"
	// SessionMetadata carries the session token between services (gRPC metadata), for a
	// service that calls another on behalf of its caller.
	SessionMetadata = "x-hangar-session"
	// gatewayCookie is how grpc-gateway forwards the Cookie header into gRPC metadata.
	gatewayCookie = "grpcgateway-cookie"
)

// Caller is who a request is made by: the account of a live session.
type Caller struct {
	AccountUUID string
	Username    string
	AccountKind string
	// OrganizationAccount is the organization the store acts for (the first membership)
	// and Roles every role in any organization: for display and defaults. Authorization
	// reads Memberships, where each role belongs to one organization.
	OrganizationAccount string
	Roles               []string
	Memberships         []Membership
	IsCreditCardAdmin   bool
	IsEmployee          bool
	IsMilitary          bool
	IsChild             bool
	SessionID           string
}

// Membership is the caller's place in one organization.
type Membership struct {
	OrganizationAccount string // the organization's own (business) account
	Roles               []string
}

// HasRole reports whether the membership carries role.
func (m Membership) HasRole(role string) bool {
	for _, r := range m.Roles {
		if r == role {
			return true
		}
	}
	return false
}

// RolesIn answers the roles the caller holds in the organization whose account is
// orgAccount (none when not a member): what a service checking roles over that
// organization's data must use instead of the union in Roles.
func (c Caller) RolesIn(orgAccount string) []string {
	for _, m := range c.Memberships {
		if orgAccount != "" && m.OrganizationAccount == orgAccount {
			return m.Roles
		}
	}
	return nil
}

// HasRole reports whether the caller holds role in any of their organizations (display
// and feature flags; authorization asks the membership of the organization concerned).
func (c Caller) HasRole(role string) bool {
	for _, r := range c.Roles {
		if r == role {
			return true
		}
	}
	return false
}

type callerKey struct{}
type tokenKey struct{}

// WithCaller answers ctx carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom answers the caller of the request, if it came with a live session.
func CallerFrom(ctx context.Context) (Caller, bool) {
	if c, ok := ctx.Value(callerKey{}).(Caller); ok {
		return c, true
	}
	if l, ok := ctx.Value(lazyKey{}).(*lazy); ok {
		c, ok, _ := l.get()
		return c, ok
	}
	return Caller{}, false
}

// ErrLoginRequired is the Unauthorized answer of a route that needs a session.
var ErrLoginRequired = errs.E(errs.Unauthorized, "Login Required")

// Require answers the caller, or ErrLoginRequired.
func Require(ctx context.Context) (Caller, error) {
	if l, ok := ctx.Value(lazyKey{}).(*lazy); ok {
		if _, _, err := l.get(); err != nil {
			return Caller{}, err
		}
	}
	if c, ok := CallerFrom(ctx); ok {
		return c, nil
	}
	return Caller{}, ErrLoginRequired
}

func withToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, tokenKey{}, token)
}

// Token answers the session token the request carried (resolved or not): from the
// context an HTTP middleware or interceptor set, else from the incoming gRPC metadata
// (the session metadata key, or the cookie grpc-gateway forwards).
func Token(ctx context.Context) string {
	if t, ok := ctx.Value(tokenKey{}).(string); ok {
		return t
	}
	// Single keys, not metadata.FromIncomingContext: that copies the whole map per call.
	if v := metadata.ValueFromIncomingContext(ctx, SessionMetadata); len(v) > 0 && v[0] != "" {
		return v[0]
	}
	for _, h := range metadata.ValueFromIncomingContext(ctx, gatewayCookie) {
		if t := cookieValue(h, SessionCookie); t != "" {
			return t
		}
	}
	return ""
}

// cookieValue finds a cookie in a Cookie header value.
func cookieValue(header, name string) string {
	cs, err := http.ParseCookie(header)
	if err != nil {
		// One malformed cookie should not hide ours: fall back to a plain scan.
		for _, part := range strings.Split(header, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
			if ok && k == name {
				return v
			}
		}
		return ""
	}
	for _, c := range cs {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// Outgoing answers ctx with the caller's session attached to outgoing gRPC metadata, for
// a service calling another on the caller's behalf.
func Outgoing(ctx context.Context) context.Context {
	if t := Token(ctx); t != "" {
		return metadata.AppendToOutgoingContext(ctx, SessionMetadata, t)
	}
	return ctx
}

// ClientIP answers the client's address of a gRPC call made through grpc-gateway. The
// gateway appends the address of its HTTP peer to X-Forwarded-For; trustedProxies is the
// number of proxies in front of the service that append their peer too (the Ingress: 1;
// the dev edge, which calls the service in-process: 0). Entries to the left of those are
// client-supplied and ignored (clientaddr walks the chain). Without the header it answers
// the gRPC peer's address.
func ClientIP(ctx context.Context, trustedProxies int) string {
	if xff := metadata.ValueFromIncomingContext(ctx, "x-forwarded-for"); len(xff) > 0 {
		if a := clientaddr.Hops(trustedProxies).FromChain(xff); a.IsValid() {
			return a.String()
		}
		return ""
	}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		if host, _, err := net.SplitHostPort(p.Addr.String()); err == nil {
			return host
		}
		return p.Addr.String()
	}
	return ""
}

// ClientKey answers the key every limit counts a client by: the client's address behind
// the trusted proxy chain (ClientIP), an IPv4 client by its address (/32) and an IPv6 one
// by its /64 (clientaddr.Key: a subscriber's whole network, so changing the interface
// identifier is not a new client). Empty when the address is unknown. Every rate limit
// of every service keys its per-client buckets with it (login, identity's anonymous
// routes, code attempts, card velocity, gift caps, password links).
func ClientKey(ctx context.Context, trustedProxies int) string {
	ip := ClientIP(ctx, trustedProxies)
	if ip == "" {
		return ""
	}
	return clientaddr.Key(ip)
}

// UserAgent answers the browser's user agent of a call through grpc-gateway.
func UserAgent(ctx context.Context) string {
	if v := metadata.ValueFromIncomingContext(ctx, "grpcgateway-user-agent"); len(v) > 0 {
		return v[0]
	}
	if v := metadata.ValueFromIncomingContext(ctx, "user-agent"); len(v) > 0 {
		return v[0]
	}
	return ""
}
