package server

import (
	"context"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// inprocConn is the gateway's connection to the services registered on the Server: a unary
// call runs the service's handler on the caller's goroutine, through the gRPC server's
// interceptors and both otelgrpc stats handlers, with what the loopback gRPC connection gave
// the handler and the caller (a server context with none of the caller's values but its
// deadline and cancellation, outgoing metadata as incoming, the loopback peer, grpc.Method,
// header and trailer metadata, copied messages, the status the client would read).
//
// It replaces grpchan's inprocgrpc.Channel, which ran every call's handler on a new
// goroutine and waited for it on a channel: at 200 orders/s that goroutine's stack growth
// through the interceptor chain alone was 4.8 % of a service's CPU (runtime.newstack, 19 of
// 26 sampled growths), plus a spawn, a channel handoff and scheduler wakeups per REST call.
// The caller here is the HTTP connection's goroutine, whose stack is already grown. No
// maintained library runs in-process unary calls on the caller's goroutine (grpc-go's
// in-process transport, grpc/grpc-go#906, is still open). No gateway route streams, so
// streams are not served.
type inprocConn struct {
	services    map[string]*inprocService
	unary       grpc.UnaryServerInterceptor
	clientStats stats.Handler
	serverStats stats.Handler
	peer        func() *peer.Peer
}

type inprocService struct {
	impl    any
	methods map[string]*grpc.MethodDesc
}

var _ grpc.ClientConnInterface = (*inprocConn)(nil)

func (c *inprocConn) register(desc *grpc.ServiceDesc, impl any) {
	svc := &inprocService{impl: impl, methods: make(map[string]*grpc.MethodDesc, len(desc.Methods))}
	for i := range desc.Methods {
		svc.methods[desc.Methods[i].MethodName] = &desc.Methods[i]
	}
	c.services[desc.ServiceName] = svc
}

// Invoke runs the unary call method on the caller's goroutine.
func (c *inprocConn) Invoke(ctx context.Context, method string, req, resp any, opts ...grpc.CallOption) error {
	service, name, _ := strings.Cut(strings.TrimPrefix(method, "/"), "/")
	svc := c.services[service]
	if svc == nil {
		return status.Errorf(codes.Unimplemented, "unknown service %s", service)
	}
	md := svc.methods[name]
	if md == nil {
		return status.Errorf(codes.Unimplemented, "unknown method %s for service %s", name, service)
	}
	in, ok := req.(proto.Message)
	out, ok2 := resp.(proto.Message)
	if !ok || !ok2 {
		return status.Errorf(codes.Internal, "in-process call of %s with %T and %T, not protobuf messages", method, req, resp)
	}

	// The client stats handler starts the gateway's client span and injects it into the
	// outgoing metadata, which becomes the handler's incoming metadata below.
	ctx = c.clientStats.TagRPC(ctx, &stats.RPCTagInfo{FullMethodName: method})
	c.clientStats.HandleRPC(ctx, &stats.Begin{Client: true, BeginTime: time.Now()})
	c.clientStats.HandleRPC(ctx, &stats.OutPayload{Client: true, Payload: req, SentTime: time.Now()})

	stream := &inprocStream{method: method}
	sctx, cancel := context.WithCancel(noValues{ctx})
	defer cancel() // as a server ends its call's context when the call ends
	if omd, ok := metadata.FromOutgoingContext(ctx); ok {
		sctx = metadata.NewIncomingContext(sctx, omd)
		// Checked here, on the copy the handler gets, for the server's inprocUnary to
		// refuse: reading the incoming metadata back there would copy it once more.
		stream.badMetadata = validMetadata(omd)
	}
	p := c.peer()
	sctx = peer.NewContext(grpc.NewContextWithServerTransportStream(sctx, stream), p)
	sctx = c.serverStats.TagRPC(sctx, &stats.RPCTagInfo{FullMethodName: method})
	c.serverStats.HandleRPC(sctx, &stats.Begin{BeginTime: time.Now()})
	// The handler decodes the request into a message of its own, as from the wire.
	v, err := md.Handler(svc.impl, sctx, func(m any) error {
		proto.Merge(m.(proto.Message), in)
		return nil
	}, c.unary)
	if err == nil && v == nil {
		err = status.Error(codes.Internal, "handler returned neither error nor response message")
	}
	c.serverStats.HandleRPC(sctx, &stats.End{EndTime: time.Now(), Error: err})
	// Like grpchan, and like a transport that sends no empty frames, empty metadata is none.
	header, trailer := stream.finish()

	if ctxErr := ctx.Err(); ctxErr != nil {
		// The client stops waiting when its context ends, whatever the server answers.
		err = status.FromContextError(ctxErr).Err()
	} else if err == nil {
		proto.Reset(out)
		proto.Merge(out, v.(proto.Message))
	}
	if len(header) > 0 {
		c.clientStats.HandleRPC(ctx, &stats.InHeader{Client: true, Header: header})
	}
	if err == nil {
		c.clientStats.HandleRPC(ctx, &stats.InPayload{Client: true, Payload: resp, RecvTime: time.Now()})
	}
	if len(trailer) > 0 {
		c.clientStats.HandleRPC(ctx, &stats.InTrailer{Client: true, Trailer: trailer})
	}
	for _, o := range opts {
		switch o := o.(type) {
		case grpc.HeaderCallOption:
			if len(header) > 0 {
				*o.HeaderAddr = header
			}
		case grpc.TrailerCallOption:
			if len(trailer) > 0 {
				*o.TrailerAddr = trailer
			}
		case grpc.PeerCallOption:
			*o.PeerAddr = *p
		}
	}
	c.clientStats.HandleRPC(ctx, &stats.End{Client: true, EndTime: time.Now(), Error: err})
	return err
}

// NewStream answers Unimplemented: no gateway route streams.
func (c *inprocConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Error(codes.Unimplemented, "streaming calls are not served in-process")
}

// noValues is the caller's context minus its values (a transport carries none of them to
// the server), keeping its deadline and cancellation. AfterFunc lets a context derived
// from it register with the caller's cancellation instead of starting a goroutine to
// watch it (context.WithCancel's fallback for a parent it cannot see into).
type noValues struct{ context.Context }

func (noValues) Value(any) any { return nil }

func (c noValues) AfterFunc(f func()) func() bool { return context.AfterFunc(c.Context, f) }

// inprocStream is the grpc.ServerTransportStream of an in-process unary call, collecting
// the header and trailer metadata the handler sets; a handler's goroutine may outlive the
// call, hence the lock.
type inprocStream struct {
	method string
	// badMetadata is why the call's metadata could not have left a gRPC client (nil: it
	// could); set before the handler runs.
	badMetadata     error
	mu              sync.Mutex
	header, trailer metadata.MD
	headerSent      bool
	done            bool
}

func (s *inprocStream) Method() string { return s.method }

func (s *inprocStream) SetHeader(md metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setHeaderLocked(md)
}

func (s *inprocStream) SendHeader(md metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.setHeaderLocked(md); err != nil {
		return err
	}
	s.headerSent = true
	return nil
}

func (s *inprocStream) setHeaderLocked(md metadata.MD) error {
	if s.headerSent || s.done {
		return status.Error(codes.Internal, "transport: the stream is done or WriteHeader was already called")
	}
	s.header = join(s.header, md)
	return nil
}

func (s *inprocStream) SetTrailer(md metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return status.Error(codes.Internal, "transport: the stream is done")
	}
	s.trailer = join(s.trailer, md)
	return nil
}

// finish ends the call: later Set/Send calls fail, as on a finished gRPC stream.
func (s *inprocStream) finish() (header, trailer metadata.MD) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	return s.header, s.trailer
}

func join(dst, md metadata.MD) metadata.MD {
	if dst == nil {
		dst = make(metadata.MD, len(md))
	}
	for k, v := range md {
		dst[k] = append(dst[k], v...)
	}
	return dst
}
