package edge

import (
	"encoding/json"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
)

// Backend is where the edge sends a service's routes.
type Backend struct {
	Name string
	// URL of the service's HTTP listener.
	URL *url.URL
	// Handler, when set, serves the routes in-process instead of proxying to URL (the dev
	// runner's services live in the same process, so a loopback hop would only add cost).
	Handler http.Handler
	// Replicas, when set, are the service's processes (URL is then unused): the edge
	// spreads requests over the ready ones and moves a failed idempotent request to another
	// (replicas.go).
	Replicas []Replica
	// Ready reports the service's readiness for /-/ready, and gates its routes (with
	// Replicas and no Ready: ready while any replica is): while it answers false the edge answers 503 with Retry-After itself, as the Ingress does
	// when a Service has no ready endpoint (the readiness probe on /readyz). Cheap: it is
	// called per request.
	Ready func() bool
}

// Edge routes requests by the table to backends, serves the web build for the "web"
// service, and answers /-/ready (every backend ready) for scripts and tests.
type Edge struct {
	table    *Table
	proxies  map[string]http.Handler
	ready    map[string]func() bool
	backends []Backend
	web      http.Handler
	webDir   string
	pageHdrs *Headers
	headers  http.Header
	log      *slog.Logger
	// exchanges, when set, records the API exchanges (WithExchangeLog).
	exchanges *exchangeLog
	upstream  *http.Transport
}

// Upstream timeouts, as the Ingress has them (chart values ingress.annotations): a backend
// that does not accept a connection within UpstreamConnectTimeout, or does not start its
// answer within UpstreamResponseTimeout (a paused or wedged process), is answered 504 with
// Retry-After instead of holding the buyer's request (it hung ~15 s, issue 30). The
// response bound is above the longest a healthy route takes (a submit: the card processor's
// round trip within payments' deadlines).
const (
	UpstreamConnectTimeout  = 2 * time.Second
	UpstreamResponseTimeout = 30 * time.Second
)

// New builds an edge. headers are the pages' security headers (LoadHeaders of the chart's
// headers.yaml). webDir is the web production build (index.html at its root); when it does
// not exist a placeholder page is served instead.
func New(table *Table, headers *Headers, backends []Backend, webDir string, log *slog.Logger) *Edge {
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: UpstreamConnectTimeout}).DialContext,
		ResponseHeaderTimeout: UpstreamResponseTimeout,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
	}
	e := &Edge{table: table, proxies: map[string]http.Handler{}, ready: map[string]func() bool{}, backends: backends, log: log, web: Static(webDir),
		webDir: webDir, pageHdrs: headers, headers: headers.Page(RemoteOrigins(webDir), ""), upstream: transport}
	for _, b := range backends {
		if b.Ready != nil {
			e.ready[b.Name] = b.Ready
		}
		if b.Handler != nil {
			e.proxies[b.Name] = b.Handler
			continue
		}
		if b.URL == nil && len(b.Replicas) == 0 {
			continue
		}
		set := newReplicaSet(b.Name, b.replicas(), table, transport, log)
		e.proxies[b.Name] = set
		if b.Ready == nil {
			e.ready[b.Name] = set.ready
		}
	}
	return e
}

// WithUpstreamTimeout bounds how long the edge waits for a backend's answer to start
// (tests; UpstreamResponseTimeout otherwise).
func (e *Edge) WithUpstreamTimeout(d time.Duration) *Edge {
	e.upstream.ResponseHeaderTimeout = d
	return e
}

// WithFieldsOrigin lets the pages frame payments' card fields from origin (the fields
// origin, docs/pci-saq-a.md): the CSP's fieldsOriginDirectives (frame-src) name it and
// nothing else.
func (e *Edge) WithFieldsOrigin(origin string) *Edge {
	e.headers = e.pageHdrs.Page(RemoteOrigins(e.webDir), origin)
	return e
}

// WithPages makes page paths the shell does not route answer 404 (with the shell, which
// shows its not-found page). Without it every page path is the shell with 200.
func (e *Edge) WithPages(p *Pages) *Edge {
	e.web = StaticPages(e.webDir, p)
	return e
}

func (e *Edge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/-/ready" {
		e.serveReady(w)
		return
	}
	route, ok := e.table.Match(r.URL.Path)
	if e.exchanges != nil && (!ok || route.Service != "web" || isAPIPath(r.URL.Path)) {
		e.logged(w, r, e.serveRoute)
		return
	}
	e.serveRoute(w, r)
}

