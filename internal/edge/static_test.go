package edge

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// site writes a web build as tools/assemble-site.mjs leaves it: text files with their
// precompressed .gz and .br beside them. The .br bytes are a marker (the edge never decodes
// them); the .gz is real gzip, so a test can check it is the file's.
func site(t *testing.T) (dir string, js, jsGz, jsBr []byte) {
	t.Helper()
	dir = t.TempDir()
	js = []byte(strings.Repeat("export const plan = 'Essential';\n", 200))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(js)
	_ = zw.Close()
	jsGz, jsBr = gz.Bytes(), []byte("brotli bytes of app.js")
	index := []byte("<html>shell</html>")
	write := func(name string, b []byte) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("index.html", index)
	write("index.html.br", []byte("brotli bytes of index.html"))
	write("assets/app-1a2b.js", js)
	write("assets/app-1a2b.js.gz", jsGz)
	write("assets/app-1a2b.js.br", jsBr)
	write("config.json", []byte(`{"remotes":{}}`))
	write("config.json.br", []byte("brotli bytes of config.json"))
	return dir, js, jsGz, jsBr
}

func get(t *testing.T, h http.Handler, method, target string, hdr map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestStaticServesThePrecompressedVariantTheBrowserAccepts(t *testing.T) {
	t.Parallel()
	dir, js, jsGz, jsBr := site(t)
	h := Static(dir)
	for _, tc := range []struct {
		accept, coding string
		body           []byte
	}{
		{"gzip, deflate, br, zstd", "br", jsBr}, // Chromium's
		{"br", "br", jsBr},
		{"gzip", "gzip", jsGz},
		{"br;q=0, gzip;q=0.8", "gzip", jsGz},
		{"*", "br", jsBr},
		{"*;q=0, gzip", "gzip", jsGz},
		{"", "", js},
		{"identity", "", js},
		{"br;q=0, gzip;q=0", "", js},
		{"deflate", "", js},
	} {
		w := get(t, h, http.MethodGet, "/assets/app-1a2b.js", map[string]string{"Accept-Encoding": tc.accept})
		res := w.Result()
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != tc.coding || !bytes.Equal(w.Body.Bytes(), tc.body) {
			t.Errorf("Accept-Encoding %q: %d, Content-Encoding %q, %d bytes; want 200, %q, %d bytes",
				tc.accept, res.StatusCode, res.Header.Get("Content-Encoding"), w.Body.Len(), tc.coding, len(tc.body))
		}
		if got := res.Header.Get("Content-Length"); got != strconv.Itoa(len(tc.body)) {
			t.Errorf("Accept-Encoding %q: Content-Length %q, want %d", tc.accept, got, len(tc.body))
		}
		if got := res.Header.Values("Vary"); len(got) != 1 || got[0] != "Accept-Encoding" {
			t.Errorf("Accept-Encoding %q: Vary %q, want Accept-Encoding (identity too: a cache must not hand it to a br client)", tc.accept, got)
		}
		if ct := res.Header.Get("Content-Type"); !strings.Contains(ct, "javascript") {
			t.Errorf("Accept-Encoding %q: Content-Type %q, want the file's, not the encoding's", tc.accept, ct)
		}
		if cc := res.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("Accept-Encoding %q: Cache-Control %q, want a year, immutable (hashed asset)", tc.accept, cc)
		}
	}
	// The gzip variant is the file's: a client that inflates it gets the JavaScript.
	zr, err := gzip.NewReader(bytes.NewReader(jsGz))
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, js) {
		t.Error("the test's gzip variant is not app.js")
	}
}

