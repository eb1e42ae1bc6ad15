package server

import (
	"net/http"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
)

// apiHeaders sets the security headers of an API answer before the handler runs, so a
// handler that means otherwise (the catalogue's cacheable reads, the hosted card fields
// page that the store frames) overrides them with Header().Set:
//   - Cache-Control: no-store. Most answers carry personal data (the user, subscriptions,
//     payment methods, receipts); a route that is public and cacheable says so itself.
//   - nosniff, so a JSON answer is never run as a script or rendered as a page;
//   - a CSP that lets an API answer load nothing and be framed by no one;
//   - no Referer leaves from an API answer.
func apiHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// What h.Set does for these canonical names, with one backing array for the four
		// values instead of one each; capped slices, so a handler's Add copies instead of
		// writing over a neighbour.
		h := w.Header()
		v := &[4]string{"no-store", "nosniff", "default-src 'none'; frame-ancestors 'none'", "no-referrer"}
		h["Cache-Control"] = v[0:1:1]
		h["X-Content-Type-Options"] = v[1:2:2]
		h["Content-Security-Policy"] = v[2:3:3]
		h["Referrer-Policy"] = v[3:4:4]
		next.ServeHTTP(w, r)
	})
}

// internalPrefixes name the request headers that are channels between our own components,
// never to be accepted from outside: grpc-gateway turns Grpc-Metadata-<name> into gRPC
// metadata <name> (x-hangar-session there authenticates a service-to-service call), and
// X-Hangar-* are our own internal names.
var internalPrefixes = []string{"Grpc-Metadata-", "X-Hangar-"}

// IsInternalHeader reports whether a request header (any case) is an internal channel that
// the edge, the Ingress and every service's public listener drop.
func IsInternalHeader(name string) bool {
	c := http.CanonicalHeaderKey(name)
	for _, p := range internalPrefixes {
		if strings.HasPrefix(c, p) {
			return true
		}
	}
	return false
}

// StripInternalHeaders deletes every internal header of h (see IsInternalHeader).
func StripInternalHeaders(h http.Header) {
	for k := range h {
		if IsInternalHeader(k) {
			delete(h, k)
		}
	}
}

// gatewayHeaders are the metadata keys runtime.DefaultHeaderMatcher gives the permanent
// headers a browser sends, lower-cased: metadata.Pairs lower-cases every key the matcher
// answers, and building "grpcgateway-<Name>" and then its lower case cost two strings per
// header per request. Read only.
var gatewayHeaders = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"Accept", "Accept-Charset", "Accept-Language", "Authorization", "Cache-Control",
		"Content-Type", "Cookie", "Date", "Expect", "From", "Host", "If-Match", "If-Modified-Since", "If-None-Match",
		"If-Unmodified-Since", "Origin", "Pragma", "Referer", "User-Agent", "Via", "Warning"} {
		if h, ok := runtime.DefaultHeaderMatcher(k); ok {
			m[k] = strings.ToLower(h)
		}
	}
	return m
}()

// IncomingHeader is the gateway's incoming header matcher: grpc-gateway's default (the
// permanent HTTP headers as grpcgateway-<name>, lower-cased for the common ones as
// metadata keys are) without the Grpc-Metadata-* channel. A
// service that forwards a header of its own (checkout's Idempotency-Key) falls back to it.
func IncomingHeader(key string) (string, bool) {
	if h, ok := gatewayHeaders[key]; ok {
		return h, true
	}
	if IsInternalHeader(key) {
		return "", false
	}
	return runtime.DefaultHeaderMatcher(key)
}

// stripInternal drops the internal headers of every public request, before any handler
// or the gateway sees them: the services' own gateway options may install an incoming
// header matcher that forwards Grpc-Metadata-* (the default one does), and a request can
// reach a service's HTTP port without the edge.
func stripInternal(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		StripInternalHeaders(r.Header)
		next.ServeHTTP(w, r)
	})
}
