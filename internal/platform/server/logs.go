package server

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"

	"google.golang.org/grpc/grpclog"
)

// grpc-go and grpc-gateway log through grpclog, by default unstructured lines on stderr
// that quote client bytes as they came (grpc-gateway's "Failed to parse Content-Type %s"
// writes a header verbatim, invalid UTF-8 included). Every such line goes through slog
// instead, its text an attribute the handler escapes. grpclog's logger is process-wide
// and read without synchronisation, so a command installs it first thing in main
// (InstallGRPCLogs), before any gRPC code runs; it forwards to the logger of the first
// service built (NewDeps) through an atomic pointer.
func InstallGRPCLogs() { grpclog.SetLoggerV2(grpcLogs{}) }

// grpcLogTarget is where grpclog's process-wide logger writes: process-wide as grpclog is.
//
//layercheck:global grpclog has one logger per process
var grpcLogTarget atomic.Pointer[slog.Logger]

// adoptGRPCLogs makes l the target of grpclog's lines, unless a service's logger already is.
func adoptGRPCLogs(l *slog.Logger) { grpcLogTarget.CompareAndSwap(nil, l) }

type grpcLogs struct{}

func (grpcLogs) log(level slog.Level, text string) {
	l := grpcLogTarget.Load()
	if l == nil {
		l = slog.Default()
	}
	l.Log(context.Background(), level, "grpc library", "detail", text)
}

// grpc-go's informational lines (connection state, resolver updates) are debug chatter.
func (g grpcLogs) Info(args ...any)   { g.log(slog.LevelDebug, fmt.Sprint(args...)) }
func (g grpcLogs) Infoln(args ...any) { g.log(slog.LevelDebug, fmt.Sprintln(args...)) }
func (g grpcLogs) Infof(format string, args ...any) {
	g.log(slog.LevelDebug, fmt.Sprintf(format, args...))
}
func (g grpcLogs) Warning(args ...any)   { g.log(slog.LevelWarn, fmt.Sprint(args...)) }
func (g grpcLogs) Warningln(args ...any) { g.log(slog.LevelWarn, fmt.Sprintln(args...)) }
func (g grpcLogs) Warningf(format string, args ...any) {
	g.log(slog.LevelWarn, fmt.Sprintf(format, args...))
}
func (g grpcLogs) Error(args ...any)   { g.log(slog.LevelError, fmt.Sprint(args...)) }
func (g grpcLogs) Errorln(args ...any) { g.log(slog.LevelError, fmt.Sprintln(args...)) }
func (g grpcLogs) Errorf(format string, args ...any) {
	g.log(slog.LevelError, fmt.Sprintf(format, args...))
}
func (g grpcLogs) Fatal(args ...any)                 { g.Error(args...); os.Exit(1) }
func (g grpcLogs) Fatalln(args ...any)               { g.Errorln(args...); os.Exit(1) }
func (g grpcLogs) Fatalf(format string, args ...any) { g.Errorf(format, args...); os.Exit(1) }

// V reports whether grpc-go's verbose logs (level > 0) are wanted: never.
func (grpcLogs) V(l int) bool { return l <= 0 }
