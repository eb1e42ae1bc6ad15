package server

import (
	"context"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc"

	"github.com/hangar/hangar/internal/platform/errs"
)

// notReadyRetry is the Retry-After of a call refused while the service starts or has lost
// its database.
const notReadyRetry = time.Second

// errNotReady answers a call that came before the service was ready: its database not yet
// migrated, say, where the call would have failed with 'relation … does not exist'.
func errNotReady() error {
	return &errs.Error{Code: errs.Unavailable, Message: "The service is unavailable. Please retry shortly.", RetryAfter: notReadyRetry}
}

// readyUnary refuses every call with UNAVAILABLE (and a retry delay) until the readiness
// conditions hold; the health service answers regardless, since it is how callers learn
// of readiness. It is in the chain of the gRPC server and of the gateway's in-process
// connection alike. Shutting down is not refused here: calls in flight drain, and the
// listeners refuse new ones.
func (s *Server) readyUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if !s.ready.admit.Load() && !strings.HasPrefix(info.FullMethod, "/grpc.health.v1.Health/") {
		return nil, errs.ToStatus(errNotReady()).Err()
	}
	return handler(ctx, req)
}

// readyGate is readyUnary for the public HTTP handler (the Handle routes do not pass the
// interceptors; the gateway's are refused here before any middleware works on them). The
// admin port (/healthz, /readyz, /metrics) is not behind it.
func (s *Server) readyGate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.ready.admit.Load() {
			WriteError(w, errNotReady())
			return
		}
		next.ServeHTTP(w, r)
	})
}
