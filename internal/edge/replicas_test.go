package edge

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// replicaTable routes the replica tests' submit, marked as one that replays its key.
const replicaTable = `routes:
  - {path: /buy/api/subscription, pathType: Prefix, service: checkout}
  - {path: /buy/api/subscription/submit, pathType: Exact, service: checkout, replay: keyed}
`

// One of two replicas dies mid-request (it reads the request, then its connection closes
// with no answer, as a process kill -9ed inside a handler): the edge answers every GET and
// every keyed submit from the other replica, with the request's body intact, so no buyer
// sees the death; an un-keyed POST, which the dead replica may have carried out, is not
// sent twice and answers 503 with Retry-After (issue 30 item 5). Before, the edge had one
// backend per service and every request to a dead process answered 503.
func TestEdgeRetriesIdempotentRequestsOnAnotherReplica(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string][]string{} // replica -> "METHOD body"
	record := func(replica string, r *http.Request) string {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen[replica] = append(seen[replica], r.Method+" "+string(b))
		mu.Unlock()
		return string(b)
	}
	dying := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record("dying", r)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		_ = conn.Close()
	}))
	defer dying.Close()
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := record("healthy", r)
		_, _ = io.WriteString(w, "ok "+r.Method+" "+body)
	}))
	defer healthy.Close()
	tab, _ := ParseTable([]byte(replicaTable))
	du, _ := url.Parse(dying.URL)
	hu, _ := url.Parse(healthy.URL)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := New(tab, committedHeaders(t), []Backend{{Name: "checkout", Replicas: []Replica{{URL: du}, {URL: hu}}}}, t.TempDir(), log)
	srv := httptest.NewServer(e)
	defer srv.Close()

	do := func(method, key, body string) (int, string, string) {
		req, _ := http.NewRequest(method, srv.URL+"/buy/api/subscription/submit", strings.NewReader(body))
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Retry-After"), string(b)
	}
	// Round-robin: of two requests in a row, one goes to each replica first.
	for i := range 2 {
		if code, _, b := do(http.MethodGet, "", ""); code != http.StatusOK || b != "ok GET " {
			t.Errorf("GET %d: %d %s; want 200 from the healthy replica", i, code, b)
		}
		if code, _, b := do(http.MethodPost, "key-1", `{"plan":"pro"}`); code != http.StatusOK || b != `ok POST {"plan":"pro"}` {
			t.Errorf("keyed POST %d: %d %s; want 200 from the healthy replica with the body", i, code, b)
		}
	}
	var codes []int
	for range 2 {
		code, retryAfter, b := do(http.MethodPost, "", `{"plan":"team"}`)
		codes = append(codes, code)
		if code == http.StatusServiceUnavailable && (retryAfter == "" || !strings.Contains(b, `"unavailable"`)) {
			t.Errorf("un-keyed POST dropped: 503 without Retry-After or the error object: %q %s", retryAfter, b)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if n := count(seen["dying"], `POST {"plan":"team"}`) + count(seen["healthy"], `POST {"plan":"team"}`); n != 2 {
		t.Errorf("un-keyed POSTs reached the replicas %d times; want 2 (one each, none replayed): %v", n, seen)
	}
	unavailable := 0
	for _, c := range codes {
		if c == http.StatusServiceUnavailable {
			unavailable++
		}
	}
	if unavailable != 1 || count(seen["healthy"], `POST {"plan":"team"}`) != 1 {
		t.Errorf("un-keyed POSTs answered %v; want one 503 (the one the dying replica took) and one 200", codes)
	}
	if len(seen["dying"]) != 3 {
		t.Errorf("the dying replica saw %v; want one GET, one keyed POST and one un-keyed POST (round-robin)", seen["dying"])
	}
}

// A replica that is not listening (the process is gone, its port closed) never got the
// request, so even an un-keyed POST goes to the other replica; a replica that is not ready
// gets nothing.
func TestEdgeSkipsRefusingAndUnreadyReplicas(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone, _ := url.Parse("http://" + ln.Addr().String())
	_ = ln.Close()
	var mu sync.Mutex
	calls := map[string]int{}
	serve := func(name string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			calls[name]++
			mu.Unlock()
		}))
	}
	healthy, unready := serve("healthy"), serve("unready")
	defer healthy.Close()
	defer unready.Close()
	hu, _ := url.Parse(healthy.URL)
	uu, _ := url.Parse(unready.URL)
	tab, _ := ParseTable([]byte(replicaTable))
	e := New(tab, committedHeaders(t), []Backend{{Name: "checkout", Replicas: []Replica{
		{URL: gone}, {URL: uu, Ready: func() bool { return false }}, {URL: hu}}}}, t.TempDir(), nil)
	srv := httptest.NewServer(e)
	defer srv.Close()
	for i := range 3 {
		resp, err := http.Post(srv.URL+"/buy/api/subscription/submit", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("POST %d: %d; want 200 from the one live, ready replica", i, resp.StatusCode)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if calls["healthy"] != 3 || calls["unready"] != 0 {
		t.Errorf("calls %v; want healthy 3, unready 0", calls)
	}
}

func count(xs []string, x string) int {
	n := 0
	for _, s := range xs {
		if s == x {
			n++
		}
	}
	return n
}

// A replica that answers 503 (a restarted process still starting, before the edge's
// readiness probe notices) did nothing: a GET or keyed submit is answered by the other
// replica; an un-keyed POST gets the replica's 503 as it is.
func TestEdgeMovesReplayableRequestsOffAReplicaAnswering503(t *testing.T) {
	t.Parallel()
	starting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "starting")
	}))
	defer starting.Close()
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	defer healthy.Close()
	su, _ := url.Parse(starting.URL)
	hu, _ := url.Parse(healthy.URL)
	tab, _ := ParseTable([]byte(replicaTable))
	srv := httptest.NewServer(New(tab, committedHeaders(t), []Backend{{Name: "checkout", Replicas: []Replica{{URL: su}, {URL: hu}}}}, t.TempDir(), nil))
	defer srv.Close()
	do := func(method, key string) int {
		req, _ := http.NewRequest(method, srv.URL+"/buy/api/subscription/submit", strings.NewReader(`{}`))
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range 2 {
		if c := do(http.MethodGet, ""); c != http.StatusOK {
			t.Errorf("GET %d: %d; want 200", i, c)
		}
		if c := do(http.MethodPost, "k"); c != http.StatusOK {
			t.Errorf("keyed POST %d: %d; want 200", i, c)
		}
	}
	codes := map[int]int{}
	for range 2 {
		codes[do(http.MethodPost, "")]++
	}
	if codes[http.StatusServiceUnavailable] != 1 || codes[http.StatusOK] != 1 {
		t.Errorf("un-keyed POSTs: %v; want one 503 (passed through) and one 200", codes)
	}
}

