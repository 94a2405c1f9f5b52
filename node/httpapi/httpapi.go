// Package httpapi is idnode's HTTP/JSON face: every public RPC on a route of its own
// (proto/idnode/v1/idnode_http.yaml, served by grpc-gateway), its OpenAPI description, and the
// probes load balancers and Kubernetes use. It calls the node's gRPC services through an
// in-process connection (package inprocess), so HTTP callers meet the same validation, auth,
// limits, error reasons and metrics as gRPC callers, and no other process can use that hop.
//
// Before a request reaches the gateway it must pass what a browser or a careless client could
// get wrong: a Host that does not name the node and a foreign Origin are
// refused, bodies are application/json and at most Options.MaxBodyBytes, a wrong method is 405
// with Allow, and unknown JSON fields or query parameters, or query parameters that contradict
// the body, are 400 naming them.
package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/internal/history"
	"github.com/idnode/idnode/node/httpapi/console"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/proto/idnode/v1/gateway"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/server"
)

// passedHeaders are the HTTP headers the gateway passes on as gRPC metadata: the credential
// and the database. Nothing else reaches the node's handlers.
var passedHeaders = map[string]bool{"Authorization": true, "Idnode-Database": true}

// Body defaults. The largest body is the gRPC port's largest message (4 MiB): a Claim of the
// most IDs a call takes (1,000) at the longest an ID may be (2,025 bytes) fits. The bodies
// held at once are bounded too, so thousands of connections each sending the largest body
// cannot take gigabytes.
const (
	DefaultMaxBodyBytes  = 4 << 20
	DefaultMaxBodyMemory = 64 << 20
)

// Options are the HTTP face's settings.
type Options struct {
	AllowedOrigins []string // origins (ParseOrigins) whose web pages may call; none by default
	AllowedHosts   []string // host names (ParseHosts, OwnHosts) a request's Host may name besides IP addresses and localhost
	MaxBodyBytes   int64    // the largest body taken (413 above); 0: DefaultMaxBodyBytes
	MaxBodyMemory  int64    // the most bytes of bodies held at once (503 above); 0: DefaultMaxBodyMemory
	// History, when set, answers GET /v1/history for the console's graphs (history.go).
	History *history.Recorder
	// Backups, when set, answers GET /v1/backups for the console's backups panel (backups.go).
	Backups func() BackupStatus
}

