package server

import (
	"context"
	"net/netip"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// The HTTP/JSON gateway (package httpapi) tells the gateway's gRPC server who called over HTTP
// in these metadata keys. Only that server reads them (GatewayServerOptions): it listens on a
// private loopback port, and the gateway passes no header of an HTTP request on as metadata
// except authorization and idnode-database, so an HTTP client cannot set them.
const (
	GatewayPeerHeader      = "idnode-http-peer"       // the HTTP client's host:port
	GatewayAdminCertHeader = "idnode-http-admin-cert" // "true": its TLS client certificate grants admin (tlsconfig.GrantsAdmin)
)

// httpCaller is who called through the gateway.
type httpCaller struct {
	addr      netip.AddrPort
	adminCert bool
}

type httpCallerKey struct{}

// GatewayServerOptions are ServerOptions for the gRPC server behind the HTTP/JSON gateway: the
// same checks, after taking the HTTP caller from the gateway's metadata, so auth judges the HTTP
// client, not the gateway's loopback connection.
func (s *Server) GatewayServerOptions() []grpc.ServerOption {
	return append([]grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			return handler(withHTTPCaller(ctx), req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			return handler(srv, &callerStream{ServerStream: ss, ctx: withHTTPCaller(ss.Context())})
		}),
	}, s.ServerOptions()...)
}

func withHTTPCaller(ctx context.Context) context.Context {
	md, _ := metadata.FromIncomingContext(ctx)
	peers := md.Get(GatewayPeerHeader)
	if len(peers) != 1 {
		return ctx // not through the gateway: a process on this machine dialled the port
	}
	c := httpCaller{}
	c.addr, _ = netip.ParseAddrPort(peers[0]) // net/http's RemoteAddr: "ip:port" or "[ip]:port"
	cert := md.Get(GatewayAdminCertHeader)
	c.adminCert = len(cert) == 1 && cert[0] == "true"
	return context.WithValue(ctx, httpCallerKey{}, c)
}

// httpCallerFrom is the HTTP client of a call that came through the gateway.
func httpCallerFrom(ctx context.Context) (httpCaller, bool) {
	c, ok := ctx.Value(httpCallerKey{}).(httpCaller)
	return c, ok
}

// loopback reports whether the HTTP client is on this machine (an address that does not parse
// is not).
func (c httpCaller) loopback() bool { return c.addr.IsValid() && c.addr.Addr().IsLoopback() }

type callerStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *callerStream) Context() context.Context { return s.ctx }
