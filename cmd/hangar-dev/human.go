package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hangar/hangar/internal/devhuman"
	"github.com/hangar/hangar/internal/platform/telemetry"
	"github.com/hangar/hangar/internal/standin"
)

// startHuman serves the development human verifier (internal/devhuman) on a loopback
// listener of its own and answers its siteverify URL, which the services call as they call
// Google's in production: not through the edge, which in the cluster (the Ingress) never
// sees those calls. Its accept loop and connections, reading the request, the handler and
// writing the answer, carry the reCAPTCHA stand-in's label (internal/standin); labelling
// only the handler on the edge's connections would leave the server's side of each call,
// most of its CPU, with the store. The pages' widget stays on the edge at /-/human/. srv is
// nil without human verification; the caller closes it.
func startHuman(ctx context.Context, cfg Config, log *slog.Logger) (srv *http.Server, siteverify string, err error) {
	if !cfg.HumanVerification {
		return nil, "", nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	srv = &http.Server{Handler: devhuman.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: telemetry.StdLogger(log, slog.LevelWarn, "human verifier")}
	standin.Do(ctx, standin.Recaptcha, func(context.Context) {
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("development human verifier stopped", "err", err)
			}
		}()
	})
	siteverify = "http://" + ln.Addr().String() + devhuman.SiteverifyPath
	log.Info("development human verifier started", "siteverify", siteverify)
	return srv, siteverify, nil
}
