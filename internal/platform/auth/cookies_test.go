package auth

import (
	"net/http"
	"strings"
	"testing"
)

// parseCookieValue is how cookieValue read a Cookie header before it walked it in place.
func parseCookieValue(header, name string) string {
	cs, err := http.ParseCookie(header)
	if err != nil {
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

var cookieSeeds = []string{
	"", " ", ";", "a=1", "a=1;", "a=1; b=2", " a = 1 ; b=2", "a=1;;b=2", "a=\"q\"", "a=\"\"", "a=\"",
	"a=x\\y", "a=x\"y", "a=\x7f", "a=é", "a b=1; a=2", "=1; a=2", "a; a=2", "a=1; a=2", "a=2; bad name=1",
	"a=\tv", "\ta=1\t;\tb=2", "a=1 ; b=\"x y\"", "a=1,2", "a=1; " + strings.Repeat("c=1; ", 70) + "a=3",
	strings.Repeat("x=1;", 3001),
}

// The in-place readers answer what net/http's answer, on well-formed and malformed
// headers alike.
func FuzzCookieReaders(f *testing.F) {
	for _, s := range cookieSeeds {
		f.Add(s, "a")
		f.Add(s, "b")
	}
	f.Fuzz(func(t *testing.T, header, name string) {
		if name == "" {
			return
		}
		if got, want := cookieValue(header, name), parseCookieValue(header, name); got != want {
			t.Errorf("cookieValue(%q, %q) = %q, want %q", header, name, got, want)
		}
		for _, lines := range [][]string{{header}, {header, "a=9; " + header}} {
			r := &http.Request{Header: http.Header{"Cookie": lines}}
			got, ok := requestCookie(r, name)
			c, err := r.Cookie(name)
			if want := err == nil; ok != want || want && got != c.Value {
				t.Errorf("requestCookie(%q, %q) = %q, %v; r.Cookie: %v, %v", lines, name, got, ok, c, err)
			}
		}
	})
}

// Reading the session and device cookies builds nothing.
//
//layercheck:serial it counts what the process allocates: other tests' allocations beside it would count
func TestCookieReadersAllocateNothing(t *testing.T) {
	header := "_ga=GA1.1.1.1; " + SessionCookie + "=tok; " + XSRFCookie + "=x; " + DeviceCookie + "=\"dev\""
	r := &http.Request{Header: http.Header{"Cookie": {header}}}
	if n := testing.AllocsPerRun(100, func() {
		if cookieValue(header, DeviceCookie) != "dev" || cookieValue(header, SessionCookie) != "tok" {
			t.Fatal("cookieValue missed a cookie")
		}
		if v, ok := requestCookie(r, XSRFCookie); !ok || v != "x" {
			t.Fatal("requestCookie missed a cookie")
		}
	}); n != 0 {
		t.Errorf("%v allocations per read, want none", n)
	}
}
