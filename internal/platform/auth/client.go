package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// Client is who made a request at the edge, as a service calling another on its behalf
// passes it on: the client's address, a reference to its session (a hash of the token:
// a key to count by, useless as a credential) and the account that session is logged in to
// (empty for an anonymous one). The card-testing rules of payments count declines by them
// for the charges checkout makes, and against an account only when it is the session's own
// (a charge naming someone else's account or e-mail must not spend that customer's budget).
//
// Device is a reference to the browser's device cookie (DeviceCookie, a hash of it: the
// cookie is random and HttpOnly, so nobody can name another person's device) and Human
// says the request passed human verification where the calling service asked for it: past
// its decline limit a card attempt that passed goes on (payments' velocity rule).
type Client struct {
	Addr    string
	Session string
	Account string
	Device  string
	Human   bool
}

// DeviceCookie is the device cookie identity sets at a login (a random id signed for the
// account, OWASP's device cookie): a known device's login is throttled by its own attempts
// only, and a device's declined card attempts count against it (payments).
const DeviceCookie = "__Secure-hangar_device"

// maxDeviceCookie bounds the cookie value taken as a device (identity issues ~66 bytes).
const maxDeviceCookie = 128

// Metadata keys of a forwarded Client (internal: the public listeners drop Grpc-Metadata-*
// and X-Hangar-*, so only another service can set them).
const (
	clientAddrMetadata    = "x-hangar-client-addr"
	clientSessionMetadata = "x-hangar-client-session"
	clientAccountMetadata = "x-hangar-client-account"
	clientDeviceMetadata  = "x-hangar-client-device"
	clientHumanMetadata   = "x-hangar-client-human"
)

type clientKey struct{}

// SessionRef answers the reference of a session token (empty for none).
func SessionRef(token string) string {
	if token == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("hangar session ref\x00" + token))
	return hex.EncodeToString(sum[:12])
}

// DeviceRef answers the reference of the device cookie the request carried (empty for
// none): a key to count by, useless as the cookie.
func DeviceRef(ctx context.Context) string {
	v := DeviceCookieValue(ctx)
	if v == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("hangar device ref\x00" + v))
	return hex.EncodeToString(sum[:12])
}

// DeviceCookieValue answers the device cookie the browser sent through the gateway (empty
// for none or one longer than a device cookie can be).
func DeviceCookieValue(ctx context.Context) string {
	for _, h := range metadata.ValueFromIncomingContext(ctx, gatewayCookie) {
		if v := cookieValue(h, DeviceCookie); v != "" && len(v) <= maxDeviceCookie {
			return v
		}
	}
	return ""
}

// HumanVerified marks the recorded client of ctx as having passed human verification, so
// OutgoingClient tells the next service (nothing when no client was recorded).
func HumanVerified(ctx context.Context) context.Context {
	c, ok := ClientFrom(ctx)
	if !ok {
		return ctx
	}
	c.Human = true
	return context.WithValue(ctx, clientKey{}, c)
}

// ClientInterceptor records the client of every call (ClientIP with trustedProxies and the
// session's reference) for ClientFrom and OutgoingClient.
func ClientInterceptor(trustedProxies int) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		c := Client{Addr: ClientIP(ctx, trustedProxies), Session: SessionRef(Token(ctx)), Device: DeviceRef(ctx)}
		return handler(context.WithValue(ctx, clientKey{}, c), req)
	}
}

// ClientFrom answers the client ClientInterceptor recorded.
func ClientFrom(ctx context.Context) (Client, bool) {
	c, ok := ctx.Value(clientKey{}).(Client)
	return c, ok
}

// OutgoingClient attaches the recorded client to ctx's outgoing metadata (nothing when
// none was recorded: a renewal, a background job), with the account of the caller's
// session when it is logged in.
func OutgoingClient(ctx context.Context) context.Context {
	c, ok := ClientFrom(ctx)
	if !ok || c.Addr == "" && c.Session == "" {
		return ctx
	}
	kv := []string{clientAddrMetadata, c.Addr, clientSessionMetadata, c.Session}
	if c.Device != "" {
		kv = append(kv, clientDeviceMetadata, c.Device)
	}
	if c.Human {
		kv = append(kv, clientHumanMetadata, "1")
	}
	if who, ok := CallerFrom(ctx); ok && who.AccountUUID != "" {
		kv = append(kv, clientAccountMetadata, who.AccountUUID)
	}
	return metadata.AppendToOutgoingContext(ctx, kv...)
}

// ForwardedClient answers the client another service forwarded with the call (ok false
// when it forwarded none).
func ForwardedClient(ctx context.Context) (Client, bool) {
	addr, sess := metadata.ValueFromIncomingContext(ctx, clientAddrMetadata), metadata.ValueFromIncomingContext(ctx, clientSessionMetadata)
	if len(addr) == 0 && len(sess) == 0 {
		return Client{}, false
	}
	var c Client
	if len(addr) > 0 {
		c.Addr = addr[0]
	}
	if len(sess) > 0 {
		c.Session = sess[0]
	}
	if a := metadata.ValueFromIncomingContext(ctx, clientAccountMetadata); len(a) > 0 {
		c.Account = a[0]
	}
	if d := metadata.ValueFromIncomingContext(ctx, clientDeviceMetadata); len(d) > 0 {
		c.Device = d[0]
	}
	if h := metadata.ValueFromIncomingContext(ctx, clientHumanMetadata); len(h) > 0 {
		c.Human = h[0] == "1"
	}
	return c, true
}
