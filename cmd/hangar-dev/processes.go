package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/hangar/hangar/internal/devmail"
	"github.com/hangar/hangar/internal/edge"
)

// procService is one service of the multi-process mode: its binary's package and the
// variables that point it at the services it calls (filled with their gRPC addresses).
type procService struct {
	name string
	// calls maps an environment variable to the service whose gRPC address it takes.
	calls map[string]string
	// env are the service's dev-only settings (seeds, simulators).
	env map[string]string
}

// procServices run in dependency order. A new service adds its entry here as well as its
// in-process block in main.go.
var procServices = []procService{
	{name: "catalog"},
	{name: "identity", env: map[string]string{"IDENTITY_DEV_SEED": "true", "IDENTITY_DEV_MAIL": "true"}},
	{name: "payments", calls: map[string]string{"IDENTITY_ADDR": "identity"},
		env: map[string]string{"PAYMENTS_DEV_SEED": "true", "PAYMENTS_READER_SIMULATOR": "true", "PAYMENTS_CARD_READERS": "RDR-0001,RDR-0002"}},
	// geo takes its trusted proxies as address ranges: the edge on loopback.
	{name: "geo", env: map[string]string{"TRUSTED_PROXIES": "127.0.0.0/8,::1"}},
	{name: "allocation", calls: map[string]string{"IDENTITY_ADDR": "identity"}, env: map[string]string{"ALLOCATION_DEV_SEED": "true"}},
	{name: "checkout", calls: map[string]string{"CATALOG_ADDR": "catalog", "IDENTITY_ADDR": "identity", "PAYMENTS_ADDR": "payments",
		"ALLOCATION_ADDR": "allocation", "GEO_ADDR": "geo"},
		env: map[string]string{"CHECKOUT_DEV_SEED": "true"}},
	// notifications: SMTP_ADDR, SMTP_TLS and STORE_BASE_URL are set by runProcesses.
	{name: "notifications"},
}

// child is a supervised service process. Its ports are fixed for the run, so a restarted
// process is found where the edge and its callers expect it, as behind a Kubernetes Service.
type child struct {
	name                      string
	bin                       string
	grpcAddr, httpAddr, admin string
	env                       []string
	mu                        sync.Mutex
	pid, restarts             int
	ready                     func() bool
}

