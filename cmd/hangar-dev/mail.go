package main

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/hangar/hangar/internal/devmail"
)

// MailConfig configures `hangar-dev mail`.
type MailConfig struct {
	SMTPAddr string `env:"MAIL_SMTP_ADDR" default:":2525" doc:"address the mail sink accepts SMTP on (no TLS)"`
	HTTPAddr string `env:"MAIL_HTTP_ADDR" default:":8025" doc:"address of GET /-/mail, the messages received (JSON, ?to= filters)"`
	Max      int    `env:"HANGAR_DEV_MAIL_MAX" default:"10000" doc:"messages the sink keeps"`
}

// runMail is `hangar-dev mail`: the dev mail sink as a process of its own, the SMTP relay
// of the real-node test's notifications pods (scripts/test-k8s.sh), whose receipts the
// test reads back at /-/mail.
func runMail(ctx context.Context) error {
	cfg, log, err := loadCommand[MailConfig]("hangar-dev-mail")
	if err != nil {
		return err
	}
	sink, err := devmail.Listen(cfg.SMTPAddr, cfg.Max)
	if err != nil {
		return err
	}
	defer sink.Close()
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /-/mail", sink)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Info("mail sink started", "smtp", sink.Addr(), "http", ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	return stopServer(srv, "mail sink", log)
}
