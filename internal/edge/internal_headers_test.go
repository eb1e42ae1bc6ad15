package edge

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// The edge is the store's front door as the Ingress is: a request from outside that
// carries an internal channel (Grpc-Metadata-*, which grpc-gateway turns into gRPC
// metadata such as the service-to-service session, or our own X-Hangar-*) reaches no
// service with it. Before, the edge passed every header through.
func TestEdgeStripsInternalHeaders(t *testing.T) {
	t.Parallel()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var seen []string
		for k := range r.Header {
			seen = append(seen, k)
		}
		_, _ = w.Write([]byte(strings.Join(seen, ",")))
	}))
	defer api.Close()
	tab, _ := ParseTable([]byte(table))
	u, _ := url.Parse(api.URL)
	srv := httptest.NewServer(New(tab, committedHeaders(t), []Backend{{Name: "catalog", URL: u}}, t.TempDir(), nil))
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/account/api/subscription/available/add-ons", nil)
	req.Header.Set("Grpc-Metadata-X-Hangar-Session", "stolen")
	req.Header["grpc-metadata-x-checkout-product-code"] = []string{"x"} // not canonical on the wire
	req.Header.Set("X-Hangar-Session", "stolen")
	req.Header.Set("X-Xsrf-Token", "kept")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	seen := strings.ToLower(string(b))
	for _, h := range []string{"grpc-metadata", "x-hangar"} {
		if strings.Contains(seen, h) {
			t.Errorf("the backend received %s: headers %s", h, b)
		}
	}
	if !strings.Contains(seen, "x-xsrf-token") {
		t.Errorf("the backend lost an ordinary header: %s", b)
	}
}
