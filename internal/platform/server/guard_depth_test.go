package server_test

import (
	"strings"
	"testing"
)

// A body nested 100,000 deep (200 KB, under the body limit) sent to an anonymous GET route
// cost the old guard quadratic time and gigabytes (it built a path string per level) before
// routing, CSRF or the handler could refuse it. It is a 400 naming the body, refused by its
// depth; a flat body of too many values is refused by their count.
func TestDeepOrOversizedJSONIsRefused(t *testing.T) {
	t.Parallel()
	s, _, _ := startServer(t, &fake{})
	_, httpAddr, _ := s.Addrs()
	url := "http://" + httpAddr + "/account/api/subscription/available/fleet-prices"
	for _, c := range []struct{ name, body, says string }{
		{"arrays 100,000 deep", strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000), "nested too deeply"},
		{"objects 20,000 deep", strings.Repeat(`{"a":`, 20_000) + "1" + strings.Repeat("}", 20_000), "nested too deeply"},
		{"100,000 values", "[" + strings.Repeat("0,", 100_000) + "0]", "too many values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := do(t, "GET", url, "application/json", c.body)
			if a.status != 400 || fieldOf(a.body) != "body" || !strings.Contains(a.body.Message, c.says) {
				t.Fatalf("= %d %.300s; want 400 naming body, saying %q", a.status, a.raw, c.says)
			}
		})
	}
}

// Found by FuzzGuardJSON: a value after an empty object (`{}""`) made the old guard read it
// as a key of no object and panic (a 500 for any anonymous caller).
func TestValueAfterEmptyObjectIsNoServerError(t *testing.T) {
	t.Parallel()
	s, _, _ := startServer(t, &fake{})
	_, httpAddr, _ := s.Addrs()
	for _, body := range []string{`{}""`, `[{},"x"]`, `{"a":{}}"b"`} {
		a := do(t, "GET", "http://"+httpAddr+"/account/api/subscription/available/fleet-prices", "application/json", body)
		if a.status >= 500 {
			t.Errorf("%s = %d %s; want no server error", body, a.status, a.raw)
		}
	}
}
