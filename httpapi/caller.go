package httpapi

import (
	"net/http"

	"google.golang.org/grpc/metadata"

	"github.com/idnode/idnode/server"
	"github.com/idnode/idnode/tlsconfig"
)

// callerMetadata tells the node who called over HTTP (server.GatewayServerOptions reads it):
// the client's address, and whether its TLS client certificate grants admin.
func callerMetadata(r *http.Request) metadata.MD {
	md := metadata.Pairs(server.GatewayPeerHeader, r.RemoteAddr)
	if r.TLS != nil && tlsconfig.GrantsAdmin(*r.TLS) {
		md.Set(server.GatewayAdminCertHeader, "true")
	}
	return md
}