// newHandler is the HTTP handler: the RPC routes under /v1/, /v1/openapi.json, /v1/history, /v1/backups,
// /healthz, /readyz and the web console under /ui/ (package console), which calls the routes above.
// conn reaches the node's services with the gateway's checks (directConn, with callers).
func newHandler(ctx context.Context, conn grpc.ClientConnInterface, callers *callers, opts Options) (http.Handler, error) {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxBodyMemory <= 0 {
		opts.MaxBodyMemory = DefaultMaxBodyMemory
	}
	routes, err := readRoutes(gateway.OpenAPI)
	if err != nil {
		return nil, err
	}
	openapi, err := describe(gateway.OpenAPI)
	if err != nil {
		return nil, err
	}
	rpc := runtime.NewServeMux(
		runtime.WithIncomingHeaderMatcher(func(h string) (string, bool) {
			h = textproto.CanonicalMIMEHeaderKey(h)
			return h, passedHeaders[h]
		}),
		runtime.WithMetadata(callMetadata),
		runtime.WithMarshalerOption(runtime.MIMEWildcard, &runtime.HTTPBodyMarshaler{Marshaler: answerJSON}),
		runtime.WithErrorHandler(withInputReason),
	)
	if err := gateway.RegisterIdServiceHandlerClient(ctx, rpc, idnodev1.NewIdServiceClient(conn)); err != nil {
		return nil, err
	}
	if err := gateway.RegisterClusterServiceHandlerClient(ctx, rpc, idnodev1.NewClusterServiceClient(conn)); err != nil {
		return nil, err
	}
	if err := gateway.RegisterSeriesServiceHandlerClient(ctx, rpc, idnodev1.NewSeriesServiceClient(conn)); err != nil {
		return nil, err
	}
	health := healthpb.NewHealthClient(conn)
	mux := http.NewServeMux()
	bodies := &bodyBudget{free: opts.MaxBodyMemory}
	mux.Handle("/v1/", strict(routes, opts.MaxBodyBytes, bodies, withCaller(callers, rpc)))
	if opts.History != nil {
		serveHistory(mux, opts.History)
	}
	if opts.Backups != nil {
		serveBackups(mux, opts.Backups)
	}
	mux.HandleFunc("GET /v1/openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(openapi)
	})
	// /healthz: the process is up and serving HTTP. Nothing else is asked: a liveness probe
	// that failed on a lost quorum would restart healthy nodes.
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok\n"))
	})
	// /readyz: every strategy serves (a quorum for identities and HiLo); ?local=true: the
	// strategies a node serves on its own (server-side IDs, GUIDs, semantic IDs).
	mux.Handle("GET /readyz", withCaller(callers, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		service := "" // every strategy
		if r.URL.Query().Get("local") == "true" {
			service = server.HealthLocal
		}
		ctx := metadata.NewOutgoingContext(r.Context(), callMetadata(r.Context(), r))
		resp, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		switch {
		case err != nil:
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
		case resp.GetStatus() != healthpb.HealthCheckResponse_SERVING:
			http.Error(w, "not ready: "+resp.GetStatus().String(), http.StatusServiceUnavailable)
		default:
			_, _ = w.Write([]byte("ready\n"))
		}
	})))
	// The console's files are public and change nothing, so they are served outside the
	// origin guard: a browser fetches a module script with the page's own Origin, which the
	// guard would refuse. What the console then asks of /v1/ is guarded like any page's call.
	top := http.NewServeMux()
	console.Register(top)
	top.Handle("/", newOrigins(opts.AllowedOrigins).guard(routes, mux))
	return newHosts(opts.AllowedHosts).guard(top), nil
}

// strict lets through to next only requests that fit a route: its method (405 with Allow),
// a JSON body (415) of at most maxBody bytes (413) that fits in what bodies has free (503),
// and query parameters the request has and the body agrees with (400). A path with no route
// goes on to the gateway's 404.
func strict(routes routeTable, maxBody int64, bodies *bodyBudget, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt, params, ok := routes.methodCheck(w, r)
		if !ok {
			return
		}
		if rt.rpc == nil {
			next.ServeHTTP(w, r)
			return
		}
		if !jsonOnly(w, r) {
			return
		}
		held, ok := reserveBody(w, r, bodies, maxBody)
		if !ok {
			return
		}
		defer bodies.give(held) // the body is held until the request is over
		body, ok := readBody(w, r, maxBody)
		if !ok {
			return
		}
		query, err := url.ParseQuery(r.URL.RawQuery)
		if err == nil {
			err = checkQuery(rt, params, query, body)
		}
		if err != nil {
			refuse(w, http.StatusBadRequest, codes.InvalidArgument, reason.InvalidInput, fmt.Sprintf("%s: %v", rt, err))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// withInputReason is the gateway's error handler: a refusal the gateway makes itself (a body
// that is not the request's JSON, a bad query value) gets the reason INVALID_INPUT like the
// node's own, any other without a reason its code's name; then grpc-gateway's usual answer.
func withInputReason(ctx context.Context, mux *runtime.ServeMux, m runtime.Marshaler, w http.ResponseWriter, r *http.Request, err error) {
	st := status.Convert(err)
	why := ""
	if st.Code() == codes.InvalidArgument {
		why = reason.InvalidInput
	}
	runtime.DefaultHTTPErrorHandler(ctx, mux, m, w, r, reason.Attach(st, why).Err())
}
