// Package httpapi is idnode's HTTP/JSON face: every public RPC on a route of its own
// (proto/idnode/v1/idnode_http.yaml, served by grpc-gateway), its OpenAPI description, and the
// probes load balancers and Kubernetes use. It calls the node's gRPC services through a
// connection to the node itself, so HTTP callers meet the same validation, auth, limits,
// error reasons and metrics as gRPC callers.
package httpapi

import (
	"context"
	"net/http"
	"net/textproto"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	"github.com/idnode/idnode/proto/idnode/v1/gateway"
	"github.com/idnode/idnode/server"
)

// passedHeaders are the HTTP headers the gateway passes on as gRPC metadata: the credential
// and the database. Nothing else, so an HTTP client cannot set the caller metadata (caller.go).
var passedHeaders = map[string]bool{"Authorization": true, "Idnode-Database": true}

// New is the HTTP handler: the RPC routes under /v1/, /v1/openapi.json, /healthz and /readyz.
// conn reaches the node's gateway gRPC server (server.GatewayServerOptions).
func New(ctx context.Context, conn *grpc.ClientConn) (http.Handler, error) {
	rpc := runtime.NewServeMux(
		runtime.WithIncomingHeaderMatcher(func(h string) (string, bool) {
			h = textproto.CanonicalMIMEHeaderKey(h)
			return h, passedHeaders[h]
		}),
		runtime.WithMetadata(func(_ context.Context, r *http.Request) metadata.MD { return callerMetadata(r) }),
	)
	if err := gateway.RegisterIdServiceHandler(ctx, rpc, conn); err != nil {
		return nil, err
	}
	if err := gateway.RegisterClusterServiceHandler(ctx, rpc, conn); err != nil {
		return nil, err
	}
	health := healthpb.NewHealthClient(conn)
	mux := http.NewServeMux()
	mux.Handle("/v1/", rpc)
	mux.HandleFunc("GET /v1/openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(gateway.OpenAPI)
	})
	// /healthz: the process is up and serving HTTP. Nothing else is asked: a liveness probe
	// that failed on a lost quorum would restart healthy nodes.
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	// /readyz: every strategy serves (a quorum for identities and HiLo); ?local=true: the
	// strategies a node serves on its own (server-side IDs, GUIDs, semantic IDs).
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		service := "" // every strategy
		if r.URL.Query().Get("local") == "true" {
			service = server.HealthLocal
		}
		resp, err := health.Check(r.Context(), &healthpb.HealthCheckRequest{Service: service})
		switch {
		case err != nil:
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
		case resp.GetStatus() != healthpb.HealthCheckResponse_SERVING:
			http.Error(w, "not ready: "+resp.GetStatus().String(), http.StatusServiceUnavailable)
		default:
			_, _ = w.Write([]byte("ready\n"))
		}
	})
	return mux, nil
}
