package edge

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/server"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// Replica is one process of a service (a pod behind the Kubernetes Service).
type Replica struct {
	URL *url.URL
	// Ready is the replica's readiness (its /readyz); nil is always ready.
	Ready func() bool
}

// replicaSet proxies a service's routes to its replicas, round-robin over the ready ones,
// and moves a request that failed on one replica to the next (issue 30: no buyer sees a
// single process die). A request is moved only while nothing of the failed attempt reached
// the buyer (the reverse proxy calls its error handler before it writes anything), and
// only when replaying it cannot do the work twice: the replica never got it (the
// connection was refused), or it is idempotent by the API's contract: GET and HEAD, and
// the POSTs the route table marks (Route.Replay): a keyed POST to a route that honours the
// key (the service replays a key's first outcome, so a submit that a dying replica
// committed answers the order, not a second charge) and any POST to a read-only route; a
// replayable request that a replica answered 503 is moved too. Any other POST that a
// replica dropped mid-request may have taken effect: the buyer gets 503 and decides.
type replicaSet struct {
	name     string
	replicas []Replica
	proxies  []*httputil.ReverseProxy
	next     atomic.Uint64
	// maxBody bounds the body buffered for a replay; a larger body goes through unbuffered
	// and is not replayed (the services refuse it with 413 anyway).
	maxBody int64
	// routes holds the Replay of each path.
	routes *Table
	log    *slog.Logger
}

// attemptKey carries the attempt's outcome between replicaSet.ServeHTTP and the proxy's
// error handler.
type attemptKey struct{}

type attempt struct {
	// retry: the handler may leave the answer to another replica.
	retry bool
	err   error
}

func newReplicaSet(name string, replicas []Replica, routes *Table, transport http.RoundTripper, log *slog.Logger) *replicaSet {
	if log == nil {
		log = slog.Default()
	}
	if routes == nil {
		routes = &Table{}
	}
	s := &replicaSet{name: name, replicas: replicas, maxBody: server.DefaultLimits.MaxBodyBytes, routes: routes, log: log}
	for _, rep := range replicas {
		target := rep.URL
		s.proxies = append(s.proxies, &httputil.ReverseProxy{
			Rewrite: func(r *httputil.ProxyRequest) {
				r.SetURL(target)
				r.SetXForwarded()
				r.Out.Host = r.In.Host
			},
			Transport: transport,
			// A replica that answers 503 (starting, or its database lost) before its
			// readiness probe says so has done nothing the buyer needs to know about: a
			// replayable request is taken from it to the next replica, as nginx's
			// proxy_next_upstream http_503 does.
			ModifyResponse: func(resp *http.Response) error {
				a, ok := resp.Request.Context().Value(attemptKey{}).(*attempt)
				if ok && a.retry && resp.StatusCode == http.StatusServiceUnavailable && s.replayable(resp.Request) {
					return errReplicaUnavailable
				}
				return nil
			},
			ErrorLog: telemetry.StdLogger(log, slog.LevelWarn, "edge proxy"),
			ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
				if a, ok := r.Context().Value(attemptKey{}).(*attempt); ok {
					a.err = err
					if a.retry && (s.replayable(r) || refused(err)) {
						return // the next replica answers
					}
				}
				log.WarnContext(r.Context(), "edge: backend unreachable", "path", r.URL.Path, "err", err.Error())
				writeUnavailable(w)
			},
		})
	}
	return s
}

// ready answers whether any replica is ready: the service is up while one is.
func (s *replicaSet) ready() bool {
	for _, rep := range s.replicas {
		if rep.Ready == nil || rep.Ready() {
			return true
		}
	}
	return false
}

func (s *replicaSet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	order := s.order()
	if len(order) == 0 {
		writeNoReplica(w)
		return
	}
	body, replayable := s.buffer(r)
	for i, idx := range order {
		a := &attempt{retry: replayable && i < len(order)-1}
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		s.proxies[idx].ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), attemptKey{}, a)))
		if a.err == nil || !a.retry || !(s.replayable(r) || refused(a.err)) {
			return
		}
		if r.Context().Err() != nil {
			return // the buyer left; nobody to answer
		}
		s.log.WarnContext(r.Context(), "edge: replica failed; retrying on another", "service", s.name,
			"replica", s.replicas[idx].URL.Host, "path", r.URL.Path, "err", a.err.Error())
	}
}

// order answers the ready replicas, starting at the next in turn.
func (s *replicaSet) order() []int {
	n := len(s.replicas)
	start := int(s.next.Add(1) % uint64(n))
	var out []int
	for i := range n {
		idx := (start + i) % n
		if rep := s.replicas[idx]; rep.Ready == nil || rep.Ready() {
			out = append(out, idx)
		}
	}
	return out
}

// buffer reads r's body so that it can be sent again, when it fits the body limit; ok
// false means the request cannot be replayed (its body streamed past the limit).
func (s *replicaSet) buffer(r *http.Request) (body []byte, ok bool) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	if r.ContentLength > s.maxBody {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, s.maxBody+1))
	if err != nil || int64(len(b)) > s.maxBody {
		// Hand the replica what was read and the rest of the stream, once.
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
		return nil, false
	}
	_ = r.Body.Close()
	if len(b) == 0 {
		r.Body = http.NoBody
		return nil, true
	}
	return b, true
}

var errReplicaUnavailable = errors.New("replica answered 503")

// replayable: the request may be sent again after a replica took it and died, because
// doing it twice is doing it once (GET, HEAD, OPTIONS; a keyed POST to a route that
// honours the key; a POST to a read-only route: the route table says which).
func (s *replicaSet) replayable(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	case http.MethodPost:
		route, _ := s.routes.Match(r.URL.Path)
		return route.Replay == ReplayReadOnly || (route.Replay == ReplayKeyed && r.Header.Get("Idempotency-Key") != "")
	}
	return false
}

// NewReplicaProxy answers a handler that spreads requests over replicas and replays them
// as the edge does, the POSTs routes marks (hangar-dev serves payments' card-fields
// origin with it when payments runs as several processes).
func NewReplicaProxy(name string, replicas []Replica, routes *Table, log *slog.Logger) http.Handler {
	return newReplicaSet(name, replicas, routes, &http.Transport{
		DialContext:           (&net.Dialer{Timeout: UpstreamConnectTimeout}).DialContext,
		ResponseHeaderTimeout: UpstreamResponseTimeout,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
	}, log)
}

// refused: the replica never received the request (nothing listened, or the connection
// could not be made), so sending it elsewhere is safe whatever its method.
func refused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// writeUnavailable is the one error object, 503 with Retry-After, whether the backend
// refused the connection, dropped it or timed out: either way the buyer retries shortly.
func writeUnavailable(w http.ResponseWriter) {
	e := errs.E(errs.Unavailable, "The service is temporarily unavailable, please retry.")
	e.RetryAfter = time.Second
	server.WriteError(w, e)
}

// writeNoReplica answers a request for a service with no ready replica. The edge cannot
// tell why none is (starting, its database lost, a rollout), so it says neither: 503 with
// Retry-After, as the Ingress answers a Service without ready endpoints.
func writeNoReplica(w http.ResponseWriter) {
	e := errs.E(errs.Unavailable, "The service is unavailable. Please retry shortly.")
	e.RetryAfter = time.Second
	server.WriteError(w, e)
}
