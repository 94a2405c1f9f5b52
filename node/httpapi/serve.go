package httpapi

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/idnode/idnode/internal/flowcontrol"
	"github.com/idnode/idnode/internal/grpcstop"
	"github.com/idnode/idnode/internal/inprocess"
	"github.com/idnode/idnode/internal/tracing"
	"github.com/idnode/idnode/server"
)

const (
	// readHeaderTimeout bounds how long a client may take over its request's headers (less
	// when ServerConfig.ReadTimeout is shorter, which covers headers and body).
	readHeaderTimeout = 10 * time.Second
	// maxHeaderBytes bounds a request's headers; a client's are a few hundred bytes.
	maxHeaderBytes = 64 << 10
	// maxStreams bounds the requests in flight on one HTTP/2 connection (HTTPS only), as
	// MaxConns bounds connections: net/http's default is 250.
	maxStreams = 100
)

// ServerConfig is how a node serves its HTTP face: the handler's Options and what bounds a
// caller's connections (docs/http-api.md, "HTTP limits").
type ServerConfig struct {
	Options
	ReadTimeout time.Duration // headers and body of one request
	IdleTimeout time.Duration // a keep-alive connection between requests
	MaxConns    int           // connections held at once; those over it wait in the kernel's queue
	TLS         *tls.Config   // nil: plain HTTP
	// Interceptors run after the node's own on the gateway's calls (metrics, as on the
	// client port).
	Interceptors Interceptors
	// GracePeriod bounds how long stopping waits for requests in flight.
	GracePeriod time.Duration
	// Tracing, when set, gives every request a span whose context the gateway's gRPC call
	// carries on (nil: off).
	Tracing *tracing.Tracing
}

// Interceptors are a gRPC server's interceptors, for unary calls and for streams.
type Interceptors struct {
	Unary  []grpc.UnaryServerInterceptor
	Stream []grpc.StreamServerInterceptor
}

// Serve serves the HTTP/JSON gateway on lis: behind it, srv's own services with the same
// checks as the client port (gatewayServerOptions), unary calls run directly (directConn)
// and streams on a gRPC server reached through an in-process connection that no other
// process can dial. It returns the function that stops both.
func Serve(ctx context.Context, srv *server.Server, lis net.Listener, cfg ServerConfig, log *slog.Logger) (func(), error) {
	g, err := newGatewayConn(srv, cfg.Interceptors, cfg.Tracing)
	if err != nil {
		return nil, err
	}
	handler, err := newHandler(ctx, g.direct, g.callers, cfg.Options)
	if err != nil {
		g.stop(0)
		return nil, err
	}
	hs := &http.Server{
		Handler:           cfg.Tracing.Handler(handler, "idnode.http"),
		ReadHeaderTimeout: min(readHeaderTimeout, cfg.ReadTimeout),
		ReadTimeout:       cfg.ReadTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		HTTP2:             &http.HTTP2Config{MaxConcurrentStreams: maxStreams},
		TLSConfig:         cfg.TLS,
	}
	// At most MaxConns connections: a caller opening thousands cannot take the node's file
	// descriptors from its gRPC, Raft and metrics ports; the others wait in the kernel's queue.
	limited := netutil.LimitListener(lis, cfg.MaxConns)
	go func() {
		var err error
		if hs.TLSConfig != nil {
			err = hs.ServeTLS(limited, "", "")
		} else {
			err = hs.Serve(limited)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("HTTP server stopped", "err", err)
		}
	}()
	return func() {
		shutdown, cancel := context.WithTimeout(context.Background(), cfg.GracePeriod)
		defer cancel()
		_ = hs.Shutdown(shutdown)
		g.stop(cfg.GracePeriod)
	}, nil
}

// gatewayConn is how the gateway reaches srv's services: the in-process gRPC server and
// its connection, and the direct path for unary calls in front of it.
type gatewayConn struct {
	callers *callers
	server  *grpc.Server
	conn    *grpc.ClientConn // the in-process server's
	direct  *directConn
	inner   *inprocess.Listener
}

// newGatewayConn serves srv's services on an in-process gRPC server, with the extra
// interceptors (metrics) before the gateway's checks, so that they count the calls the checks
// refuse too, and returns the connections to it.
func newGatewayConn(srv *server.Server, extra Interceptors, tr *tracing.Tracing) (*gatewayConn, error) {
	g := &gatewayConn{callers: newCallers(), inner: inprocess.Listen()}
	g.server = grpc.NewServer(append([]grpc.ServerOption{grpc.ChainUnaryInterceptor(extra.Unary...), grpc.ChainStreamInterceptor(extra.Stream...)},
		gatewayServerOptions(srv, g.callers)...)...)
	registered := &services{Server: g.server, methods: map[string]directMethod{}}
	srv.Register(registered)
	go func() { _ = g.server.Serve(g.inner) }()
	conn, err := grpc.NewClient("passthrough:///inprocess", append(append(flowcontrol.DialOptions(), grpc.WithContextDialer(g.inner.DialContext),
		grpc.WithTransportCredentials(insecure.NewCredentials())), tr.DialOptions()...)...)
	if err != nil {
		g.server.Stop()
		return nil, err
	}
	g.conn = conn
	g.direct = newDirectConn(registered.methods, gatewayUnary(srv, g.callers, extra.Unary), srv.Admit, g.inner.Addr(), conn)
	return g, nil
}

// stop closes the connection and stops the server, waiting up to grace for its calls.
func (g *gatewayConn) stop(grace time.Duration) {
	_ = g.conn.Close()
	grpcstop.Gracefully(grace, g.server)
	_ = g.inner.Close()
}
