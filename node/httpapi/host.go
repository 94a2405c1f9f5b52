package httpapi

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"google.golang.org/grpc/codes"
)

// hosts guards the node against DNS rebinding: a page on a name its owner
// re-points at the node's address (127.0.0.1, say) is same-origin with the node for the
// browser, and its requests carry that name as Host. The Origin guard stops what it sends with
// an Origin; a GET carries none. So every request must name the node as the node knows itself:
// an IP address (a page whose origin is an address has no name to rebind), localhost, or one
// of the names in allowed (the node's own and --http-allowed-hosts). Over TLS any Host passes:
// a browser on a rebound name fails the handshake, the node's certificate does not cover it.
type hosts struct {
	allowed map[string]bool // lower-case host names, without port
}

// ErrBadHost is returned by ParseHosts for an entry that is not a host name.
var ErrBadHost = errors.New("an allowed host is a host name without scheme, port or path, like ids.example.com")

// ParseHosts checks --http-allowed-hosts entries and returns them in lower case.
func ParseHosts(list []string) ([]string, error) {
	var out []string
	for _, h := range list {
		if !hostName(h) {
			return nil, fmt.Errorf("%q: %w", h, ErrBadHost)
		}
		out = append(out, strings.ToLower(h))
	}
	return out, nil
}

// hostName reports whether h is a DNS name: dot-separated labels of letters, digits, '-' and
// '_' (no wildcard: a name is allowed, not a pattern).
func hostName(h string) bool {
	for _, label := range strings.Split(h, ".") {
		if label == "" || strings.TrimFunc(label, func(r rune) bool {
			return r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		}) != "" {
			return false
		}
	}
	return true
}

// OwnHosts is the host names among addrs (host:port, or a bare host), the addresses a node
// serves on or is reached at: requests to the node may name them.
func OwnHosts(addrs ...string) []string {
	var out []string
	for _, a := range addrs {
		host, _, err := net.SplitHostPort(a)
		if err != nil {
			host = a
		}
		if _, err := netip.ParseAddr(host); host != "" && err != nil {
			out = append(out, strings.ToLower(host))
		}
	}
	return out
}

func newHosts(allowed []string) hosts {
	h := hosts{allowed: map[string]bool{}}
	for _, a := range allowed {
		h.allowed[strings.ToLower(a)] = true
	}
	return h
}

// guard passes a request on to next unless its Host names something other than this node.
func (h hosts) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil || h.own(r.Host) {
			next.ServeHTTP(w, r)
			return
		}
		refuse(w, http.StatusForbidden, codes.PermissionDenied, "",
			fmt.Sprintf("requests for host %q are refused: it is not a name of this node, and a web page on a rebound DNS name "+
				"would send it; if clients reach this node by that name, list it in --http-allowed-hosts", r.Host))
	})
}

// own reports whether host (from the Host header, with or without a port) names this node.
// No Host at all (HTTP/1.0) is no browser's request.
func (h hosts) own(host string) bool {
	if host == "" {
		return true
	}
	name := (&url.URL{Host: host}).Hostname() // without port and brackets
	if _, err := netip.ParseAddr(name); err == nil {
		return true
	}
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	return name == "localhost" || h.allowed[name]
}
