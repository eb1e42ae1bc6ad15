package server

import "net/http"

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
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}
