// Package server runs a service's three listeners: gRPC (with health, reflection, panic
// recovery, RED metrics, error mapping and the otelgrpc stats handler), the public REST API
// (grpc-gateway over an in-process connection to the same service implementations, through
// the same interceptors and stats handler as the gRPC server), and the admin port (/healthz,
// /readyz, /metrics). Run blocks until its context ends, then drains every listener within
// the shutdown timeout.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/kitclient"
	"github.com/hangar/hangar/internal/platform/metrics"
	"github.com/hangar/hangar/internal/platform/telemetry"
)

// Deps are the telemetry parts a server is built with.
type Deps struct {
	Logger     *slog.Logger
	Registry   *prometheus.Registry
	Tracer     trace.TracerProvider
	Propagator propagation.TextMapPropagator
	RED        *metrics.RED
}

// GatewayRegistrar registers generated gateway handlers over conn:
// Register<Svc>HandlerClient(ctx, mux, pb.New<Svc>Client(conn)). conn reaches the services
// registered on the Server in-process.
type GatewayRegistrar func(ctx context.Context, mux *runtime.ServeMux, conn grpc.ClientConnInterface) error

// Server is one service's set of listeners.
type Server struct {
	name     string
	cfg      config.Platform
	deps     Deps
	grpc     *grpc.Server
	inproc   *inprocConn
	health   *health.Server
	ready    *Readiness
	public   *http.ServeMux
	gateways []GatewayRegistrar
	admin    *http.ServeMux
	// Installed by shared middleware (internal/platform/auth) before Run.
	httpMW    []func(http.Handler) http.Handler
	limits    Limits
	admission Admission
	// clock of the admission's Retry-After (tests freeze it).
	clock func() time.Time
	// admit is the admission Run built (nil before: nothing is served).
	admit     atomic.Pointer[admission]
	unary     []grpc.UnaryServerInterceptor
	gwOptions []runtime.ServeMuxOption
	// emitDefaults names the answers written with every field (EmitDefaults).
	emitDefaults map[protoreflect.FullName]bool

	grpcLn, httpLn, adminLn net.Listener
	handler                 atomic.Pointer[http.Handler]
	// inprocPeer is the peer a handler saw on the gateway's loopback connection before
	// the gateway went in-process: the address the loopback dial left from.
	inprocPeer atomic.Pointer[peer.Peer]
	stopping   atomic.Bool

	// The service's background workers (Go): Run stops and waits for them before it returns.
	workCtx  context.Context
	stopWork context.CancelFunc
	workMu   sync.Mutex
	workDone bool
	workers  sync.WaitGroup
}

// grpcStreamWorkers is how many goroutines serve gRPC calls before new ones are started.
const grpcStreamWorkers = 16

