package ports

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"sort"

	"github.com/hangar/hangar/internal/platform/metrics"
)

// MapResourcesPath serves the coverage map's data (spec 001 §7).
const MapResourcesPath = "/buy/map/api/resources"

// MapCacheControl: the outlines change only with a new build, so browsers keep them a day and
// then revalidate with the ETag.
const MapCacheControl = "public, max-age=86400, stale-while-revalidate=604800"

// MapResources answers one GeoJSON FeatureCollection: a Feature per region, id the region key
// of its add-on codes (add_geo_<key>, included_geo_<key>), and the world's land with id
// "land". The bytes are built once from the embedded, pre-merged outlines.
type MapResources struct {
	b *body
}

// NewMapResources assembles the collection from files (*.json, one Feature each).
func NewMapResources(files fs.FS, dir string) (*MapResources, error) {
	names, err := fs.Glob(files, path.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	features := make([]json.RawMessage, 0, len(names))
	for _, n := range names {
		raw, err := fs.ReadFile(files, n)
		if err != nil {
			return nil, err
		}
		var f struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if err := json.Unmarshal(raw, &f); err != nil || f.Type != "Feature" || f.ID == "" {
			return nil, fmt.Errorf("map outline %s: not a GeoJSON Feature with an id (%v)", n, err)
		}
		features = append(features, bytes.TrimSpace(raw))
	}
	plain, err := json.Marshal(struct {
		Type     string            `json:"type"`
		Features []json.RawMessage `json:"features"`
	}{"FeatureCollection", features})
	if err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	_, _ = zw.Write(plain)
	_ = zw.Close()
	sum := sha256.Sum256(plain)
	tag := hex.EncodeToString(sum[:12])
	return &MapResources{b: &body{
		plain: plain, gz: gz.Bytes(),
		etag: `"` + tag + `"`, etagGzip: `"` + tag + `-gz"`,
		contentLenPlain: fmt.Sprint(len(plain)), contentLenGzip: fmt.Sprint(gz.Len()),
	}}, nil
}

func (h *MapResources) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	metrics.SetRoute(r, MapResourcesPath)
	b := h.b
	hdr := w.Header()
	hdr.Set("Content-Type", "application/geo+json")
	hdr.Set("Cache-Control", MapCacheControl)
	hdr.Set("Vary", "Accept-Encoding")
	useGzip := acceptsGzip(r.Header.Get("Accept-Encoding"))
	etag, payload, length := b.etag, b.plain, b.contentLenPlain
	if useGzip {
		etag, payload, length = b.etagGzip, b.gz, b.contentLenGzip
	}
	hdr.Set("ETag", etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatch(inm, b) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if useGzip {
		hdr.Set("Content-Encoding", "gzip")
	}
	hdr.Set("Content-Length", length)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(payload)
	}
}
