package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/server"
)

// GatewayCallHeader is the metadata key in which the HTTP/JSON gateway sends the handle of a
// call's HTTP caller (callers.enter). The handle is all it sends: who the caller is stays in
// this process, taken from the connection the HTTP server accepted, so no metadata a caller
// could set is believed.
const GatewayCallHeader = "idnode-http-call"

// callers is the table through which the gateway tells its gRPC server who called: an entry
// per HTTP request in flight, under a random handle.
type callers struct {
	mu    sync.Mutex
	calls map[string]server.HTTPCaller
}

// newCallers returns an empty table, for one gateway and its server.
func newCallers() *callers { return &callers{calls: map[string]server.HTTPCaller{}} }

// enter records c for the calls of one HTTP request and returns the handle to send as
// GatewayCallHeader, and the function that forgets it when the request is over.
func (h *callers) enter(c server.HTTPCaller) (handle string, leave func()) {
	handle = hex.EncodeToString(randomHandle())
	h.mu.Lock()
	h.calls[handle] = c
	h.mu.Unlock()
	return handle, func() {
		h.mu.Lock()
		delete(h.calls, handle)
		h.mu.Unlock()
	}
}

// randomHandle is 128 random bits: a handle no one can guess, so none can be forged even by
// code that reaches the gateway's server.
func randomHandle() []byte {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it crashes the program instead)
	return b
}

func (h *callers) lookup(ctx context.Context) (server.HTTPCaller, bool) {
	handles := metadata.ValueFromIncomingContext(ctx, GatewayCallHeader)
	if len(handles) != 1 {
		return server.HTTPCaller{}, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.calls[handles[0]]
	return c, ok
}

// errNotFromGateway refuses a call on the gateway's server that does not carry a live handle.
// Only the gateway can reach that server (inprocess), so this is a bug, not a caller's doing.
var errNotFromGateway = reason.Error(codes.PermissionDenied, "", "this server takes only calls of the node's HTTP gateway, each naming its HTTP request")

// gatewayServerOptions are the ServerOptions of the gRPC server behind the gateway: the same
// checks as srv's client port, judging the HTTP caller entered in callers rather than the
// gateway's own connection. Serve it on an inprocess.Listener only. The gateway's unary calls
// take the direct path (directConn) through gatewayUnary, the same checks.
func gatewayServerOptions(srv *server.Server, callers *callers) []grpc.ServerOption {
	return append([]grpc.ServerOption{
		grpc.ChainUnaryInterceptor(callers.unary),
		grpc.ChainStreamInterceptor(func(s any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			c, ok := callers.lookup(ss.Context())
			if !ok {
				return errNotFromGateway
			}
			return handler(s, &callerStream{ServerStream: ss, ctx: server.WithHTTPCaller(ss.Context(), c)})
		}),
	}, srv.ServerOptions()...)
}

// unary is the first unary interceptor of the gateway's calls: the handler runs for the HTTP
// caller the call's handle names, and a call with no live handle is refused.
func (h *callers) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	c, ok := h.lookup(ctx)
	if !ok {
		return nil, errNotFromGateway
	}
	return handler(server.WithHTTPCaller(ctx, c), req)
}

// gatewayUnary is the interceptor of the gateway's direct unary calls, the chain the
// in-process server runs for extra and gatewayServerOptions: extra (metrics) first, so that it
// counts the calls srv's checks refuse too, then the caller its handle names and srv's checks.
func gatewayUnary(srv *server.Server, callers *callers, extra []grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	return chainUnary(append(slices.Clip(extra), callers.unary, srv.UnaryInterceptor()))
}

// chainUnary runs chain's interceptors in order around a call's handler, as
// grpc.ChainUnaryInterceptor does on a server.
func chainUnary(chain []grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		return chain[0](ctx, req, info, chained(chain[1:], info, handler))
	}
}

func chained(chain []grpc.UnaryServerInterceptor, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) grpc.UnaryHandler {
	if len(chain) == 0 {
		return handler
	}
	return func(ctx context.Context, req any) (any, error) {
		return chain[0](ctx, req, info, chained(chain[1:], info, handler))
	}
}

// services registers services on the gateway's gRPC server and keeps their unary methods
// for the direct path.
type services struct {
	*grpc.Server
	methods map[string]directMethod
}

func (s *services) RegisterService(desc *grpc.ServiceDesc, impl any) {
	s.Server.RegisterService(desc, impl)
	for _, m := range desc.Methods {
		s.methods["/"+desc.ServiceName+"/"+m.MethodName] = directMethod{impl: impl, handler: m.Handler}
	}
}

type callerStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *callerStream) Context() context.Context { return s.ctx }
