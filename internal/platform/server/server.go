// Package server runs a service's three listeners: gRPC (with health, reflection, panic
// recovery, RED metrics, error mapping and the otelgrpc stats handler), the public REST API
// (grpc-gateway over a gRPC connection to the same server, so REST calls pass the same
// interceptors), and the admin port (/healthz, /readyz, /metrics). Run blocks until its
// context ends, then drains every listener within the shutdown timeout.
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
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/hangar/hangar/internal/platform/config"
	"github.com/hangar/hangar/internal/platform/errs"
	"github.com/hangar/hangar/internal/platform/metrics"
)

// Deps are the telemetry parts a server is built with.
type Deps struct {
	Logger     *slog.Logger
	Registry   *prometheus.Registry
	Tracer     trace.TracerProvider
	Propagator propagation.TextMapPropagator
	RED        *metrics.RED
}

// GatewayRegistrar registers generated gateway handlers over conn (Register<Svc>Handler).
type GatewayRegistrar func(ctx context.Context, mux *runtime.ServeMux, conn *grpc.ClientConn) error

// Server is one service's set of listeners.
type Server struct {
	name     string
	cfg      config.Platform
	deps     Deps
	grpc     *grpc.Server
	health   *health.Server
	ready    *Readiness
	public   *http.ServeMux
	gateways []GatewayRegistrar
	admin    *http.ServeMux
	// Installed by shared middleware (internal/platform/auth) before Run.
	httpMW    []func(http.Handler) http.Handler
	limits    Limits
	unary     []grpc.UnaryServerInterceptor
	gwOptions []runtime.ServeMuxOption

	grpcLn, httpLn, adminLn net.Listener
	handler                 atomic.Pointer[http.Handler]
}

// New builds a server for the service name. Register services on GRPC(), gateways with
// Gateway, extra public routes with Handle, then call Listen and Run.
func New(name string, cfg config.Platform, deps Deps) *Server {
	s := &Server{name: name, cfg: cfg, deps: deps, health: health.NewServer(), public: http.NewServeMux(), admin: http.NewServeMux(), limits: DefaultLimits}
	s.ready = newReadiness(s.health)
	s.grpc = grpc.NewServer(
		grpc.StatsHandler(otelgrpc.NewServerHandler(otelgrpc.WithTracerProvider(deps.Tracer), otelgrpc.WithPropagators(deps.Propagator))),
		grpc.ChainUnaryInterceptor(deps.RED.UnaryServerInterceptor(), s.recoverUnary, s.errorUnary, s.installedUnary),
	)
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

// GRPC is the gRPC server to register service implementations on.
func (s *Server) GRPC() *grpc.Server { return s.grpc }

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

// UseUnary adds unary interceptors, run in order after error mapping (so their errors are
// mapped like a handler's). Call before Run.
func (s *Server) UseUnary(i ...grpc.UnaryServerInterceptor) { s.unary = append(s.unary, i...) }

// GatewayOptions adds grpc-gateway ServeMux options (forward-response hooks, header
// matchers, marshalers). Call before Run.
func (s *Server) GatewayOptions(opts ...runtime.ServeMuxOption) {
	s.gwOptions = append(s.gwOptions, opts...)
}

func (s *Server) installedUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	return s.chainUnary(0, ctx, req, info, handler)
}

func (s *Server) chainUnary(i int, ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if i == len(s.unary) {
		return handler(ctx, req)
	}
	return s.unary[i](ctx, req, info, func(ctx context.Context, req any) (any, error) {
		return s.chainUnary(i+1, ctx, req, info, handler)
	})
}

// Handler is the public HTTP handler with its full middleware stack, for an in-process
// caller (the dev edge) that would otherwise add a loopback hop. Until Run has built the
// stack it answers 503.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := s.handler.Load(); h != nil {
			(*h).ServeHTTP(w, r)
			return
		}
		WriteError(w, errs.E(errs.Unavailable, "the service is starting"))
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

// Run serves until ctx ends, then shuts every listener down gracefully.
func (s *Server) Run(ctx context.Context) error {
	if s.grpcLn == nil {
		if err := s.Listen(); err != nil {
			return err
		}
	}
	log := s.deps.Logger
	conn, err := grpc.NewClient(loopback(s.grpcLn.Addr()),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithStatsHandler(otelgrpc.NewClientHandler(otelgrpc.WithTracerProvider(s.deps.Tracer), otelgrpc.WithPropagators(s.deps.Propagator))),
	)
	if err != nil {
		return fmt.Errorf("dial own grpc: %w", err)
	}
	defer conn.Close()
	gw := runtime.NewServeMux(append([]runtime.ServeMuxOption{
		runtime.WithErrorHandler(s.gatewayError),
		runtime.WithRoutingErrorHandler(s.routingError),
		runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.JSONPb{
			MarshalOptions:   protojson.MarshalOptions{EmitUnpopulated: false},
			UnmarshalOptions: protojson.UnmarshalOptions{DiscardUnknown: false},
		}),
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
		if err := reg(ctx, gw, conn); err != nil {
			return fmt.Errorf("register gateway: %w", err)
		}
	}
	s.public.Handle("/", gw)

	var inner http.Handler = s.public
	for i := len(s.httpMW) - 1; i >= 0; i-- {
		inner = s.httpMW[i](inner)
	}
	// Headers and the input guard wrap everything a service installs, so every route of
	// every service (and the routes a service adds later) gets them without asking.
	inner = apiHeaders(guard(s.limits, inner))
	public := otelhttp.NewHandler(s.deps.RED.HTTPMiddleware(recoverHTTP(log, inner)), s.name,
		otelhttp.WithTracerProvider(s.deps.Tracer), otelhttp.WithPropagators(s.deps.Propagator),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method + " " + r.URL.Path }))
	s.handler.Store(&public)
	httpSrv := &http.Server{Handler: public, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	adminSrv := &http.Server{Handler: s.admin, ReadHeaderTimeout: 5 * time.Second}

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

func loopback(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok && (ta.IP == nil || ta.IP.IsUnspecified()) {
		return fmt.Sprintf("127.0.0.1:%d", ta.Port)
	}
	return a.String()
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
func (s *Server) errorUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	if err == nil {
		return resp, nil
	}
	switch code := errs.CodeOf(err); code {
	case errs.Internal, errs.Unavailable:
		s.deps.Logger.ErrorContext(ctx, "rpc failed", "method", info.FullMethod, "code", string(code), "err", err.Error())
	}
	return nil, errs.Mark(errs.ToStatus(err)).Err()
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
