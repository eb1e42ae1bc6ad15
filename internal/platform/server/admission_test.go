package server_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
)

// Issue 39: a process past its in-flight bound answers at once, before any work, 503 "The
// store is busy" with a Retry-After that grows with how many were turned away, while its
// readiness stays 200 (before, overload went on queueing until the edge's readiness probes
// timed out and the edge answered "The service is starting").
func TestAdmissionShedsPastTheBoundAndReadinessStays(t *testing.T) {
	t.Parallel()
	const bound = 2
	f := &fake{traces: make(chan trace.TraceID, 16), hold: make(chan struct{})}
	s, _, _ := startServerWith(t, f, func(s *server.Server) {
		s.SetAdmission(server.Admission{Read: bound, Write: bound})
		server.FreezeAdmissionClock(s, time.Unix(1_800_000_000, 0))
	})
	_, httpAddr, adminAddr := s.Addrs()
	url := "http://" + httpAddr + "/account/api/subscription/available/add-ons"
	held := make(chan int, bound)
	for range bound {
		go func() {
			resp, err := http.Get(url)
			if err != nil {
				held <- -1
				return
			}
			resp.Body.Close()
			held <- resp.StatusCode
		}()
	}
	for range bound {
		<-f.traces // both are in the handler, held there until f.hold closes
	}

	var waits []string
	for i := range 2*bound + 1 {
		resp, b := fetch(t, url, nil)
		var body errs.Body
		_ = json.Unmarshal(b, &body)
		if resp.StatusCode != http.StatusServiceUnavailable || body.Reason != server.ErrBusyReason || body.Message != "The store is busy. Please retry in a moment." {
			t.Fatalf("request %d past the bound: %d %s", i+1, resp.StatusCode, b)
		}
		waits = append(waits, resp.Header.Get("Retry-After"))
	}
	if waits[0] != "1" || waits[len(waits)-1] != "3" {
		t.Errorf("Retry-After over %d requests shed: %v; want from 1 growing to 3", len(waits), waits)
	}
	select {
	case tr := <-f.traces:
		t.Errorf("a shed request reached the handler (trace %s)", tr)
	default:
	}
	for i := range 3 {
		if resp, b := fetch(t, "http://"+adminAddr+"/readyz", nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("/readyz #%d while busy: %d %s; readiness must not say how busy the process is", i+1, resp.StatusCode, b)
		}
	}
	close(f.hold)
	for range bound {
		if code := <-held; code != http.StatusOK {
			t.Errorf("a request within the bound: %d", code)
		}
	}
	resp, b := fetch(t, url, nil)
	<-f.traces
	if resp.StatusCode != http.StatusOK {
		t.Errorf("after the load: %d %s", resp.StatusCode, b)
	}
}