// New builds a server for the service name. Register services on the Server itself
// (pb.Register<Svc>Server(srv, impl)), gateways with Gateway, extra public routes with
// Handle, then call Listen and Run.
func New(name string, cfg config.Platform, deps Deps) *Server {
	s := &Server{name: name, cfg: cfg, deps: deps, health: health.NewServer(), public: http.NewServeMux(), admin: http.NewServeMux(), limits: DefaultLimits,
		admission: AdmissionOf(cfg), clock: time.Now, emitDefaults: map[protoreflect.FullName]bool{}}
	s.ready = newReadiness(s.health)
	s.workCtx, s.stopWork = context.WithCancel(context.Background())
	interceptors := []grpc.UnaryServerInterceptor{deps.RED.UnaryServerInterceptor(), s.recoverUnary, s.readyUnary, s.errorUnary, s.installedUnary}
	serverStats := otelgrpc.NewServerHandler(otelgrpc.WithTracerProvider(deps.Tracer), otelgrpc.WithPropagators(deps.Propagator))
	// Stream workers: a call is handed to a long-lived goroutine whose stack has grown
	// through the interceptor chain before, instead of a new goroutine growing (copying) its
	// stack on every call (4-5 % of a checkout order's CPU was stack growth). All busy: a new
	// goroutine as without workers.
	// The network server's calls (the other services') pass the internal admission right
	// after they are counted; the in-process gateway's were admitted as public requests.
	network := append([]grpc.UnaryServerInterceptor{interceptors[0], s.admitUnary}, interceptors[1:]...)
	// The clients' fixed flow-control windows (kitclient.StreamWindow says why): no bandwidth probe
	// (PING, its acknowledgement, WINDOW_UPDATE) around each small unary call.
	s.grpc = grpc.NewServer(grpc.StatsHandler(serverStats), grpc.ChainUnaryInterceptor(network...), grpc.NumStreamWorkers(grpcStreamWorkers),
		grpc.StaticStreamWindowSize(kitclient.StreamWindow), grpc.StaticConnWindowSize(kitclient.ConnWindow))
	// The gateway's connection: what the loopback gRPC connection did minus sockets, HTTP/2
	// and marshalling. The client stats handler injects the trace into the metadata the
	// server stats handler extracts it from (the handler gets none of the caller's context
	// values, as a transport would not pass them), so REST spans nest as before.
	s.inproc = &inprocConn{
		services:    map[string]*inprocService{},
		unary:       s.inprocUnary(interceptors),
		clientStats: otelgrpc.NewClientHandler(otelgrpc.WithTracerProvider(deps.Tracer), otelgrpc.WithPropagators(deps.Propagator)),
		serverStats: serverStats,
		peer:        s.inprocPeer.Load,
	}
	s.inprocPeer.Store(&peer.Peer{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}})
	healthpb.RegisterHealthServer(s.grpc, s.health)
	reflection.Register(s.grpc)
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)

	s.admin.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	s.admin.Handle("GET /readyz", s.ready)
	s.admin.Handle("GET /metrics", promhttp.HandlerFor(deps.Registry, promhttp.HandlerOpts{Registry: deps.Registry}))
	s.admin.HandleFunc("/debug/pprof/", pprof.Index)
	s.admin.HandleFunc("/debug/pprof/profile", pprof.Profile)
	s.admin.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return s
}

// RegisterService registers a service implementation on the gRPC server and on the
// gateway's in-process connection, so generated pb.Register<Svc>Server(srv, impl) serves it
// to both. Call before Run.
func (s *Server) RegisterService(desc *grpc.ServiceDesc, impl any) {
	s.grpc.RegisterService(desc, impl)
	s.inproc.register(desc, impl)
}

// Go runs a background worker of the service (its data start-up, outbox relays, event
// consumers, schedulers) in the server's run group: ctx ends once the listeners have
// drained (or Run failed), and Run returns only after every worker has, so a caller that
// closes its pools when Run returns closes nothing under a worker. A worker may start
// others. Called after Run returned, Go starts nothing.
func (s *Server) Go(worker func(ctx context.Context)) {
	s.workMu.Lock()
	defer s.workMu.Unlock()
	if s.workDone {
		return
	}
	s.workers.Add(1)
	go func() {
		defer s.workers.Done()
		worker(s.workCtx)
	}()
}

// ProbeInterval is how often ProbeReady's checks run in the background while their
// condition is met, and ProbeRetry while it is not. Besides, a check runs on every /readyz
// request (the kubelet's probes, which decide on the Service's endpoints) and at once when
// one of its wake channels fires (db.LostDatabase: a statement found the database gone),
// so the gate turns requests away as soon as one of them has failed for it, however long
// the interval. The interval only bounds how long an idle service takes to notice a loss
// nobody ran into (at 2 s the five services' pings were a third of an idle store's
// database transactions, docs/performance.md); the retry, how soon it is back after one.
const (
	ProbeInterval = 10 * time.Second
	ProbeRetry    = 2 * time.Second
)

// ProbeReady keeps the readiness condition name true to check once it is met: while check
// fails (a database ping, a required dependency) the condition is "unreachable", so /readyz
// and the gRPC health service answer not ready and the gate answers 503 with Retry-After
// instead of every request failing on its own. It runs on every /readyz request, whenever
// one of wake receives, and every ProbeInterval (ProbeRetry while unreachable). Register it
// after Require(name).
func (s *Server) ProbeReady(name string, check func(context.Context) error, wake ...<-chan struct{}) {
	s.ready.mu.Lock()
	s.ready.probes[name] = check
	s.ready.mu.Unlock()
	woken := make(chan struct{}, 1)
	for _, w := range wake {
		if w == nil {
			continue
		}
		s.Go(func(ctx context.Context) {
			for {
				select {
				case <-ctx.Done():
					return
				case <-w:
					select {
					case woken <- struct{}{}:
					default:
					}
				}
			}
		})
	}
	s.Go(func(ctx context.Context) {
		t := time.NewTimer(ProbeInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case <-woken:
			}
			next := ProbeInterval
			if !s.ready.probe(ctx, name) {
				next = ProbeRetry
			}
			t.Reset(next)
		}
	})
}