func (e *Edge) serveRoute(w http.ResponseWriter, r *http.Request) {
	route, ok := e.table.Match(r.URL.Path)
	if !ok || (route.Service == "web" && isAPIPath(r.URL.Path)) {
		// An API path no service routes is a JSON 404 whatever the method (the route table
		// also sends these trees to a service that answers so, for the Ingress).
		server.WriteError(w, errs.E(errs.NotFound, "no route for %s", r.URL.Path))
		return
	}
	if route.Service == "web" {
		setHeaders(w, e.headers)
		e.web.ServeHTTP(w, r)
		return
	}
	// As the Ingress does: internal channels (Grpc-Metadata-*, X-Hangar-*) never come from
	// outside. The services drop them too; this keeps them off the wire to the backend.
	server.StripInternalHeaders(r.Header)
	if ready, ok := e.ready[route.Service]; ok && !ready() {
		writeNoReplica(w)
		return
	}
	p, ok := e.proxies[route.Service]
	if !ok {
		writeNoReplica(w)
		return
	}
	p.ServeHTTP(w, r)
}

// replicas answers the backend's processes: Replicas, or the one at URL.
func (b Backend) replicas() []Replica {
	if len(b.Replicas) > 0 {
		return b.Replicas
	}
	return []Replica{{URL: b.URL, Ready: b.Ready}}
}

func (e *Edge) serveReady(w http.ResponseWriter) {
	status := map[string]bool{}
	addrs := map[string]string{}
	all := true
	for _, b := range e.backends {
		ready := e.ready[b.Name]
		ok := ready == nil || ready()
		status[b.Name] = ok
		all = all && ok
		if b.URL != nil || len(b.Replicas) > 0 {
			var hosts []string
			for _, rep := range b.replicas() {
				hosts = append(hosts, rep.URL.String())
			}
			addrs[b.Name] = strings.Join(hosts, ",")
		}
	}
	code := http.StatusOK
	if !all {
		code = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, code, map[string]any{"ready": all, "services": status, "backends": addrs})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// Static serves a single-page-app build: files as they are (fingerprinted assets cached
// for a year, everything else revalidated), and index.html for page paths with no file,
// so client-side routes load the shell. Without a build it serves a placeholder page.
func Static(dir string) http.Handler { return StaticPages(dir, nil) }

// StaticPages is Static answering 404 (still with the shell, which renders its not-found
// page) for a page path that pages does not know.
func StaticPages(dir string, pages *Pages) http.Handler {
	if st, err := os.Stat(filepath.Join(dir, "index.html")); err != nil || st.IsDir() {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			_, _ = w.Write([]byte(placeholder))
		})
	}
	fs := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The machine's MIME tables decide otherwise unknown extensions, and some (the
		// shared-mime-info globs) say audio/webm for .webm: the marketing home video is
		// video (the Ingress's nginx table says so too).
		if strings.HasSuffix(r.URL.Path, ".webm") {
			w.Header().Set("Content-Type", "video/webm")
		}
		clean := path.Clean("/" + r.URL.Path)
		full := filepath.Join(dir, filepath.FromSlash(clean))
		st, err := os.Stat(full)
		if err != nil || st.IsDir() {
			if assetPath(clean) || (path.Ext(clean) != "" && !strings.HasSuffix(clean, ".html") && !pages.Known(clean)) {
				// A missing asset is a 404, not the shell. A dot alone does not make a page path
				// an asset: /gift/{value}/{email} ends in an e-mail address (spec 001 §2).
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Cache-Control", "no-cache")
			if !pages.Known(clean) {
				serveNotFoundPage(w, filepath.Join(dir, "index.html"))
				return
			}
			index := pageHTML(dir, pages.Remote(clean))
			if ist, err := os.Stat(index); err == nil && serveEncoded(w, r, index, ist) {
				return
			}
			http.ServeFile(w, r, index)
			return
		}
		if strings.Contains(clean, "/assets/") {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		if !strings.HasSuffix(clean, "/index.html") && serveEncoded(w, r, full, st) {
			return
		}
		fs.ServeHTTP(w, r)
	})
}

// assetExts are the extensions of the files a web build serves (scripts, styles, source
// maps, data, fonts, images, media, the precompressed variants); no page path ends in one
// (an e-mail address's top-level domain never is one of these).
var assetExts = map[string]bool{".js": true, ".mjs": true, ".css": true, ".map": true, ".json": true, ".wasm": true,
	".woff": true, ".woff2": true, ".ttf": true, ".otf": true, ".png": true, ".jpg": true, ".jpeg": true, ".gif": true,
	".svg": true, ".ico": true, ".webp": true, ".avif": true, ".webm": true, ".mp4": true, ".txt": true, ".xml": true,
	".webmanifest": true, ".br": true, ".gz": true}

