package server

import (
	"context"
	"net"
	"net/netip"
	"strings"
)

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

type httpCallerKey struct{}

// WithHTTPCaller marks ctx as a call that came through the HTTP/JSON gateway from c: the
// gateway's gRPC server (package httpapi) puts there the caller the gateway entered for the
// call's handle, and the checks judge c rather than the gateway's own connection.
func WithHTTPCaller(ctx context.Context, c HTTPCaller) context.Context {
	return context.WithValue(ctx, httpCallerKey{}, c)
}

// httpCallerFrom is the HTTP client of a call that came through the gateway.
func httpCallerFrom(ctx context.Context) (HTTPCaller, bool) {
	c, ok := ctx.Value(httpCallerKey{}).(HTTPCaller)
	return c, ok
}