// stopWorkers ends the workers' context and waits for them to return.
func (s *Server) stopWorkers() {
	s.stopWork()
	s.workMu.Lock()
	s.workDone = true
	s.workMu.Unlock()
	s.workers.Wait()
}

// Ready is the readiness state; components report into it.
func (s *Server) Ready() *Readiness { return s.ready }

// Gateway adds generated REST handlers, served under every path not taken by Handle.
func (s *Server) Gateway(r GatewayRegistrar) { s.gateways = append(s.gateways, r) }

// Handle adds a public route served directly (not through the gateway), for the few hot
// reads that serve precomputed bytes. pattern is a net/http ServeMux pattern.
func (s *Server) Handle(pattern string, h http.Handler) {
	s.public.Handle(pattern, refuseBadPath(h))
}

// UseHTTP wraps the public HTTP handler (gateway and Handle routes) in middlewares, the
// first outermost, inside telemetry and panic recovery. Call before Run.
func (s *Server) UseHTTP(mw ...func(http.Handler) http.Handler) { s.httpMW = append(s.httpMW, mw...) }

// SetLimits replaces the request limits (DefaultLimits). Call before Run.
func (s *Server) SetLimits(l Limits) { s.limits = l }

// SetAdmission replaces the in-flight bounds (those of the Platform configuration's
// ADMISSION_* settings). Call before Run.
func (s *Server) SetAdmission(a Admission) { s.admission = a }

// UseUnary adds unary interceptors, run in order after error mapping (so their errors are
// mapped like a handler's). Call before Run.
func (s *Server) UseUnary(i ...grpc.UnaryServerInterceptor) { s.unary = append(s.unary, i...) }

// GatewayOptions adds grpc-gateway ServeMux options (forward-response hooks, header
// matchers, marshalers). Call before Run.
func (s *Server) GatewayOptions(opts ...runtime.ServeMuxOption) {
	s.gwOptions = append(s.gwOptions, opts...)
}

// inprocUnary runs the gRPC server's interceptors for a call on the in-process connection,
// and adds what the loopback connection's transport did: refuse calls once shutdown began,
// refuse metadata gRPC would not send, and turn the handler's error into the status the
// client would have read off the wire (inprocConn presents the loopback peer).
func (s *Server) inprocUnary(interceptors []grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if s.stopping.Load() {
			return nil, status.Error(codes.Unavailable, "the server is shutting down")
		}
		if st, ok := grpc.ServerTransportStreamFromContext(ctx).(*inprocStream); ok && st.badMetadata != nil {
			return nil, status.Error(codes.Internal, st.badMetadata.Error())
		}
		resp, err := chainUnary(interceptors, 0, ctx, req, info, handler)
		if err != nil {
			return nil, wireStatus(err)
		}
		return resp, nil
	}
}

// wireStatus is err as a gRPC client receives it: a status as is, a context error as its
// code, anything else Unknown with its text; never the handler's own error value.
func wireStatus(err error) error {
	st, ok := status.FromError(err)
	if !ok {
		st = status.FromContextError(err)
	}
	return status.FromProto(st.Proto()).Err()
}

// validMetadata applies grpc-go's client-side check of outgoing metadata (keys of
// [0-9a-z-_.], values printable ASCII unless the key ends in -bin): the loopback connection
// refused such a call with Internal before it left the gateway.
func validMetadata(md metadata.MD) error {
	for k, vals := range md {
		if k == "" {
			return errors.New("there is an empty key in the header")
		}
		if k[0] == ':' {
			continue
		}
		for i := 0; i < len(k); i++ {
			if c := k[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '.' && c != '-' && c != '_' {
				return fmt.Errorf("header key %q contains illegal characters not in [0-9a-z-_.]", k)
			}
		}
		if strings.HasSuffix(k, "-bin") {
			continue
		}
		for _, v := range vals {
			for i := 0; i < len(v); i++ {
				if v[i] < 0x20 || v[i] > 0x7e {
					return fmt.Errorf("header key %q contains value with non-printable ASCII characters", k)
				}
			}
		}
	}
	return nil
}

func (s *Server) installedUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	return chainUnary(s.unary, 0, ctx, req, info, handler)
}

