package auth

import (
	"net/http"
	"net/textproto"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// Every request reads two or three cookies (the XSRF token, the session, the device), on
// the HTTP side and again from the Cookie header the gateway forwards. net/http's readers
// build every cookie of the header to answer one (http.ParseCookie: a slice and a Cookie
// each; Request.Cookie: a slice and the match), so the readers here walk the header in
// place with net/http's own rules and answer exactly what those calls answer.

// scannedCookies is how many cookies a header may carry for the readers here to walk it;
// past it net/http reads it, since its cap on the number of cookies is a setting
// (GODEBUG httpcookiemaxnum, 3000 by default) these readers cannot see.
const scannedCookies = 64

// cookieValue finds a cookie in a Cookie header value: the first cookie of that name as
// http.ParseCookie reads the header, or, where ParseCookie refuses the whole header, the
// raw value of a plain scan (one malformed cookie should not hide ours).
func cookieValue(header, name string) string {
	if !strings.Contains(header, name) {
		return "" // neither reading can find a name the header does not hold
	}
	if v, ok := parsedCookie(header, name); ok {
		return v
	}
	for _, part := range strings.Split(header, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok && k == name {
			return v
		}
	}
	return ""
}

// parsedCookie answers the value http.ParseCookie gives the first cookie called name in
// header ("" when there is none), ok false when ParseCookie refuses the header.
func parsedCookie(header, name string) (string, bool) {
	if strings.Count(header, ";") >= scannedCookies {
		cs, err := http.ParseCookie(header)
		if err != nil {
			return "", false
		}
		for _, c := range cs {
			if c.Name == name {
				return c.Value, true
			}
		}
		return "", true
	}
	// ParseCookie: split the trimmed header at every ';' (an empty part is an error, as is
	// an empty header), each part trimmed and cut at its first '='.
	line, value, found := textproto.TrimString(header), "", false
	for more := true; more; {
		var part string
		part, line, more = strings.Cut(line, ";")
		k, v, ok := strings.Cut(textproto.TrimString(part), "=")
		if !ok || !httpguts.ValidHeaderFieldName(k) {
			return "", false
		}
		if v, ok = validCookieValue(v); !ok {
			return "", false
		}
		if !found && k == name {
			value, found = v, true
		}
	}
	return value, true
}

// requestCookie answers what r.Cookie(name) finds in the request's Cookie headers (name
// is not empty): the first well-formed cookie of that name.
func requestCookie(r *http.Request, name string) (string, bool) {
	lines := r.Header["Cookie"]
	n := 0
	for _, line := range lines {
		n += strings.Count(line, ";") + 1
	}
	if n > scannedCookies {
		c, err := r.Cookie(name)
		if err != nil {
			return "", false
		}
		return c.Value, true
	}
	// net/http's readCookies: parts that are empty, unnamed or malformed are skipped.
	for _, line := range lines {
		line = textproto.TrimString(line)
		for len(line) > 0 {
			var part string
			part, line, _ = strings.Cut(line, ";")
			part = textproto.TrimString(part)
			if part == "" {
				continue
			}
			k, v, _ := strings.Cut(part, "=")
			if k = textproto.TrimString(k); k != name || !httpguts.ValidHeaderFieldName(k) {
				continue
			}
			if v, ok := validCookieValue(v); ok {
				return v, true
			}
		}
	}
	return "", false
}

// validCookieValue is net/http's reading of a cookie value: surrounding double quotes
// dropped, then every byte a cookie-octet (RFC 6265) or a space or a comma.
func validCookieValue(raw string) (string, bool) {
	if len(raw) > 1 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		raw = raw[1 : len(raw)-1]
	}
	for i := 0; i < len(raw); i++ {
		if b := raw[i]; b < 0x20 || b >= 0x7f || b == '"' || b == ';' || b == '\\' {
			return "", false
		}
	}
	return raw, true
}
