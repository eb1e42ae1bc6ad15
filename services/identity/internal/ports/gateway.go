package ports

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/protobuf/proto"

	"github.com/hangar/hangar/internal/platform/auth"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/identity/internal/domain"
)

// GatewayOptions are identity's grpc-gateway settings.
//
// Cookies: login, create-account and logout stay ordinary RPCs (one contract, one error
// mapping, one OpenAPI document); the handler puts the new token in response metadata and
// the forward-response hook below turns it into the Set-Cookie header. A failed (401) or
// throttled (429) login is an error like any other (its body has the spec's status and
// msg, errs.Body). No response metadata is forwarded as a header otherwise, so the token
// can only leave as the HttpOnly cookie.
//
// Forms: the eligibility forms may be posted form-encoded as well as JSON.
func GatewayOptions() []runtime.ServeMuxOption {
	return []runtime.ServeMuxOption{
		runtime.WithForwardResponseOption(forwardResponse),
		runtime.WithOutgoingHeaderMatcher(func(string) (string, bool) { return "", false }),
		server.FormMarshalerOption(),
	}
}

func forwardResponse(ctx context.Context, w http.ResponseWriter, _ proto.Message) error {
	md, ok := runtime.ServerMetadataFromContext(ctx)
	if !ok {
		return nil
	}
	h := md.HeaderMD
	if v := h.Get(mdSetSession); len(v) > 0 {
		age, _ := strconv.Atoi(first(h.Get(mdSessionAge)))
		http.SetCookie(w, sessionCookie(v[0], age))
		// The new session's XSRF token, so the page's next non-safe call carries it.
		auth.SetXSRFCookie(w, auth.SessionXSRF(v[0]))
		w.Header().Set("Cache-Control", "no-store")
	}
	if v := h.Get(mdSetDevice); len(v) > 0 {
		http.SetCookie(w, &http.Cookie{Name: DeviceCookie, Value: v[0], Path: "/", MaxAge: int(domain.DeviceCookieAge.Seconds()),
			Secure: true, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	}
	if len(h.Get(mdClearSession)) > 0 {
		http.SetCookie(w, sessionCookie("", -1))
		w.Header().Set("Cache-Control", "no-store")
	}
	return nil
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// DeviceCookie is the device cookie of a browser that logged in (domain.DeviceCookies):
// kept over logout (it is no session), HttpOnly, sent to every route of the store (Path=/)
// because the card-testing rule of payments counts a device's declined card attempts
// against it (auth.Client.Device); only the login reads its signature.
const DeviceCookie = auth.DeviceCookie

// sessionCookie is the __Host- session cookie: Secure, HttpOnly, SameSite=Lax, Path=/,
// no Domain. maxAge < 0 deletes it.
func sessionCookie(token string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: auth.SessionCookie, Value: token, Path: "/", MaxAge: maxAge,
		Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode}
}

// slashRoutes are the spec's paths that end in a slash; grpc-gateway path templates
// cannot, so the routes are declared without it and requests are mapped here.
var slashRoutes = map[string]bool{"/pricing/api/create-account/": true, "/account/api/users/": true, "/org/api/groups/": true}

// TrailingSlash serves the spec's slash-terminated paths by their gateway routes.
func TrailingSlash(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slashRoutes[r.URL.Path] {
			r2 := r.Clone(r.Context())
			r2.URL.Path = strings.TrimSuffix(r.URL.Path, "/")
			r2.URL.RawPath = ""
			next.ServeHTTP(w, r2)
			return
		}
		next.ServeHTTP(w, r)
	})
}