func chainUnary(chain []grpc.UnaryServerInterceptor, i int, ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if i == len(chain) {
		return handler(ctx, req)
	}
	return chain[i](ctx, req, info, func(ctx context.Context, req any) (any, error) {
		return chainUnary(chain, i+1, ctx, req, info, handler)
	})
}

// observer, when set, is the outermost layer of every public handler built after: it sees
// exactly what a client sends and receives (the contract test, internal/platform/contracttest).
//
//layercheck:global the contract tests observe every server a test process starts
var observer atomic.Pointer[func(http.Handler) http.Handler]

// ObserveHTTP wraps the public handler of every Server that starts running after the call
// with mw, outside every other layer. For tests: one process, one observer.
func ObserveHTTP(mw func(http.Handler) http.Handler) { observer.Store(&mw) }

// Handler is the public HTTP handler with its full middleware stack, for an in-process
// caller (the dev edge) that would otherwise add a loopback hop. Until Run has built the
// stack it answers 503.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := s.handler.Load(); h != nil {
			(*h).ServeHTTP(w, r)
			return
		}
		WriteError(w, errNotReady())
	})
}

// Listen binds the three listeners, so tests can use ":0" and read the addresses.
func (s *Server) Listen() error {
	var err error
	if s.grpcLn, err = net.Listen("tcp", s.cfg.GRPCAddr); err != nil {
		return fmt.Errorf("listen grpc %s: %w", s.cfg.GRPCAddr, err)
	}
	if s.httpLn, err = net.Listen("tcp", s.cfg.HTTPAddr); err != nil {
		return fmt.Errorf("listen http %s: %w", s.cfg.HTTPAddr, err)
	}
	if s.adminLn, err = net.Listen("tcp", s.cfg.AdminAddr); err != nil {
		return fmt.Errorf("listen admin %s: %w", s.cfg.AdminAddr, err)
	}
	return nil
}

// Addrs answers the bound addresses (after Listen).
func (s *Server) Addrs() (grpcAddr, httpAddr, adminAddr string) {
	return s.grpcLn.Addr().String(), s.httpLn.Addr().String(), s.adminLn.Addr().String()
}

