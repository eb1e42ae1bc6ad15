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
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/hangar/hangar/internal/edge"
	"github.com/hangar/hangar/internal/platform/db"
	payments "github.com/hangar/hangar/services/payments/app"
)

// child is a supervised service process. Its ports are fixed for the run, so a restarted
// process is found where the edge and its callers expect it, as behind a Kubernetes Service.
type child struct {
	name                      string
	bin                       string
	grpcAddr, httpAddr, admin string
	// fields: payments' card-fields listener when replicas share FIELDS_ADDR's proxy.
	fields        string
	env           []string
	mu            sync.Mutex
	pid, restarts int
	ready         func() bool
	// forget drops ready's cached answer: a process that exited is not ready, and its
	// successor is not ready until its own probe says so (without this the edge and the
	// forwarders sent a restarted replica requests for up to a second while it answered
	// 503 starting).
	forget func()
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
	sink, mail, err := startMail(ctx, cfg, log)
	if err != nil {
		return err
	}
	if sink != nil {
		defer sink.Close()
	}
	human, siteverify, err := startHuman(ctx, cfg, log)
	if err != nil {
		return err
	}
	if human != nil {
		defer human.Close()
	}
	dr := &devRun{cfg: cfg, brokers: brokers, trustedProxies: "1", mail: mail, siteverify: siteverify, grpc: map[string]string{}}
	replicas := max(cfg.Replicas, 1)
	var children []*child
	var backends []edge.Backend
	var targets scrapeTargets
	var forwarders []*forwarder
	var fieldsSrv *http.Server
	childAddrs := newChildPorts()
	var fieldsLn net.Listener
	for _, s := range devServices {
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
		var set []*child
		for i := range replicas {
			// Every replica its own ports (its gRPC, HTTP, admin and, for payments, fields
			// listeners), as pods have their own addresses.
			ports, err := childAddrs.addrs(4)
			if err != nil {
				return err
			}
			name := s.name
			if i > 0 {
				name = fmt.Sprintf("%s-%d", s.name, i+1)
			}
			c := &child{name: name, bin: bin, grpcAddr: ports[0], httpAddr: ports[1], admin: ports[2], fields: ports[3]}
			adminURL := "http://" + c.admin + "/readyz"
			probe := &http.Client{Timeout: time.Second}
			c.ready, c.forget = cachedProbe(func() bool {
				resp, err := probe.Get(adminURL)
				if err != nil {
					return false
				}
				resp.Body.Close()
				return resp.StatusCode == http.StatusOK
			})
			set = append(set, c)
		}
		// The service's one address for its callers: the replica's own with one replica,
		// else a forwarder (forward.go) in front of them, as a Kubernetes Service is.
		dr.grpc[s.name] = set[0].grpcAddr
		fieldsAddr := cfg.FieldsAddr
		if replicas > 1 {
			f, err := listenForwarder(s.name, "127.0.0.1:0", set, func(c *child) string { return c.grpcAddr }, log)
			if err != nil {
				return err
			}
			forwarders = append(forwarders, f)
			dr.grpc[s.name] = f.ln.Addr().String()
			if s.name == payments.Name {
				// The card-fields origin is HTTP: a replica set, as the edge's, so a
				// tokenize that a dying replica dropped is replayed on the other.
				var reps []edge.Replica
				for _, c := range set {
					reps = append(reps, edge.Replica{URL: &url.URL{Scheme: "http", Host: c.fields}, Ready: c.ready})
				}
				ln, err := net.Listen("tcp", cfg.FieldsAddr)
				if err != nil {
					return fmt.Errorf("fields origin: listen %s: %w", cfg.FieldsAddr, err)
				}
				// Tokenize stores nothing a replay could double: at worst a second nonce
				// nobody learns, which expires unused.
				tokenize := &edge.Table{Routes: []edge.Route{{Path: payments.FieldsTokenizePath, PathType: "Exact", Service: payments.Name, Replay: edge.ReplayReadOnly}}}
				fieldsSrv = &http.Server{Handler: edge.NewReplicaProxy("payments fields", reps, tokenize, log), ReadHeaderTimeout: 10 * time.Second}
				fieldsLn = ln
				fieldsAddr = ""
			}
		}
		var reps []edge.Replica
		for _, c := range set {
			env, err := dr.env(s, map[string]string{"GRPC_ADDR": c.grpcAddr, "HTTP_ADDR": c.httpAddr, "ADMIN_ADDR": c.admin})
			if err != nil {
				return err
			}
			if s.name == payments.Name && fieldsAddr == "" {
				env["PAYMENTS_FIELDS_ADDR"] = c.fields // behind the fields proxy on FIELDS_ADDR
			}
			// The process inherits hangar-dev's environment (PATH, PG*, OTEL_*), then these.
			c.env = os.Environ()
			for k, v := range env {
				c.env = append(c.env, k+"="+v)
			}
			reps = append(reps, edge.Replica{URL: &url.URL{Scheme: "http", Host: c.httpAddr}, Ready: c.ready})
			targets.add(s.name, c.admin)
		}
		children = append(children, set...)
		backends = append(backends, edge.Backend{Name: s.name, Replicas: reps})
	}

	g, gctx := errgroup.WithContext(ctx)
	for _, c := range children {
		g.Go(func() error { return c.supervise(gctx, cfg.RestartDelay, log) })
	}
	for _, f := range forwarders {
		g.Go(func() error { return f.serve(gctx) })
	}
	if fieldsSrv != nil {
		g.Go(func() error {
			if err := fieldsSrv.Serve(fieldsLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		})
		g.Go(func() error {
			<-gctx.Done()
			return fieldsSrv.Close()
		})
	}
	log.Info("connection budget", "most", db.Connections(func(string) int { return replicas }, 0), "at_rest", db.AtRest*replicas)
	err = serveEdge(gctx, g, cfg, table, headers, backends, sink, &targets, func(mux *http.ServeMux) {
		mux.HandleFunc("GET /-/processes", func(w http.ResponseWriter, _ *http.Request) {
			out := map[string]map[string]any{}
			for _, c := range children {
				c.mu.Lock()
				// A second replica is "<service>-2" (the first keeps the service's name, as
				// scripts/chaos.sh reads it).
				out[c.name] = map[string]any{"pid": c.pid, "restarts": c.restarts, "grpc": c.grpcAddr, "http": c.httpAddr, "admin": c.admin}
				c.mu.Unlock()
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(out)
		})
	}, log)
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
			c.forget()
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

// childHost is the loopback address the replicas listen on. Not 127.0.0.1: the kernel takes
// that address as the source of every outbound loopback connection (to PostgreSQL, the
// broker, another service), so one of their ephemeral ports could be a replica's port when
// the replica restarts on it ("bind: address already in use" until that connection closed,
// seen for 20 s after a kill). No connection leaves from 127.0.0.2 unless bound there.
const childHost = "127.0.0.2"

// childPorts hands out the replicas' loopback addresses, each port once in a run. A port
// is found free by listening on port 0 and closing the listener, and the kernel may give a
// closed port to a later listen: two replicas were given one port (checkout's admin and a
// geo replica's gRPC), and whichever restarted second could not bind it while the other
// held it ("address already in use" at every restart: no checkout replica for seconds in
// a chaos run).
type childPorts struct {
	taken  map[string]bool
	listen func() (net.Listener, error) // a listener on a free port of childHost
}

func newChildPorts() *childPorts {
	return &childPorts{taken: map[string]bool{}, listen: func() (net.Listener, error) {
		return net.Listen("tcp", net.JoinHostPort(childHost, "0"))
	}}
}

// addrs answers n free loopback addresses, none handed out before in this run.
func (p *childPorts) addrs(n int) ([]string, error) {
	var ls []net.Listener // held until the end: within a call the kernel repeats none
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	var out []string
	for tries := 0; len(out) < n; tries++ {
		if tries == n+100 {
			return nil, fmt.Errorf("no %d loopback ports not handed out before after %d tries", n, tries)
		}
		l, err := p.listen()
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		addr := l.Addr().String()
		if p.taken[addr] {
			continue // another replica's: draw again
		}
		p.taken[addr] = true
		out = append(out, addr)
	}
	return out, nil
}

// cachedProbe answers probe's last result for up to a second: the edge asks on every
// request (it gates a child's routes on its readiness, as the Ingress does), and a probe
// per request would double the traffic. Like a kubelet's readiness period, a change is
// seen within that second.
// forget makes the next call probe again.
func cachedProbe(probe func() bool) (ready func() bool, forget func()) {
	var mu sync.Mutex
	var last bool
	var at time.Time
	ready = func() bool {
		mu.Lock()
		defer mu.Unlock()
		if at.IsZero() || time.Since(at) > time.Second {
			last, at = probe(), time.Now()
		}
		return last
	}
	forget = func() {
		mu.Lock()
		defer mu.Unlock()
		at = time.Time{}
	}
	return ready, forget
}

func listenForwarder(name, addr string, replicas []*child, pick func(*child) string, log *slog.Logger) (*forwarder, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: listen %s: %w", name, addr, err)
	}
	return &forwarder{name: name, ln: ln, replicas: replicas, addr: pick, log: log}, nil
}
