package telemetry

import (
	"context"
	"log"
	"log/slog"
	"strings"
)

// StdLogger answers a *log.Logger for libraries that log through the standard logger
// (http.Server.ErrorLog, httputil.ReverseProxy.ErrorLog): each line becomes a record msg
// at level with the line as its "detail" attribute, so client bytes a line quotes are
// escaped by the handler instead of written raw.
func StdLogger(l *slog.Logger, level slog.Level, msg string) *log.Logger {
	return log.New(stdWriter{l: l, level: level, msg: msg}, "", 0)
}

type stdWriter struct {
	l     *slog.Logger
	level slog.Level
	msg   string
}

func (w stdWriter) Write(p []byte) (int, error) {
	w.l.Log(context.Background(), w.level, w.msg, "detail", strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}
