package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"

	"golang.org/x/net/netutil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/idnode/idnode/httpapi"
	"github.com/idnode/idnode/internal/inprocess"
	"github.com/idnode/idnode/server"
)

// serveHTTP serves the HTTP/JSON gateway on lis: behind it, a gRPC server of this node's own
// services with the same checks (server.GatewayServerOptions) and metrics as the client port,
// reached through an in-process connection that no other process can dial. It returns the
// function that stops both.
func serveHTTP(ctx context.Context, o *ops, srv *server.Server, lis net.Listener, log *slog.Logger) (func(), error) {
	inner := inprocess.Listen()
	callers := server.NewHTTPCallers()
	gs := grpc.NewServer(append(srv.GatewayServerOptions(callers), o.metricsOptions()...)...)
	srv.Register(gs)
	go func() { _ = gs.Serve(inner) }()
	conn, err := grpc.NewClient("passthrough:///inprocess", grpc.WithContextDialer(inner.DialContext),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		gs.Stop()
		return nil, err
	}
	cfg := o.cfg.http
	handler, err := httpapi.New(ctx, conn, callers, httpapi.Options{
		AllowedOrigins: cfg.allowedOrigins, MaxBodyBytes: cfg.maxBody, MaxBodyMemory: cfg.maxBodyMemory,
	})
	if err != nil {
		_ = conn.Close()
		gs.Stop()
		return nil, err
	}
	hs := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: min(httpReadHeaderTimeout, cfg.readTimeout),
		ReadTimeout:       cfg.readTimeout,
		IdleTimeout:       cfg.idleTimeout,
		MaxHeaderBytes:    httpMaxHeaderBytes,
		HTTP2:             &http.HTTP2Config{MaxConcurrentStreams: httpMaxStreams},
	}
	if o.cfg.tls != nil {
		hs.TLSConfig = o.cfg.tls.Server(o.cfg.tlsClientAuth)
	}
	// At most maxConns connections: a caller opening thousands cannot take the node's file
	// descriptors from its gRPC, Raft and metrics ports; the others wait in the kernel's queue.
	limited := netutil.LimitListener(lis, cfg.maxConns)
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
		shutdown, cancel := context.WithTimeout(context.Background(), gracePeriod)
		defer cancel()
		_ = hs.Shutdown(shutdown)
		_ = conn.Close()
		stopGracefully(gs)
		_ = inner.Close()
	}, nil
}
