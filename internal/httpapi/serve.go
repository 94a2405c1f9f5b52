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
	// GRPCOptions are added to the gateway's gRPC server (metrics, as on the client port).
	GRPCOptions []grpc.ServerOption
	// GracePeriod bounds how long stopping waits for requests in flight.
	GracePeriod time.Duration
	// Tracing, when set, gives every request a span whose context the gateway's gRPC call
	// carries on (nil: off).
	Tracing *tracing.Tracing
}

// Serve serves the HTTP/JSON gateway on lis: behind it, a gRPC server of srv's own services
// with the same checks (gatewayServerOptions) as the client port, reached through an
// in-process connection that no other process can dial. It returns the function that stops
// both.
func Serve(ctx context.Context, srv *server.Server, lis net.Listener, cfg ServerConfig, log *slog.Logger) (func(), error) {
	inner := inprocess.Listen()
	callers := newCallers()
	gs := grpc.NewServer(append(gatewayServerOptions(srv, callers), cfg.GRPCOptions...)...)
	srv.Register(gs)
	go func() { _ = gs.Serve(inner) }()
	conn, err := grpc.NewClient("passthrough:///inprocess", append(append(flowcontrol.DialOptions(), grpc.WithContextDialer(inner.DialContext),
		grpc.WithTransportCredentials(insecure.NewCredentials())), cfg.Tracing.DialOptions()...)...)
	if err != nil {
		gs.Stop()
		return nil, err
	}
	handler, err := newHandler(ctx, conn, callers, cfg.Options)
	if err != nil {
		_ = conn.Close()
		gs.Stop()
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
		_ = conn.Close()
		grpcstop.Gracefully(cfg.GracePeriod, gs)
		_ = inner.Close()
	}, nil
}
