package ports_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/hangar/hangar/services/payments/internal/ports"
)

// The fields page names its script and stylesheet by their content
// (hosted-fields.<sha-256 prefix>.js), and the fields origin serves them gzip-compressed to
// clients that accept it, cacheable for a year and never revalidated; a client without
// gzip gets the plain bytes. A stale hashed name (a page of the previous build during a
// roll) still gets the current script, but not as immutable. Before, the script was
// /hosted-fields.js, uncompressed, with no-store: fetched whole on every payment page.
func TestFieldsAssetsAreContentNamedCompressedAndImmutable(t *testing.T) {
	t.Parallel()
	f, err := ports.NewFields(ports.Fields{ParentOrigins: []string{"http://store.test"}})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path, encoding string) (*http.Response, []byte) {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if encoding != "" {
			req.Header.Set("Accept-Encoding", encoding)
		}
		w := httptest.NewRecorder()
		f.ServeHTTP(w, req)
		return w.Result(), w.Body.Bytes()
	}
	resp, page := get("/?parentOrigin=http://store.test", "")
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("page = %d, Cache-Control %q, want 200 no-store", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	for _, kind := range []struct{ ext, attr, contentType, marker string }{
		{"js", "src", "text/javascript", "xhr.open('POST', '/api/tokenize')"},
		{"css", "href", "text/css", "{"},
	} {
		m := regexp.MustCompile(kind.attr + `="(/hosted-fields\.([0-9a-f]{16})\.` + kind.ext + `)"`).FindStringSubmatch(string(page))
		if m == nil {
			t.Errorf("the page names no content-hashed hosted-fields.*.%s: %s", kind.ext, page)
			continue
		}
		name, hash := m[1], m[2]

		resp, body := get(name, "br;q=1.0, gzip;q=0.8")
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), kind.contentType) {
			t.Errorf("%s = %d %s", name, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if got := resp.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
			t.Errorf("%s Cache-Control %q, want public, max-age=31536000, immutable", name, got)
		}
		if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s Content-Encoding %q, Vary %q, want gzip and Accept-Encoding", name, resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(plain); hex.EncodeToString(sum[:8]) != hash {
			t.Errorf("%s: the name's hash is not its content's (%x)", name, sum[:8])
		}
		if !strings.Contains(string(plain), kind.marker) {
			t.Errorf("%s lacks %q", name, kind.marker)
		}
		if len(body) >= len(plain) {
			t.Errorf("%s: %d bytes gzipped, %d plain", name, len(body), len(plain))
		}

		resp, raw := get(name, "")
		if resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(raw, plain) {
			t.Errorf("%s without Accept-Encoding: Content-Encoding %q, %d bytes, want the %d plain bytes", name, resp.Header.Get("Content-Encoding"), len(raw), len(plain))
		}
		if resp, _ := get(name, "gzip;q=0"); resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s with gzip;q=0 was compressed", name)
		}

		stale := "/hosted-fields.0123456789abcdef." + kind.ext
		resp, _ = get(stale, "")
		if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s = %d, Cache-Control %q, want the current asset, no-store", stale, resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
	}
	if resp, _ := get("/other.js", "gzip"); resp.StatusCode != 404 {
		t.Errorf("/other.js = %d, want 404", resp.StatusCode)
	}
}
