package server

import (
	"log/slog"
	"net"
	"time"

	"google.golang.org/grpc"
)

// WrapGRPCListener replaces the gRPC listener with wrap's answer (after Listen, before
// Run), for a test that watches which connections reach it.
func WrapGRPCListener(s *Server, wrap func(net.Listener) net.Listener) { s.grpcLn = wrap(s.grpcLn) }

// InProcess is the gateway's in-process connection, for a test that calls it directly.
func InProcess(s *Server) grpc.ClientConnInterface { return s.inproc }

// CaptureGRPCLogs sends grpclog's lines to l until restore is called.
func CaptureGRPCLogs(l *slog.Logger) (restore func()) {
	prev := grpcLogTarget.Swap(l)
	return func() { grpcLogTarget.Store(prev) }
}

// FreezeAdmissionClock makes the admission's Retry-After read now as the time (before Run).
func FreezeAdmissionClock(s *Server, now time.Time) { s.clock = func() time.Time { return now } }
