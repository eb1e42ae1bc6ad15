package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
)

// CSRFConfig configures the CSRF middleware.
type CSRFConfig struct {
	// AllowedOrigins are the store's own origins ("https://store.example.com",
	// "http://localhost:8080"). A non-safe request whose Origin is another origin is
	// refused. Empty: Origin must match the request's own host.
	AllowedOrigins []string
}

// CSRF protects non-safe methods (everything but GET, HEAD, OPTIONS, TRACE):
//   - Sec-Fetch-Site cross-site is refused outright (the browser says the request was
//     made by another site), and same-site is refused unless Origin is allowed;
//   - an Origin header, when present, must be an allowed origin;
//   - the X-XSRF-TOKEN header must equal the XSRF-TOKEN cookie (double submit, compared
//     in constant time). Another site can make the browser send the cookie but cannot
//     read it to echo it;
//   - with a session, the token must moreover be the session's own (SessionXSRF, derived
//     from the HttpOnly session token): a cookie/header pair planted by an attacker (a
//     sibling subdomain can write a non-__Host- cookie) does not pass on a logged-in
//     session.
//
// Refusals are 403 in the one error shape. Any response to a request without the right
// cookie issues one (the session's token when there is a session), so the page has a
// token before its first non-safe call.
func CSRF(cfg CSRFConfig) func(http.Handler) http.Handler {
	allowed := map[string]bool{}
	for _, o := range cfg.AllowedOrigins {
		allowed[strings.TrimRight(strings.ToLower(o), "/")] = true
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			cookie := ""
			if c, err := r.Cookie(XSRFCookie); err == nil {
				cookie = c.Value
			}
			bound := ""
			if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
				bound = SessionXSRF(c.Value)
			}
			switch {
			case bound != "" && cookie != bound:
				SetXSRFCookie(w, bound)
			case cookie == "":
				issueXSRF(w)
			}
			if safeMethod(r.Method) {
				next.ServeHTTP(w, r)
				return
			}
			if msg := checkCSRF(r, cookie, bound, allowed); msg != "" {
				server.WriteError(w, errs.E(errs.Forbidden, "%s", msg))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func safeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

func checkCSRF(r *http.Request, cookie, bound string, allowed map[string]bool) string {
	origin := strings.TrimRight(strings.ToLower(r.Header.Get("Origin")), "/")
	originOK := origin == "" || allowed[origin] || (len(allowed) == 0 && sameHost(origin, r.Host))
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site":
		return "Cross-site request refused."
	case "same-site":
		if origin == "" || !originOK {
			return "Cross-origin request refused."
		}
	}
	if !originOK {
		return "Cross-origin request refused."
	}
	header := r.Header.Get(XSRFHeader)
	if cookie == "" || header == "" {
		return "Missing XSRF token: send the XSRF-TOKEN cookie's value in the X-XSRF-TOKEN header."
	}
	if subtle.ConstantTimeCompare([]byte(cookie), []byte(header)) != 1 {
		return "XSRF token mismatch: reload the page and try again."
	}
	if bound != "" && subtle.ConstantTimeCompare([]byte(bound), []byte(header)) != 1 {
		return "XSRF token mismatch: reload the page and try again."
	}
	return ""
}

// xsrfLabel separates the XSRF derivation from any other use of the session token.
var xsrfLabel = []byte("hangar xsrf v1")

// SessionXSRF is the XSRF token of a session: an HMAC of the session token. Only someone
// holding the (HttpOnly) session token can compute it, so it cannot be planted, and every
// service derives the same value without sharing a secret. The page may read it: it does
// not reveal the session token.
func SessionXSRF(sessionToken string) string {
	m := hmac.New(sha256.New, xsrfLabel)
	m.Write([]byte(sessionToken))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// SetXSRFCookie sets the page-readable XSRF cookie (identity sets the new session's token
// when it starts a session, so the page's next call carries it).
func SetXSRFCookie(w http.ResponseWriter, token string) {
	// Not HttpOnly: the page reads it to echo it. Secure always (browsers accept Secure
	// cookies on http://localhost); SameSite=Lax keeps it off cross-site subrequests.
	http.SetCookie(w, &http.Cookie{Name: XSRFCookie, Value: token, Path: "/", Secure: true, SameSite: http.SameSiteLaxMode})
}

func sameHost(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, host)
}

func issueXSRF(w http.ResponseWriter) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return // no token this time; the next response tries again
	}
	SetXSRFCookie(w, base64.RawURLEncoding.EncodeToString(b[:]))
}
