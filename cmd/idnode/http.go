package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/idnode/idnode/httpapi"
	"github.com/idnode/idnode/server"
)

// httpReadHeaderTimeout bounds how long a client may take to send its request's headers, so a
// slow or idle connection cannot hold a node's resources.
const httpReadHeaderTimeout = 10 * time.Second

// serveHTTP serves the HTTP/JSON gateway on lis: behind it, a gRPC server of this node's own
// services on a private loopback port, with the same checks (server.GatewayServerOptions) and
// metrics as the client port. It returns the function that stops both.
func serveHTTP(ctx context.Context, o *ops, srv *server.Server, lis net.Listener, log *slog.Logger) (func(), error) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	gs := grpc.NewServer(append(srv.GatewayServerOptions(), o.metricsOptions()...)...)
	srv.Register(gs)
	go func() { _ = gs.Serve(inner) }()
	conn, err := grpc.NewClient("passthrough:///"+inner.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		gs.Stop()
		return nil, err
	}
	handler, err := httpapi.New(ctx, conn)
	if err != nil {
		_ = conn.Close()
		gs.Stop()
		return nil, err
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: httpReadHeaderTimeout}
	if o.cfg.tls != nil {
		hs.TLSConfig = o.cfg.tls.Server(o.cfg.tlsClientAuth)
	}
	go func() {
		var err error
		if hs.TLSConfig != nil {
			err = hs.ServeTLS(lis, "", "")
		} else {
			err = hs.Serve(lis)
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
	}, nil
}