// runProcesses is the multi-process mode: each service its own binary and process, the
// edge proxying to them over HTTP exactly as the Ingress would (X-Forwarded-For appended,
// Host kept; the services trust one proxy hop, TRUSTED_PROXIES=1, as in the chart), so one
// service can be killed (kill -9 <pid from /-/processes>) while the rest keep serving. A
// service that exits is restarted after RestartDelay, as the kubelet would.
func runProcesses(ctx context.Context, cfg Config, table *edge.Table, headers *edge.Headers, brokers []string, log *slog.Logger) error {
	binDir, err := filepath.Abs(cfg.ProcessBin)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return err
	}
	// The dev mail sink lives in this process (as in the default mode), so the mail a killed
	// and restarted notifications process sent is all in one place (/-/mail).
	var sink *devmail.Sink
	smtp := map[string]string{"STORE_BASE_URL": "http://" + devHost(cfg.EdgeAddr)}
	if cfg.SMTPAddr == "" {
		if sink, err = devmail.Listen("127.0.0.1:0", cfg.MailMax); err != nil {
			return err
		}
		defer sink.Close()
		smtp["SMTP_ADDR"], smtp["SMTP_TLS"] = sink.Addr(), "none"
		log.Info("dev mail sink started", "smtp", sink.Addr())
	}
	var children []*child
	byName := map[string]*child{}
	for _, s := range procServices {
		if _, err := os.Stat(filepath.Join("services", s.name, "cmd", s.name)); err != nil {
			return fmt.Errorf("%s: run hangar-dev from the repository root: %w", s.name, err)
		}
		bin := filepath.Join(binDir, s.name)
		log.Info("building", "service", s.name, "binary", bin)
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./services/"+s.name+"/cmd/"+s.name)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build %s: %w", s.name, err)
		}
		ports, err := freeLoopbackAddrs(3)
		if err != nil {
			return err
		}
		c := &child{name: s.name, bin: bin, grpcAddr: ports[0], httpAddr: ports[1], admin: ports[2]}
		dbURL, err := url.Parse(cfg.DatabaseURL)
		if err != nil {
			return err
		}
		dbURL.Path = "/" + cfg.DBPrefix + s.name
		env := map[string]string{
			"GRPC_ADDR": c.grpcAddr, "HTTP_ADDR": c.httpAddr, "ADMIN_ADDR": c.admin,
			"DATABASE_URL": dbURL.String(), "DATABASE_CREATE": "true",
			"KAFKA_BROKERS": strings.Join(brokers, ","),
			"LOG_FORMAT":    cfg.LogFormat, "LOG_LEVEL": cfg.LogLevel, "SHUTDOWN_TIMEOUT": "5s",
			// Production proxy settings: the edge is the one proxy appending X-Forwarded-For.
			"TRUSTED_PROXIES": "1", "ALLOWED_ORIGINS": devOrigins(cfg.EdgeAddr),
		}
		for k, v := range s.env {
			env[k] = v
		}
		if s.name == "notifications" {
			for k, v := range smtp {
				env[k] = v
			}
		}
		for k, callee := range s.calls {
			dep, ok := byName[callee]
			if !ok {
				return fmt.Errorf("%s calls %s, which starts later", s.name, callee)
			}
			env[k] = dep.grpcAddr
		}
		// The process inherits hangar-dev's environment (PATH, PG*, OTEL_*), then these.
		c.env = os.Environ()
		for k, v := range env {
			c.env = append(c.env, k+"="+v)
		}
		adminURL := "http://" + c.admin + "/readyz"
		probe := &http.Client{Timeout: time.Second}
		c.ready = func() bool {
			resp, err := probe.Get(adminURL)
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		}
		children = append(children, c)
		byName[s.name] = c
	}

	g, gctx := errgroup.WithContext(ctx)
	var backends []edge.Backend
	var targets scrapeTargets
	for _, c := range children {
		backends = append(backends, edge.Backend{Name: c.name, URL: &url.URL{Scheme: "http", Host: c.httpAddr}, Ready: c.ready})
		targets.add(c.name, c.admin)
		g.Go(func() error { return c.supervise(gctx, cfg.RestartDelay, log) })
	}
	for _, name := range table.Services() {
		if name != "web" && byName[name] == nil {
			log.Warn("route table names a service this runner does not start", "service", name)
		}
	}

	pages, err := edge.LoadPages(cfg.PagesFile)
	if err != nil {
		return err
	}
	e := edge.New(table, headers, backends, cfg.WebDir, log).WithPages(pages)
	ln, err := net.Listen("tcp", cfg.EdgeAddr)
	if err != nil {
		return fmt.Errorf("edge listen %s (is another make dev running?): %w", cfg.EdgeAddr, err)
	}
	mux := http.NewServeMux()
	if sink != nil {
		mux.Handle("GET /-/mail", sink)
	}
	mux.Handle("GET /-/prometheus/targets", &targets)
	mux.HandleFunc("GET /-/processes", func(w http.ResponseWriter, _ *http.Request) {
		out := map[string]map[string]any{}
		for _, c := range children {
			c.mu.Lock()
			out[c.name] = map[string]any{"pid": c.pid, "restarts": c.restarts, "grpc": c.grpcAddr, "http": c.httpAddr, "admin": c.admin}
			c.mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	})
	mux.Handle("/", e)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	g.Go(func() error {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	})
	g.Go(func() error { return announce(gctx, ln.Addr().String(), backends, log) })
	err = g.Wait()
	log.Info("stopped")
	return err
}

// supervise runs the child until ctx ends, restarting it whenever it exits.
func (c *child) supervise(ctx context.Context, delay time.Duration, log *slog.Logger) error {
	for {
		cmd := exec.Command(c.bin)
		cmd.Env = c.env
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		// Dies with hangar-dev, even if hangar-dev is killed.
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start %s: %w", c.name, err)
		}
		c.mu.Lock()
		c.pid = cmd.Process.Pid
		c.mu.Unlock()
		slog.Info("service process started", "name", c.name, "pid", cmd.Process.Pid, "http", c.httpAddr, "grpc", c.grpcAddr, "admin", c.admin)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-ctx.Done():
			// Graceful stop as in Kubernetes: SIGTERM, then the kill after the grace period.
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
			return nil
		case err := <-done:
			c.mu.Lock()
			c.restarts++
			c.pid = 0
			c.mu.Unlock()
			log.Warn("service process exited; restarting", "name", c.name, "err", fmt.Sprint(err), "in", delay.String())
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
	}
}

// freeLoopbackAddrs answers n distinct free loopback addresses.
func freeLoopbackAddrs(n int) ([]string, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	var out []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out = append(out, "127.0.0.1:"+strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	}
	return out, nil
}
