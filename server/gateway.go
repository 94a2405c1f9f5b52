package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/netip"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/idnode/idnode/reason"
)

// GatewayCallHeader is the metadata key in which the HTTP/JSON gateway (package httpapi) sends
// the handle of a call's HTTP caller (HTTPCallers.Enter). The handle is all it sends: who the
// caller is stays in this process, taken from the connection the HTTP server accepted, so no
// metadata a caller could set is believed (issue 23, item 3).
const GatewayCallHeader = "idnode-http-call"

// HTTPCaller is who called over HTTP, as the node's HTTP server saw the request.
type HTTPCaller struct {
	Addr      netip.AddrPort // the client's address (net/http's RemoteAddr); invalid: unknown
	Host      string         // the request's Host header, as sent
	AdminCert bool           // its TLS client certificate verified and grants admin (tlsconfig.GrantsAdmin)
}

// loopback reports whether the caller may count as this machine for admin calls: it connected
// from loopback and asked for a loopback host. A browser on this machine running a foreign
// page (a form, a fetch, DNS rebinding) sends that page's host name, so it does not count.
func (c HTTPCaller) loopback() bool {
	return c.Addr.IsValid() && c.Addr.Addr().IsLoopback() && loopbackHost(c.Host)
}

// loopbackHost reports whether an HTTP Host header (with or without a port) names this
// machine's loopback: localhost, 127.0.0.0/8 or ::1.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// HTTPCallers is the table through which the gateway tells its gRPC server who called: an
// entry per HTTP request in flight, under a random handle.
type HTTPCallers struct {
	mu    sync.Mutex
	calls map[string]HTTPCaller
}

// NewHTTPCallers returns an empty table, for one gateway and its server.
func NewHTTPCallers() *HTTPCallers { return &HTTPCallers{calls: map[string]HTTPCaller{}} }

// Enter records c for the calls of one HTTP request and returns the handle to send as
// GatewayCallHeader, and the function that forgets it when the request is over.
func (h *HTTPCallers) Enter(c HTTPCaller) (handle string, leave func()) {
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

func (h *HTTPCallers) lookup(ctx context.Context) (HTTPCaller, bool) {
	handles := metadata.ValueFromIncomingContext(ctx, GatewayCallHeader)
	if len(handles) != 1 {
		return HTTPCaller{}, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.calls[handles[0]]
	return c, ok
}

type httpCallerKey struct{}

// errNotFromGateway refuses a call on the gateway's server that does not carry a live handle.
// Only the gateway can reach that server (inprocess), so this is a bug, not a caller's doing.
var errNotFromGateway = reason.Error(codes.PermissionDenied, "", "this server takes only calls of the node's HTTP gateway, each naming its HTTP request")

// GatewayServerOptions are ServerOptions for the gRPC server behind the HTTP/JSON gateway: the
// same checks as the client port, judging the HTTP caller the gateway entered in callers
// rather than the gateway's own connection. Serve it on an inprocess.Listener only.
func (s *Server) GatewayServerOptions(callers *HTTPCallers) []grpc.ServerOption {
	return append([]grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			c, ok := callers.lookup(ctx)
			if !ok {
				return nil, errNotFromGateway
			}
			return handler(context.WithValue(ctx, httpCallerKey{}, c), req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			c, ok := callers.lookup(ss.Context())
			if !ok {
				return errNotFromGateway
			}
			return handler(srv, &callerStream{ServerStream: ss, ctx: context.WithValue(ss.Context(), httpCallerKey{}, c)})
		}),
	}, s.ServerOptions()...)
}

// httpCallerFrom is the HTTP client of a call that came through the gateway.
func httpCallerFrom(ctx context.Context) (HTTPCaller, bool) {
	c, ok := ctx.Value(httpCallerKey{}).(HTTPCaller)
	return c, ok
}

type callerStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *callerStream) Context() context.Context { return s.ctx }
