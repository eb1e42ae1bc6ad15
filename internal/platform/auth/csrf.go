package auth

import (
	"crypto/rand"
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
//     read it to echo it.
//
// Refusals are 403 in the one error shape. Any response to a request without the cookie
// issues one, so the page has a token before its first non-safe call.
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
			if cookie == "" {
				issueXSRF(w)
			}
			if safeMethod(r.Method) {
				next.ServeHTTP(w, r)
				return
			}
			if msg := checkCSRF(r, cookie, allowed); msg != "" {
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

func checkCSRF(r *http.Request, cookie string, allowed map[string]bool) string {
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
	return ""
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
	// Not HttpOnly: the page reads it to echo it. Secure always (browsers accept Secure
	// cookies on http://localhost); SameSite=Lax keeps it off cross-site subrequests.
	http.SetCookie(w, &http.Cookie{Name: XSRFCookie, Value: base64.RawURLEncoding.EncodeToString(b[:]), Path: "/",
		Secure: true, SameSite: http.SameSiteLaxMode})
}
