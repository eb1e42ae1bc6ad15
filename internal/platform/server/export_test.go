package server

import "net"

// WrapGRPCListener replaces the gRPC listener with wrap's answer (after Listen, before
// Run), for a test that watches which connections reach it.
func WrapGRPCListener(s *Server, wrap func(net.Listener) net.Listener) { s.grpcLn = wrap(s.grpcLn) }