func TestStaticRangeAndHeadApplyToTheEncodedBytes(t *testing.T) {
	t.Parallel()
	dir, js, jsGz, jsBr := site(t)
	h := Static(dir)

	w := get(t, h, http.MethodGet, "/assets/app-1a2b.js", map[string]string{"Accept-Encoding": "gzip", "Range": "bytes=0-9"})
	res := w.Result()
	if res.StatusCode != http.StatusPartialContent || res.Header.Get("Content-Encoding") != "gzip" ||
		res.Header.Get("Content-Range") != "bytes 0-9/"+strconv.Itoa(len(jsGz)) ||
		res.Header.Get("Content-Length") != "10" || !bytes.Equal(w.Body.Bytes(), jsGz[:10]) {
		t.Errorf("gzip range: %d %q %q len %q body %d bytes; want 206 of the gzip bytes 0-9",
			res.StatusCode, res.Header.Get("Content-Encoding"), res.Header.Get("Content-Range"), res.Header.Get("Content-Length"), w.Body.Len())
	}

	w = get(t, h, http.MethodGet, "/assets/app-1a2b.js", map[string]string{"Range": "bytes=5-14"})
	res = w.Result()
	if res.StatusCode != http.StatusPartialContent || res.Header.Get("Content-Encoding") != "" ||
		res.Header.Get("Content-Range") != "bytes 5-14/"+strconv.Itoa(len(js)) || !bytes.Equal(w.Body.Bytes(), js[5:15]) {
		t.Errorf("identity range: %d %q %q; want 206 of the file's bytes 5-14", res.StatusCode, res.Header.Get("Content-Encoding"), res.Header.Get("Content-Range"))
	}

	w = get(t, h, http.MethodHead, "/assets/app-1a2b.js", map[string]string{"Accept-Encoding": "br"})
	res = w.Result()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != "br" ||
		res.Header.Get("Content-Length") != strconv.Itoa(len(jsBr)) || res.Header.Get("Accept-Ranges") != "bytes" || w.Body.Len() != 0 {
		t.Errorf("HEAD br: %d %q len %q ranges %q body %d; want 200 br with the variant's length and no body",
			res.StatusCode, res.Header.Get("Content-Encoding"), res.Header.Get("Content-Length"), res.Header.Get("Accept-Ranges"), w.Body.Len())
	}

	w = get(t, h, http.MethodGet, "/assets/app-1a2b.js", map[string]string{"Accept-Encoding": "br", "If-Modified-Since": time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)})
	if res = w.Result(); res.StatusCode != http.StatusNotModified || w.Body.Len() != 0 {
		t.Errorf("conditional br: %d, %d bytes; want 304", res.StatusCode, w.Body.Len())
	}
}

func TestStaticPagesAndConfigAreEncodedButRevalidated(t *testing.T) {
	t.Parallel()
	dir, _, _, _ := site(t)
	h := Static(dir)
	for _, target := range []string{"/", "/buy", "/buy/success"} {
		w := get(t, h, http.MethodGet, target, map[string]string{"Accept-Encoding": "gzip, br"})
		res := w.Result()
		if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "br" || w.Body.String() != "brotli bytes of index.html" ||
			res.Header.Get("Cache-Control") != "no-cache" || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d %q %q %q %q; want the shell's br variant, no-cache", target, res.StatusCode,
				res.Header.Get("Content-Encoding"), res.Header.Get("Cache-Control"), res.Header.Get("Content-Type"), w.Body.String())
		}
	}
	w := get(t, h, http.MethodGet, "/buy", nil)
	if res := w.Result(); res.Header.Get("Content-Encoding") != "" || w.Body.String() != "<html>shell</html>" {
		t.Errorf("/buy without Accept-Encoding: %q %q; want the shell as it is", res.Header.Get("Content-Encoding"), w.Body.String())
	}
	w = get(t, h, http.MethodGet, "/config.json", map[string]string{"Accept-Encoding": "br"})
	if res := w.Result(); res.Header.Get("Content-Encoding") != "br" || res.Header.Get("Cache-Control") != "no-cache" ||
		!strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Errorf("/config.json: %q %q %q; want br, no-cache, JSON", res.Header.Get("Content-Encoding"), res.Header.Get("Cache-Control"), res.Header.Get("Content-Type"))
	}
}

