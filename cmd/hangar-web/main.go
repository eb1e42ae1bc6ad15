// Command hangar-web is the web front end's server in the cluster: the built site
// (web/dist/site) on WEB_ADDR, page paths answered as the dev edge answers them
// (internal/edge.StaticPages: the remote's index, precompressed files, cache headers, 404
// with the shell for an unknown page), and /healthz and /readyz for the kubelet's probes.
// It is the entrypoint of the web image (deploy/images/Dockerfile target web, `make images`); the
// Ingress sends it every path the route table gives to `web`.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hangar/hangar/internal/edge"
	"github.com/hangar/hangar/internal/platform/config"
)

// Config is the web server's configuration.
type Config struct {
	Addr      string        `env:"WEB_ADDR" default:":8080" doc:"where the site, /healthz and /readyz are served"`
	Dir       string        `env:"WEB_DIST_DIR" default:"/hangar/site" doc:"the web production build (web/dist/site)"`
	PagesFile string        `env:"WEB_PAGES_FILE" default:"/hangar/routes.ts" doc:"the shell's route table: page paths it does not list answer 404"`
	Drain     time.Duration `env:"WEB_DRAIN" default:"5s" doc:"how long the server keeps answering after SIGTERM (the Ingress drops the pod meanwhile)"`
}

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	if err := run(log); err != nil {
		log.Error("exit", "error", err)
		os.Exit(1)
	}
}

func run(log *slog.Logger) error {
	var cfg Config
	if err := config.Load(&cfg); err != nil {
		return err
	}
	if st, err := os.Stat(filepath.Join(cfg.Dir, "index.html")); err != nil || st.IsDir() {
		return fmt.Errorf("no site at %s: index.html is missing", cfg.Dir)
	}
	pages, err := edge.LoadPages(cfg.PagesFile)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: Handler(cfg.Dir, pages), ReadHeaderTimeout: 10 * time.Second}
	log.Info("serving", "addr", ln.Addr().String(), "dir", cfg.Dir)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Keep answering while the endpoints controller and the Ingress drop this pod.
	time.Sleep(cfg.Drain)
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Handler serves the site in dir with the probes beside it.
func Handler(dir string, pages *edge.Pages) http.Handler {
	mux := http.NewServeMux()
	ok := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte("ok\n"))
	}
	mux.HandleFunc("GET /healthz", ok)
	mux.HandleFunc("GET /readyz", ok)
	mux.Handle("/", edge.StaticPages(dir, pages))
	return mux
}
