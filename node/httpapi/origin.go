package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc/codes"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// corsHeaders are the request headers a page of an allowed origin may send.
const corsHeaders = "Authorization, Content-Type, Idnode-Database"

// exposedHeaders are the response headers a page of an allowed origin may read: the leader
// hint, as the gateway passes that metadata on, so a client in a page sends Raft calls to the
// leader rather than through a follower.
var exposedHeaders = runtime.MetadataHeaderPrefix + idnodev1.LeaderHeader

// origins guards the node against web pages: a request with an Origin header (every request a
// browser sends on a page's behalf that could change something) is refused (403) unless the
// origin is the node's own (ownOrigin: its console) or in --http-allowed-origins; pages of the
// allowed ones get CORS answers, preflights included. Clients that are not browsers send no
// Origin and are not concerned.
type origins struct {
	allowed map[string]bool
}

// ErrBadOrigin is returned by ParseOrigins for an entry that is not scheme://host[:port].
var ErrBadOrigin = errors.New("an allowed origin is scheme://host[:port], nothing more, like https://ops.example.com")

// ParseOrigins checks --http-allowed-origins entries and returns them as browsers send them.
func ParseOrigins(list []string) ([]string, error) {
	var out []string
	for _, o := range list {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("%q: %w", o, ErrBadOrigin)
		}
		out = append(out, strings.ToLower(u.Scheme+"://"+u.Host))
	}
	return out, nil
}

func newOrigins(allowed []string) origins {
	o := origins{allowed: map[string]bool{}}
	for _, a := range allowed {
		o.allowed[a] = true
	}
	return o
}

// guard passes a request on to next unless its Origin is a foreign one.
func (o origins) guard(routes routeTable, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" {
			next.ServeHTTP(w, r)
			return
		}
		if ownOrigin(r, origin) {
			next.ServeHTTP(w, r)
			return
		}
		if !o.allowed[strings.ToLower(origin)] {
			refuse(w, http.StatusForbidden, codes.PermissionDenied, "",
				fmt.Sprintf("requests from web pages are refused: origin %q is not in this node's --http-allowed-origins", origin))
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", origin)
		w.Header().Add("Vary", "Origin")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			_, _, allowed := routes.lookup("", r.URL.EscapedPath())
			if len(allowed) == 0 {
				allowed = []string{http.MethodGet} // the probes and the OpenAPI description
			}
			w.Header().Set("Access-Control-Allow-Methods", strings.Join(allowed, ", "))
			w.Header().Set("Access-Control-Allow-Headers", corsHeaders)
			w.Header().Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Access-Control-Expose-Headers", exposedHeaders)
		next.ServeHTTP(w, r)
	})
}

// ownOrigin reports whether origin is the node itself as the request reached it, so the page
// that sent it is one the node served: its console. Only over TLS, or for a host that is an IP
// address or localhost: a page of a foreign host name re-pointed at this node by DNS
// rebinding has that name as both its Origin and its Host, and no certificate for it.
func ownOrigin(r *http.Request, origin string) bool {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if !strings.EqualFold(origin, scheme+"://"+r.Host) {
		return false
	}
	if r.TLS != nil {
		return true
	}
	host := (&url.URL{Host: r.Host}).Hostname() // without port and brackets
	_, err := netip.ParseAddr(host)
	return err == nil || strings.EqualFold(host, "localhost")
}