func TestStaticIgnoresAVariantOlderThanItsFile(t *testing.T) {
	t.Parallel()
	dir, _, _, _ := site(t)
	// config.json edited by hand after the build: its .br still says the old one.
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, []byte(`{"remotes":{"buy":"/cdn/buy/remoteEntry.js"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(cfg+".br", old, old); err != nil {
		t.Fatal(err)
	}
	w := get(t, Static(dir), http.MethodGet, "/config.json", map[string]string{"Accept-Encoding": "br"})
	if res := w.Result(); res.Header.Get("Content-Encoding") != "" || !strings.Contains(w.Body.String(), "/cdn/buy/") {
		t.Errorf("stale variant: %q %q; want the edited file as it is", res.Header.Get("Content-Encoding"), w.Body.String())
	}
}

// Issue 31 (/buy's Lighthouse performance): each page's HTML names the boot files of the
// remote that renders it (index.<remote>.html, web/tools/preloads.mjs), chosen by the shell's
// route table; a page with no variant, or no known remote, gets index.html.
func TestStaticPagesServeTheirRemotesHTML(t *testing.T) {
	t.Parallel()
	dir, _, _, _ := site(t)
	for name, body := range map[string]string{
		"index.buy.html":       "<html>shell + buy boot</html>",
		"index.buy.html.br":    "brotli bytes of index.buy.html",
		"index.marketing.html": "<html>shell + marketing boot</html>",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pages, err := LoadPages(filepath.Join("..", "..", "web", "apps", "shell", "src", "routes.ts"))
	if err != nil {
		t.Fatal(err)
	}
	h := StaticPages(dir, pages)
	for _, c := range []struct{ target, encoding, want string }{
		{"/buy", "", "<html>shell + buy boot</html>"},
		{"/buy/", "", "<html>shell + buy boot</html>"},
		{"/buy?code=WELCOME5", "", "<html>shell + buy boot</html>"},
		{"/buy/success", "", "<html>shell + buy boot</html>"},
		{"/buy/vectormap,syn_vis/3", "", "<html>shell + buy boot</html>"},
		{"/buy", "br", "brotli bytes of index.buy.html"},
		{"/", "", "<html>shell + marketing boot</html>"},
		{"/pricing", "br", "<html>shell + marketing boot</html>"}, // no .br of this variant: the file
		{"/gift", "br", "brotli bytes of index.html"},             // no variant: the shell's
		{"/account/allocation", "", "<html>shell</html>"},
	} {
		w := get(t, h, http.MethodGet, c.target, map[string]string{"Accept-Encoding": c.encoding})
		if w.Code != 200 || w.Body.String() != c.want || w.Header().Get("Cache-Control") != "no-cache" {
			t.Errorf("GET %s (Accept-Encoding %q) = %d %q %q; want 200 %q, no-cache", c.target, c.encoding, w.Code, w.Body.String(), w.Header().Get("Cache-Control"), c.want)
		}
	}
	if w := get(t, h, http.MethodGet, "/no-such-page", nil); w.Code != 404 || w.Body.String() != "<html>shell</html>" {
		t.Errorf("unknown page = %d %q; want 404 with the shell", w.Code, w.Body.String())
	}
}

func TestPagesKnowTheRemoteOfEachPage(t *testing.T) {
	t.Parallel()
	pages, err := LoadPages(filepath.Join("..", "..", "web", "apps", "shell", "src", "routes.ts"))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/": "marketing", "/pricing": "marketing", "/buy": "buy", "/buy/success": "buy", "/buy/military_intl": "buy",
		"/gift/redeem": "gift", "/product/cart/abc": "oneoff", "/account": "account", "/account/allocation": "allocation",
		"/account/set-password": "account", "/nope": "",
	} {
		if got := pages.Remote(path); got != want {
			t.Errorf("Remote(%q) = %q, want %q", path, got, want)
		}
	}
}

// A page path whose last segment holds a dot (/gift/{value}/{email}, spec 001 §2) is a
// page: the shell, not a 404 text answer. Static files are still only files of the build,
// and a missing asset (by its path or extension) is a 404 even under a page prefix
// (issue 42 item 5).
func TestADotInAPagePathIsNotAStaticFile(t *testing.T) {
	t.Parallel()
	dir, _, _, _ := site(t)
	h := StaticPages(dir, NewPages([]string{"/", "/gift", "/gift/*", "/buy"}))
	for _, p := range []string{"/gift/250/pat.pilot@example.com", "/gift/50/a.b.c@mail.example.co.uk", "/gift/100/x@y.io"} {
		w := get(t, h, "GET", p, nil)
		if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") || !strings.Contains(w.Body.String(), "shell") {
			t.Errorf("%s: %d %s %q", p, w.Code, w.Header().Get("Content-Type"), w.Body.String())
		}
	}
	for _, p := range []string{"/gift/assets/missing-1a2b.js", "/gift/remoteEntry.js", "/assets/nope.css", "/nope.png", "/unknown/page.html.gz"} {
		if w := get(t, h, "GET", p, nil); w.Code != 404 {
			t.Errorf("missing asset %s: %d", p, w.Code)
		}
	}
	if w := get(t, h, "GET", "/assets/app-1a2b.js", nil); w.Code != 200 || !strings.Contains(w.Body.String(), "Essential") {
		t.Errorf("an asset of the build: %d", w.Code)
	}
}