// Run serves until ctx ends, then shuts every listener down gracefully and stops the
// workers (Go), in that order: requests in flight drain while the relays and consumers
// still run, and Run returns once the last worker has.
func (s *Server) Run(ctx context.Context) error {
	defer s.stopWorkers()
	if s.grpcLn == nil {
		if err := s.Listen(); err != nil {
			return err
		}
	}
	log := s.deps.Logger
	if ta, ok := s.grpcLn.Addr().(*net.TCPAddr); ok {
		ip := ta.IP
		if ip == nil || ip.IsUnspecified() {
			ip = net.IPv4(127, 0, 0, 1)
		}
		s.inprocPeer.Store(&peer.Peer{Addr: &net.TCPAddr{IP: ip}, LocalAddr: ta})
	}
	defer s.stopping.Store(true)
	gw := runtime.NewServeMux(append([]runtime.ServeMuxOption{
		runtime.WithErrorHandler(s.gatewayError),
		runtime.WithRoutingErrorHandler(s.routingError),
		runtime.WithIncomingHeaderMatcher(IncomingHeader),
		runtime.WithMarshalerOption(runtime.MIMEWildcard, newJSONMarshaler(s.emitDefaults)),
		runtime.WithMiddlewares(func(next runtime.HandlerFunc) runtime.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request, p map[string]string) {
				if hasBadPath(r) {
					WriteError(w, badPathError(p))
					return
				}
				if pat, ok := runtime.HTTPPattern(r.Context()); ok {
					metrics.SetRoute(r, pat.String())
				}
				next(w, r, p)
			}
		}),
	}, s.gwOptions...)...)
	for _, reg := range s.gateways {
		if err := reg(ctx, gw, s.inproc); err != nil {
			return fmt.Errorf("register gateway: %w", err)
		}
	}
	s.public.Handle("/", gw)

	var inner http.Handler = s.public
	for i := len(s.httpMW) - 1; i >= 0; i-- {
		inner = s.httpMW[i](inner)
	}
	// Headers and the input guard wrap everything a service installs, so every route of
	// every service (and the routes a service adds later) gets them without asking; no
	// internal header from outside reaches any of it.
	// Admission comes before any work (the readiness gate and the input guard included): an
	// overloaded process answers 'busy' in microseconds instead of queueing.
	var reg prometheus.Registerer
	if s.deps.Registry != nil {
		reg = s.deps.Registry
	}
	admit := newAdmission(s.admission, s.clock, reg)
	s.admit.Store(admit)
	inner = stripInternal(apiHeaders(admit.handler(s.readyGate(guard(s.limits, inner)))))
	public := otelhttp.NewHandler(s.deps.RED.HTTPMiddleware(recoverHTTP(log, inner)), s.name,
		otelhttp.WithTracerProvider(s.deps.Tracer), otelhttp.WithPropagators(s.deps.Propagator),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method + " " + r.URL.Path }))
	if o := observer.Load(); o != nil {
		public = (*o)(public)
	}
	s.handler.Store(&public)
	// net/http's own lines (a handler's superfluous WriteHeader, a broken connection) go
	// through slog, not the standard logger.
	httpSrv := &http.Server{Handler: public, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second,
		ErrorLog: telemetry.StdLogger(log, slog.LevelWarn, "http server")}
	adminSrv := &http.Server{Handler: s.admin, ReadHeaderTimeout: 5 * time.Second, ErrorLog: telemetry.StdLogger(log, slog.LevelWarn, "admin server")}

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return ignoreClosed(s.grpc.Serve(s.grpcLn)) })
	g.Go(func() error { return ignoreClosed(httpSrv.Serve(s.httpLn)) })
	g.Go(func() error { return ignoreClosed(adminSrv.Serve(s.adminLn)) })
	log.Info("serving", "grpc", s.grpcLn.Addr().String(), "http", s.httpLn.Addr().String(), "admin", s.adminLn.Addr().String())
	g.Go(func() error {
		<-gctx.Done()
		log.Info("shutting down", "timeout", s.cfg.ShutdownTimeout.String())
		// Fail readiness first so load balancers stop sending before we stop accepting.
		s.ready.shutdown()
		sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
		defer cancel()
		errHTTP := httpSrv.Shutdown(sctx)
		// In-process callers of Handler (the dev edge) bypass httpSrv; the loopback
		// connection refused them once the gRPC server began to stop.
		s.stopping.Store(true)
		stopped := make(chan struct{})
		go func() { s.grpc.GracefulStop(); close(stopped) }()
		select {
		case <-stopped:
		case <-sctx.Done():
			s.grpc.Stop()
		}
		errAdmin := adminSrv.Shutdown(sctx)
		return errors.Join(errHTTP, errAdmin)
	})
	return g.Wait()
}

func ignoreClosed(err error) error {
	if err == nil || errors.Is(err, http.ErrServerClosed) || errors.Is(err, grpc.ErrServerStopped) || errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

func (s *Server) recoverUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.deps.Logger.ErrorContext(ctx, "panic in rpc", "method", info.FullMethod, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = errs.E(errs.Internal, "internal error")
		}
	}()
	return handler(ctx, req)
}

// errorUnary maps domain errors to gRPC statuses once, logging what clients must not see.
// admitUnary is the internal admission of the network gRPC server's calls.
func (s *Server) admitUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if a := s.admit.Load(); a != nil {
		return a.unary(ctx, req, info, handler)
	}
	return handler(ctx, req)
}

func (s *Server) errorUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	if err == nil {
		return resp, nil
	}
	st, replaced := errs.PublicStatus(err)
	switch code := errs.CodeOf(err); {
	case ctx.Err() != nil:
		// The caller left (a browser navigating away) or ran out of time: its call ending is
		// not a fault of this service, and logging it as one buries the real ones.
		s.deps.Logger.DebugContext(ctx, "rpc abandoned by its caller", "method", info.FullMethod, "code", string(code), "err", err.Error())
	case code == errs.Internal, code == errs.Unavailable:
		s.deps.Logger.ErrorContext(ctx, "rpc failed", "method", info.FullMethod, "code", string(code), "err", err.Error())
	case replaced:
		s.deps.Logger.WarnContext(ctx, "rpc failed; its words replaced", "method", info.FullMethod, "code", string(code), "err", err.Error())
	}
	return nil, st.Err()
}

func recoverHTTP(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				log.ErrorContext(r.Context(), "panic in http handler", "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				WriteError(w, errs.E(errs.Internal, "internal error"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}
