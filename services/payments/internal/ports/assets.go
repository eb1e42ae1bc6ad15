package ports

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"path"
	"strings"
)

// fieldsAsset is one of the fields page's script and stylesheet, named by its content
// (hosted-fields.<hash>.js) so a browser keeps it for a year without asking again: a new
// build is a new name, which the page (never cached) names. It is served gzip-compressed
// to clients that accept it, compressed once at start.
type fieldsAsset struct {
	name, contentType string
	raw, gzipped      []byte
}

// fieldsAssets are the page's script and stylesheet by their served path.
type fieldsAssets struct {
	script, style *fieldsAsset
	byPath        map[string]*fieldsAsset
	// byStem finds the current asset for a stale hashed name ("hosted-fields.js"): a page
	// rendered by another replica during a roll may name the previous build's hash.
	byStem map[string]*fieldsAsset
}

// immutableCache is a content-named asset's: cached by any cache for a year, never
// revalidated (its name changes with its content).
const immutableCache = "public, max-age=31536000, immutable"

// loadFieldsAssets reads, names and compresses the embedded script and stylesheet.
func loadFieldsAssets() (*fieldsAssets, error) {
	a := &fieldsAssets{byPath: map[string]*fieldsAsset{}, byStem: map[string]*fieldsAsset{}}
	for _, f := range []struct {
		file, contentType string
		into              **fieldsAsset
	}{
		{"hosted-fields.js", "text/javascript; charset=utf-8", &a.script},
		{"hosted-fields.css", "text/css; charset=utf-8", &a.style},
	} {
		raw, err := page.ReadFile("page/" + f.file)
		if err != nil {
			return nil, err
		}
		var gz bytes.Buffer
		zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		if err != nil {
			return nil, err
		}
		if _, err := zw.Write(raw); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(raw)
		ext := path.Ext(f.file)
		stem := strings.TrimSuffix(f.file, ext)
		asset := &fieldsAsset{name: fmt.Sprintf("/%s.%s%s", stem, hex.EncodeToString(sum[:8]), ext), contentType: f.contentType,
			raw: raw, gzipped: gz.Bytes()}
		*f.into = asset
		a.byPath[asset.name] = asset
		a.byStem[stem+ext] = asset
	}
	return a, nil
}

// lookup answers the asset a path names and whether the name is the current one. A
// hosted-fields.<other hash>.js (or the plain name) answers the current asset, not
// immutable: a page of the previous build still loads a working script during a roll,
// and no cache keeps it under the stale name.
func (a *fieldsAssets) lookup(p string) (asset *fieldsAsset, current bool) {
	if asset := a.byPath[p]; asset != nil {
		return asset, true
	}
	base := strings.TrimPrefix(p, "/")
	if strings.Contains(base, "/") {
		return nil, false
	}
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if i := strings.LastIndexByte(stem, '.'); i >= 0 {
		stem = stem[:i]
	}
	asset = a.byStem[stem+ext]
	return asset, false
}

// serve writes asset, gzip-compressed when the client accepts it.
func (asset *fieldsAsset) serve(w http.ResponseWriter, r *http.Request, current bool) {
	h := w.Header()
	h.Set("Content-Type", asset.contentType)
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	h.Set("Vary", "Accept-Encoding")
	if current {
		h.Set("Cache-Control", immutableCache)
	}
	body := asset.raw
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		body = asset.gzipped
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// acceptsGzip reads Accept-Encoding: gzip listed without q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.TrimSpace(coding) != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
