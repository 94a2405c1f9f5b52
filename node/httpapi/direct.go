package httpapi

import (
	"context"
	"net"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// directConn is the gateway's connection to its node's services. A unary call runs its
// method's handler in the calling goroutine, through the same checks as a call on the
// gateway's in-process gRPC server would (the caller its handle names, the node's interceptor,
// the metrics, the calls-in-flight limit), with no HTTP/2 framing, codec or pipe between: that
// hop took about a quarter of the node's CPU time for an HTTP call
// (docs/BENCHMARKS-CLIENTS.md). A stream, or a method no service registered, goes through the
// in-process server, as every call did before.
type directConn struct {
	methods   map[string]directMethod // by full method name, as in "/idnode.v1.IdService/Generate"
	intercept grpc.UnaryServerInterceptor
	admit     func() (end func(), err error)
	peer      *peer.Peer
	server    *grpc.ClientConn // the in-process server's connection
}

type directMethod struct {
	impl    any
	handler grpc.MethodHandler
}

// newDirectConn returns the direct path over the services methods holds, falling back to
// server; addr is the in-process listener's address, the peer its server's calls see.
func newDirectConn(methods map[string]directMethod, intercept grpc.UnaryServerInterceptor,
	admit func() (end func(), err error), addr net.Addr, server *grpc.ClientConn) *directConn {
	return &directConn{methods: methods, intercept: intercept, admit: admit, peer: &peer.Peer{Addr: addr, LocalAddr: addr}, server: server}
}

// Invoke runs method with args in this goroutine and copies its answer into reply. The
// handler sees the context a gRPC server would give it: the gateway's outgoing metadata as
// incoming (the gateway sends no other), the in-process peer, the caller's deadline, and a
// transport stream that takes the headers and trailers the services set, for grpc-gateway to
// answer with (grpc.Header and grpc.Trailer in opts). The gateway's outgoing metadata is
// taken off, so the services' own calls (a follower's to its leader) do not send it on.
func (c *directConn) Invoke(ctx context.Context, method string, args, reply any, opts ...grpc.CallOption) error {
	m, ok := c.methods[method]
	if !ok {
		return c.server.Invoke(ctx, method, args, reply, opts...)
	}
	md, _ := metadata.FromOutgoingContext(ctx)
	ctx = metadata.NewIncomingContext(metadata.NewOutgoingContext(ctx, nil), md)
	ctx = peer.NewContext(ctx, c.peer)
	stream := &directStream{method: method}
	ctx = grpc.NewContextWithServerTransportStream(ctx, stream)
	resp, err := c.serve(ctx, m, args)
	stream.answer(opts)
	if err != nil {
		return statusOf(err)
	}
	proto.Merge(reply.(proto.Message), resp.(proto.Message))
	return nil
}

// serve admits the call under the calls-in-flight limit, until its handler returns, and runs
// the handler under the interceptor. The handler's request is a copy of args: grpc-gateway
// keeps its own.
func (c *directConn) serve(ctx context.Context, m directMethod, args any) (any, error) {
	end, err := c.admit()
	if err != nil {
		return nil, err
	}
	defer end()
	return m.handler(m.impl, ctx, func(in any) error {
		proto.Merge(in.(proto.Message), args.(proto.Message))
		return nil
	}, c.intercept)
}

// statusOf is the status a gRPC server answers for a handler's err: its own status, or for
// any other error the status of a context's error, else UNKNOWN.
func statusOf(err error) error {
	if st, ok := status.FromError(err); ok {
		return st.Err()
	}
	return status.FromContextError(err).Err()
}

// NewStream opens a stream on the in-process server.
func (c *directConn) NewStream(ctx context.Context, desc *grpc.StreamDesc, method string, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	return c.server.NewStream(ctx, desc, method, opts...)
}

// directStream is a direct call's grpc.ServerTransportStream: it keeps the headers and
// trailers the services set (grpc.SetHeader, grpc.SetTrailer) until the call answers.
type directStream struct {
	method  string
	mu      sync.Mutex
	header  metadata.MD
	trailer metadata.MD
}

func (s *directStream) Method() string { return s.method }

func (s *directStream) SetHeader(md metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.header = metadata.Join(s.header, md)
	return nil
}

func (s *directStream) SendHeader(md metadata.MD) error { return s.SetHeader(md) }

func (s *directStream) SetTrailer(md metadata.MD) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trailer = metadata.Join(s.trailer, md)
	return nil
}

// answer hands the headers and trailers to the call options that asked for them.
func (s *directStream) answer(opts []grpc.CallOption) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range opts {
		switch o := o.(type) {
		case grpc.HeaderCallOption:
			*o.HeaderAddr = s.header
		case grpc.TrailerCallOption:
			*o.TrailerAddr = s.trailer
		}
	}
}
