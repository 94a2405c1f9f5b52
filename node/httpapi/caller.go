package httpapi

import (
	"context"
	"net/http"
	"net/netip"

	"google.golang.org/grpc/metadata"

	"github.com/idnode/idnode/internal/tlsconfig"
	"github.com/idnode/idnode/server"
)

type callHandleKey struct{}

// withCaller enters the HTTP caller of each request in callers for as long as the request
// runs: its address and Host as this node's HTTP server accepted them, and whether its
// verified TLS client certificate grants admin. The RPCs the request makes carry only the
// handle (callMetadata), so nothing an HTTP client sends can change who it is taken for.
func withCaller(callers *callers, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		addr, _ := netip.ParseAddrPort(r.RemoteAddr) // net/http's RemoteAddr: "ip:port" or "[ip]:port"
		handle, leave := callers.enter(server.HTTPCaller{
			Addr:      addr,
			Host:      r.Host,
			AdminCert: r.TLS != nil && tlsconfig.GrantsAdmin(*r.TLS),
		})
		defer leave()
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callHandleKey{}, handle)))
	})
}

// callMetadata returns the metadata for the RPCs of request r, which carries its caller's
// handle.
func callMetadata(_ context.Context, r *http.Request) metadata.MD {
	handle, _ := r.Context().Value(callHandleKey{}).(string)
	return metadata.Pairs(GatewayCallHeader, handle)
}
