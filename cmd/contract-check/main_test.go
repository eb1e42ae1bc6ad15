package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hangar/hangar/internal/edge"
	"github.com/hangar/hangar/internal/platform/contracttest"
)

// The browser run's half of the contract test: the dev edge logs the API exchanges (not the
// pages), and the check finds the answer that breaks the documents and passes the others.
func TestEdgeLogChecked(t *testing.T) {
	t.Parallel()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/buy/api/subscription/add-on-prices":
			_, _ = w.Write([]byte(`{}`))
		default: // grpc-gateway's own error shape, which the wire never carries
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"code":5,"message":"not found","details":[]}`))
		}
	}))
	defer api.Close()
	tab, err := edge.LoadTable("../../deploy/helm/hangar/routes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	hdrs, err := edge.LoadHeaders("../../deploy/helm/hangar/headers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(api.URL)
	log := filepath.Join(t.TempDir(), "exchanges.jsonl")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(edge.New(tab, hdrs, []edge.Backend{{Name: "catalog", URL: u}}, t.TempDir(), nil).WithExchangeLog(f))
	defer srv.Close()
	for _, p := range []string{"/buy/api/subscription/add-on-prices?currency=USD", "/account/api/nope", "/buy"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	_ = f.Close()

	n, bad, err := check(log, contracttest.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 || len(bad) != 1 || !strings.Contains(bad[0], "/account/api/nope") {
		t.Fatalf("checked %d, violations %q; want 2 checked (the page not logged), the integer code refused", n, bad)
	}
}

// The browser run is strict for required fields too: an answer leaving out a documented
// required field (logout's errors, preview's planErrors) is a violation, the same answer
// with the empty field is not (issue 42 item 6).
func TestBrowserAnswerOmittingARequiredFieldRefused(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "exchanges.jsonl")
	var lines []byte
	for _, x := range []edge.Exchange{
		{Method: "POST", URI: "/pricing/api/logout", Status: 200, Answer: []byte(`{"status":"ok","errors":[]}`), AnswerType: "application/json"},
		{Method: "POST", URI: "/pricing/api/logout", Status: 200, Answer: []byte(`{"status":"ok"}`), AnswerType: "application/json"},
		{Method: "POST", URI: "/buy/api/invoice/preview", ContentType: "application/json", Body: []byte(`{}`), Status: 200,
			Answer: []byte(`{"errors":[],"selectionErrors":[],"promoInfoRequirements":[]}`), AnswerType: "application/json"},
	} {
		b, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, b...), '\n')
	}
	if err := os.WriteFile(log, lines, 0o600); err != nil {
		t.Fatal(err)
	}
	n, bad, err := check(log, contracttest.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || len(bad) != 2 || !strings.Contains(bad[0], `{"status":"ok"}`) || !strings.Contains(bad[1], "planErrors") {
		t.Fatalf("checked %d, violations %q; want the logout without errors and the preview without planErrors refused", n, bad)
	}
}
