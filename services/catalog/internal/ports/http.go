package ports

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/hangar/hangar/internal/platform/metrics"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/services/catalog/internal/domain"
)

// AvailablePlansPath is the hottest read of the store.
const AvailablePlansPath = "/account/api/subscription/available/add-ons"

// AvailablePlans serves the available-plans answer from bytes computed once per catalogue
// version, per currency variant, plain and gzip, with a strong ETag: a request costs a map
// lookup and a write. The bytes are the same protojson the gRPC method's gateway route would
// produce, so the contract (and its OpenAPI document) stays the proto.
type AvailablePlans struct {
	cur atomic.Pointer[variants]
}

type variants struct {
	version string
	byCur   map[string]*body // "" = every currency
}

type body struct {
	plain, gz       []byte
	etag, etagGzip  string
	contentLenPlain string
	contentLenGzip  string
}

// CacheControl lets browsers and the CDN reuse an answer briefly and revalidate cheaply
// with the ETag; a new data version shows within a minute.
const CacheControl = "public, max-age=60, stale-while-revalidate=300"

// Prepare computes the bytes for cat. Call it before cat becomes visible (app.OnChange).
func (h *AvailablePlans) Prepare(cat *domain.Catalog) {
	v := &variants{version: cat.Version(), byCur: map[string]*body{}}
	codes := []string{""}
	for _, c := range cat.Currencies() {
		codes = append(codes, c.Code)
	}
	for _, code := range codes {
		b, err := protojson.Marshal(availablePlans(cat, code))
		if err != nil {
			// Only a bug in the proto types can cause this; the data was validated.
			panic(fmt.Sprintf("encode available plans: %v", err))
		}
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		_, _ = zw.Write(b)
		_ = zw.Close()
		sum := sha256.Sum256(b)
		tag := hex.EncodeToString(sum[:12])
		v.byCur[code] = &body{
			plain: b, gz: gz.Bytes(),
			etag: `"` + tag + `"`, etagGzip: `"` + tag + `-gz"`,
			contentLenPlain: fmt.Sprint(len(b)), contentLenGzip: fmt.Sprint(gz.Len()),
		}
	}
	h.cur.Store(v)
}

func (h *AvailablePlans) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	metrics.SetRoute(r, AvailablePlansPath)
	v := h.cur.Load()
	if v == nil {
		server.WriteError(w, errNotLoaded)
		return
	}
	code := strings.ToUpper(strings.TrimSpace(r.URL.Query().Get("currency")))
	b, ok := v.byCur[code]
	if !ok {
		server.WriteError(w, unknownCurrency(r.URL.Query().Get("currency"), v))
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Cache-Control", CacheControl)
	hdr.Set("Vary", "Accept-Encoding")
	hdr.Set("X-Catalog-Version", v.version)
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

// etagMatch accepts either variant's tag: both name the same representation content.
func etagMatch(inm string, b *body) bool {
	for _, t := range strings.Split(inm, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == b.etag || t == b.etagGzip {
			return true
		}
	}
	return false
}

func acceptsGzip(ae string) bool {
	for _, part := range strings.Split(ae, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			// "gzip;q=0" (or 0.0, 0.000) refuses gzip; any other weight accepts it.
			for _, p := range strings.Split(params, ";") {
				k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(strings.TrimSpace(k), "q") {
					q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
					return err == nil && q > 0
				}
			}
			return true
		}
	}
	return false
}
