package server_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
)

// Issue 39: every 503 carries Retry-After. A dependency's "unavailable" that names no wait
// ("payments unavailable" answered 79 times at 2.25x load without one), and an outage seen
// only as an unreachable network, both say when to ask again.
func TestEvery503CarriesRetryAfter(t *testing.T) {
	t.Parallel()
	for name, err := range map[string]error{
		"unavailable without a wait": errs.Wrap(errs.Unavailable, errors.New("circuit open"), "The payments service is unavailable. Please try again."),
		"a gRPC status passed on":    errs.ToStatus(errs.E(errs.Unavailable, "accounts are unavailable; try again")).Err(),
	} {
		rec := httptest.NewRecorder()
		server.WriteError(rec, err)
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
			t.Errorf("%s: %d Retry-After %q; want 503 with Retry-After", name, rec.Code, rec.Header().Get("Retry-After"))
		}
		if errs.FromStatus(errs.ToStatus(err)).RetryAfter <= 0 {
			t.Errorf("%s: its gRPC status names no retry delay for the caller", name)
		}
	}
}

// /readyz's 503 says when to ask again too.
func TestReadyzUnreadyCarriesRetryAfter(t *testing.T) {
	t.Parallel()
	s, _, _ := startServerWith(t, &fake{}, func(s *server.Server) { s.Ready().Require("database") })
	_, _, adminAddr := s.Addrs()
	resp, b := fetch(t, "http://"+adminAddr+"/readyz", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("/readyz while starting: %d Retry-After %q %s; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
}