// A preview is a POST that stores nothing: a replica dying under it is invisible too.
func TestEdgeReplaysReadOnlyPOSTs(t *testing.T) {
	t.Parallel()
	dying := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		_ = conn.Close()
	}))
	defer dying.Close()
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(w, r.Body) }))
	defer healthy.Close()
	du, _ := url.Parse(dying.URL)
	hu, _ := url.Parse(healthy.URL)
	tab, _ := ParseTable([]byte("routes:\n  - {path: /buy/api/invoice, pathType: Prefix, service: checkout}\n" +
		"  - {path: /buy/api/invoice/preview, pathType: Exact, service: checkout, replay: read-only}\n"))
	srv := httptest.NewServer(New(tab, committedHeaders(t), []Backend{{Name: "checkout", Replicas: []Replica{{URL: du}, {URL: hu}}}}, t.TempDir(), nil))
	defer srv.Close()
	for i := range 2 {
		resp, err := http.Post(srv.URL+"/buy/api/invoice/preview", "application/json", strings.NewReader(`{"addOns":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(b) != `{"addOns":[]}` {
			t.Errorf("preview %d: %d %s; want 200 from the healthy replica", i, resp.StatusCode, b)
		}
	}
}

// Only the POSTs the route table marks are replayed: an Idempotency-Key on a route that
// does not honour one (a login, an account change) does not make it safe to send twice,
// and before, any POST carrying the header was replayed.
func TestEdgeReplaysOnlyThePOSTsTheTableMarks(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	dyingSaw := map[string]int{}
	dying := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		dyingSaw[r.URL.Path]++
		mu.Unlock()
		conn, _, _ := w.(http.Hijacker).Hijack()
		_ = conn.Close()
	}))
	defer dying.Close()
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	defer healthy.Close()
	du, _ := url.Parse(dying.URL)
	hu, _ := url.Parse(healthy.URL)
	tab, err := ParseTable([]byte(`routes:
  - {path: /pricing/api/login, pathType: Exact, service: checkout}
  - {path: /buy/api/invoice/submit, pathType: Exact, service: checkout, replay: keyed}
  - {path: /buy/api/invoice/preview, pathType: Exact, service: checkout, replay: read-only}
`))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(tab, committedHeaders(t), []Backend{{Name: "checkout", Replicas: []Replica{{URL: du}, {URL: hu}}}}, t.TempDir(), nil))
	defer srv.Close()
	post := func(path, key string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(`{}`))
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		path, key string
		replayed  bool
	}{
		{"/pricing/api/login", "k-login", false},
		{"/buy/api/invoice/submit", "k-submit", true},
		{"/buy/api/invoice/submit", "", false},
		{"/buy/api/invoice/preview", "", true},
	} {
		codes := map[int]int{}
		for range 2 { // round-robin: one of the two lands on the dying replica first
			codes[post(tc.path, tc.key)]++
		}
		want := map[int]int{http.StatusOK: 1, http.StatusServiceUnavailable: 1}
		if tc.replayed {
			want = map[int]int{http.StatusOK: 2}
		}
		if fmt.Sprint(codes) != fmt.Sprint(want) {
			t.Errorf("POST %s (key %q): %v; want %v", tc.path, tc.key, codes, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if dyingSaw["/pricing/api/login"] != 1 {
		t.Errorf("the dying replica saw the keyed login %d times; want 1", dyingSaw["/pricing/api/login"])
	}
}
