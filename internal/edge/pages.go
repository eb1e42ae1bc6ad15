package edge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// APIPrefixes are the public API trees. A path under one of them that no route serves is
// an API call to something that does not exist: it answers a JSON 404, never the page
// (a client reading the page's 200 as success would take a failed purchase for a done one).
// The partner-account (/buy/jepp/) and eligibility (/buy/eligibility/) calls are API trees
// outside /api/, with no page below them.
var APIPrefixes = []string{"/buy/api/", "/account/api/", "/pricing/api/", "/org/api/", "/buy/jepp/", "/buy/eligibility/"}

func isAPIPath(p string) bool {
	for _, pre := range APIPrefixes {
		if strings.HasPrefix(p, pre) || p == strings.TrimSuffix(pre, "/") {
			return true
		}
	}
	return false
}

// Pages are the page paths the shell routes, as patterns: "/buy" (exactly), "/gift/*"
// (anything below), "/product/cart/:cartId" (one segment), each with the remote that renders
// it. A page path that matches none is answered with the shell and status 404: the shell
// renders its not-found page.
type Pages struct {
	patterns []string
	remotes  []string // remotes[i] renders patterns[i]; "" when the table does not say
}

// reShellPath finds the paths of the shell's route table (web/apps/shell/src/routes.ts) and
// the remote each names.
var reShellPath = regexp.MustCompile(`path:\s*'([^']+)'(?:,\s*remote:\s*'([^']+)')?`)

// LoadPages reads the page patterns from the shell's route table, the one list of pages.
// A missing file answers nil: every page path is served (as before the shell had routes).
func LoadPages(file string) (*Pages, error) {
	raw, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read page routes: %w", err)
	}
	ps := &Pages{}
	for _, m := range reShellPath.FindAllStringSubmatch(string(raw), -1) {
		ps.patterns = append(ps.patterns, m[1])
		ps.remotes = append(ps.remotes, m[2])
	}
	if len(ps.patterns) == 0 {
		return nil, fmt.Errorf("read page routes: no paths in %s", file)
	}
	return ps, nil
}

// NewPages builds a matcher over patterns.
func NewPages(patterns []string) *Pages {
	return &Pages{patterns: patterns, remotes: make([]string, len(patterns))}
}

// Remote answers the remote that renders page path p ("" when none is known): a pattern
// without parameters first ("/buy/success" before "/buy/:addOns"), as the shell's router
// ranks them.
func (ps *Pages) Remote(p string) string {
	if ps == nil {
		return ""
	}
	p = pagePath(p)
	found := ""
	for i, pat := range ps.patterns {
		if !matchPage(pat, p) {
			continue
		}
		if !strings.ContainsAny(pat, ":*") {
			return ps.remotes[i]
		}
		if found == "" {
			found = ps.remotes[i]
		}
	}
	return found
}

// Known reports whether p is a page path of the shell.
func (ps *Pages) Known(p string) bool {
	if ps == nil {
		return true
	}
	p = pagePath(p)
	for _, pat := range ps.patterns {
		if matchPage(pat, p) {
			return true
		}
	}
	return false
}

// pagePath is p as the patterns are written: no trailing slash, "/" for the root.
func pagePath(p string) string {
	if p = strings.TrimSuffix(p, "/"); p == "" {
		return "/"
	}
	return p
}

func matchPage(pat, p string) bool {
	if rest, ok := strings.CutSuffix(pat, "/*"); ok {
		return p == rest || strings.HasPrefix(p, rest+"/")
	}
	ps, qs := strings.Split(pat, "/"), strings.Split(p, "/")
	if len(ps) != len(qs) {
		return false
	}
	for i := range ps {
		if strings.HasPrefix(ps[i], ":") {
			if qs[i] == "" {
				return false
			}
			continue
		}
		if ps[i] != qs[i] {
			return false
		}
	}
	return true
}

// RemoteOrigins answers the origins other than the store's that the web build's runtime
// config (config.json) loads remotes from, for the CSP.
func RemoteOrigins(webDir string) []string {
	raw, err := os.ReadFile(filepath.Join(webDir, "config.json"))
	if err != nil {
		return nil
	}
	var doc struct {
		Remotes map[string]string `json:"remotes"`
	}
	if json.Unmarshal(raw, &doc) != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, entry := range doc.Remotes {
		u, err := url.Parse(entry)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		o := u.Scheme + "://" + u.Host
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	sort.Strings(out)
	return out
}

func setHeaders(w http.ResponseWriter, h http.Header) {
	for k, v := range h {
		w.Header()[k] = v
	}
}