// assetPath reports whether a path names a static file of the build, never a page: under
// an assets directory, or ending in an asset's extension.
func assetPath(p string) bool {
	return strings.Contains(p, "/assets/") || assetExts[strings.ToLower(path.Ext(p))]
}

// precompressed are the encodings the web build writes beside each text file
// (web/tools/assemble-site.mjs: app.js.br, app.js.gz), in the order the edge prefers them.
// Compressing at build time costs the edge no CPU per request and lets the build use the
// slowest, smallest settings.
var precompressed = []struct{ coding, ext string }{{"br", ".br"}, {"gzip", ".gz"}}

// serveEncoded serves the precompressed variant of the file full (stat st) that the
// request's Accept-Encoding takes, with Content-Encoding; it reports false (nothing
// written) when there is none, and the caller serves the file as it is. Every answer varies
// by Accept-Encoding, the identity one too, so a shared cache keeps them apart. Range and
// HEAD apply to the encoded bytes, as for any representation (http.ServeContent).
func serveEncoded(w http.ResponseWriter, r *http.Request, full string, st os.FileInfo) bool {
	w.Header().Add("Vary", "Accept-Encoding")
	accepted := acceptedCodings(r.Header.Values("Accept-Encoding"))
	for _, p := range precompressed {
		if !accepted(p.coding) {
			continue
		}
		vst, err := os.Stat(full + p.ext)
		// A variant older than its file is stale (the file was edited after the build,
		// e.g. a hand-edited config.json): the file itself is the truth.
		if err != nil || vst.IsDir() || vst.ModTime().Before(st.ModTime()) {
			continue
		}
		f, err := os.Open(full + p.ext)
		if err != nil {
			continue
		}
		defer func() { _ = f.Close() }()
		h := w.Header()
		if h.Get("Content-Type") == "" {
			ctype := mime.TypeByExtension(filepath.Ext(full))
			if ctype == "" {
				ctype = "application/octet-stream" // never sniffed from compressed bytes
			}
			h.Set("Content-Type", ctype)
		}
		h.Set("Content-Encoding", p.coding)
		http.ServeContent(sizedWriter{w, vst.Size()}, r, full, st.ModTime(), f)
		return true
	}
	return false
}

// sizedWriter gives a full (200) answer of an encoded file its Content-Length, which
// http.ServeContent leaves out once Content-Encoding is set (it cannot know a wrapper does
// not compress on the fly); partial and error answers keep what ServeContent sets.
type sizedWriter struct {
	http.ResponseWriter
	size int64
}

func (s sizedWriter) WriteHeader(code int) {
	if code == http.StatusOK && s.Header().Get("Content-Length") == "" {
		s.Header().Set("Content-Length", strconv.FormatInt(s.size, 10))
	}
	s.ResponseWriter.WriteHeader(code)
}

// acceptedCodings parses Accept-Encoding (RFC 9110 §12.5.3): a coding is taken when it is
// listed with q > 0, or not listed and "*" is with q > 0.
func acceptedCodings(values []string) func(coding string) bool {
	q := map[string]float64{}
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(item, ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			weight := 1.0
			for _, p := range strings.Split(params, ";") {
				k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
						weight = f
					}
				}
			}
			q[name] = weight
		}
	}
	return func(coding string) bool {
		if w, ok := q[coding]; ok {
			return w > 0
		}
		w, ok := q["*"]
		return ok && w > 0
	}
}

// pageHTML is the shell's HTML for a page the remote renders: index.<remote>.html names
// that remote's boot files too, so the browser fetches them with the shell's instead of one
// federation step at a time (web/tools/preloads.mjs); index.html when the build has none.
func pageHTML(dir, remote string) string {
	if remote != "" && !strings.ContainsAny(remote, `/\.`) {
		variant := filepath.Join(dir, "index."+remote+".html")
		if st, err := os.Stat(variant); err == nil && !st.IsDir() {
			return variant
		}
	}
	return filepath.Join(dir, "index.html")
}

func serveNotFoundPage(w http.ResponseWriter, index string) {
	b, err := os.ReadFile(index)
	if err != nil {
		http.NotFound(w, nil)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write(b)
}

const placeholder = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Hangar</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Hangar</h1>
<p>The web shell is not built yet. The APIs are up, for example
<a href="/account/api/subscription/available/add-ons">the catalogue</a>.</p></main></body></html>
`
