package ports

import (
	"compress/gzip"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hangar/hangar/services/catalog/data"
	"github.com/hangar/hangar/services/catalog/internal/domain"
)

// Issue 31 item 6: the coverage map's data answers an outline for every region the
// catalogue sells, as cacheable GeoJSON.
func TestMapResourcesCoverEveryCatalogueRegion(t *testing.T) {
	t.Parallel()
	h, err := NewMapResources(data.MapOutlines, "map/outlines")
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, MapResourcesPath, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET = %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/geo+json" {
		t.Errorf("Content-Type = %q", ct)
	}
	if cc := rec.Header().Get("Cache-Control"); !strings.Contains(cc, "public") || !strings.Contains(cc, "max-age=") {
		t.Errorf("Cache-Control = %q", cc)
	}
	var fc struct {
		Type     string `json:"type"`
		Features []struct {
			Type     string `json:"type"`
			ID       string `json:"id"`
			Geometry struct {
				Type        string          `json:"type"`
				Coordinates [][][][]float64 `json:"coordinates"`
			} `json:"geometry"`
		} `json:"features"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &fc); err != nil || fc.Type != "FeatureCollection" {
		t.Fatalf("body is not a FeatureCollection: %v", err)
	}
	outlines := map[string]int{}
	for _, f := range fc.Features {
		if f.Geometry.Type == "MultiPolygon" {
			outlines[f.ID] = len(f.Geometry.Coordinates)
		}
	}
	if outlines["land"] == 0 {
		t.Error("no land outline for the background")
	}
	cat, err := domain.Parse(data.Catalog)
	if err != nil {
		t.Fatal(err)
	}
	regions := 0
	for _, e := range cat.AllEntries() {
		if e.PlanType != "region" {
			continue
		}
		regions++
		_, key, ok := strings.Cut(e.AddOnCode, "_geo_")
		if !ok {
			t.Errorf("region %s: code does not end in _geo_<region>", e.AddOnCode)
			continue
		}
		if outlines[key] == 0 {
			t.Errorf("region %s (%s) has no outline", e.AddOnCode, key)
		}
	}
	if regions == 0 {
		t.Fatal("the catalogue has no regions")
	}

	// A revalidation with the ETag costs no body; gzip is offered to those who accept it.
	req := httptest.NewRequest(http.MethodGet, MapResourcesPath, nil)
	req.Header.Set("If-None-Match", rec.Header().Get("ETag"))
	rec2 := httptest.NewRecorder()
	h.ServeHTTP(rec2, req)
	if rec2.Code != http.StatusNotModified || rec2.Body.Len() != 0 {
		t.Errorf("If-None-Match = %d with %d bytes, want 304 and none", rec2.Code, rec2.Body.Len())
	}
	req = httptest.NewRequest(http.MethodGet, MapResourcesPath, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	rec3 := httptest.NewRecorder()
	h.ServeHTTP(rec3, req)
	if rec3.Header().Get("Content-Encoding") != "gzip" || rec3.Header().Get("ETag") == rec.Header().Get("ETag") {
		t.Fatalf("gzip: encoding %q, etag %q", rec3.Header().Get("Content-Encoding"), rec3.Header().Get("ETag"))
	}
	zr, err := gzip.NewReader(rec3.Body)
	if err != nil {
		t.Fatal(err)
	}
	var again map[string]any
	if err := json.NewDecoder(zr).Decode(&again); err != nil {
		t.Errorf("gzip body: %v", err)
	}
}
