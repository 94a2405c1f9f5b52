package cluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/internal/connlimit"
)

// streamLayer is raft's TCP stream layer with an advertised address that may be a host name.
// raft's own TCP transport wants an IP, which breaks in containers whose IP changes when they
// are reconnected to a network; a name is resolved again on every dial.
//
// With tls set, every connection is mutual TLS: the listener requires and verifies a peer
// certificate, and Dial presents this node's and verifies the other's.
type streamLayer struct {
	net.Listener // raft's side of mux
	mux          *portMux
	advertise    hostPort
	tls          *tls.Config
	// dial, when set (Config.Dial), opens the TCP connection that TLS then runs over; when
	// nil, Dial uses the net package.
	dial func(ctx context.Context, address string) (net.Conn, error)
}

var _ raft.StreamLayer = (*streamLayer)(nil)

func (s *streamLayer) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	if s.dial != nil {
		return s.dialVia(string(address), timeout)
	}
	if s.tls != nil {
		// The timeout covers the handshake too.
		d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: timeout}, Config: s.tls}
		return d.Dial("tcp", string(address))
	}
	return net.DialTimeout("tcp", string(address), timeout)
}

// dialVia opens the connection with s.dial, then makes the TLS handshake over it, all within
// timeout.
func (s *streamLayer) dialVia(address string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	conn, err := s.dial(ctx, address)
	if err != nil || s.tls == nil {
		return conn, err
	}
	cfg := s.tls
	if cfg.ServerName == "" {
		// As tls.Dialer does: the certificate must name the host dialled.
		host, _, _ := net.SplitHostPort(address)
		cfg = cfg.Clone()
		cfg.ServerName = host
	}
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return tc, nil
}

func (s *streamLayer) Addr() net.Addr { return s.advertise }

// hostPort is a "host:port" net.Addr.
type hostPort string

func (h hostPort) Network() string { return "tcp" }
func (h hostPort) String() string  { return string(h) }

// MaxRaftPortConns bounds the connections the Raft port holds at once, as --grpc-max-conns
// bounds the client port's. A peer keeps a handful (raft's pool of
// MaxPool, a pipeline, the node-to-node gRPC connection; node.go bounds those at 256), so this
// is far above any cluster's. Without it, connections that say nothing were each held for the
// hello's wait, and enough of them took every file descriptor the node had: no client, peer
// or file got one. Those over it are closed at once, before any TLS handshake.
const MaxRaftPortConns = 512

// newTCPTransport listens on bind (or takes l, already listening) and tells peers to reach
// this node at advertise; with tlsCfg, over mutual TLS. The same port answers hello requests
// with answer (hello.go). It holds at most MaxRaftPortConns connections.
func newTCPTransport(l net.Listener, bind, advertise string, rc *raft.Config, tlsCfg *tls.Config, answer func() hello,
	log *slog.Logger) (*raft.NetworkTransport, *streamLayer, error) {
	host, _, err := net.SplitHostPort(advertise)
	if err != nil {
		return nil, nil, fmt.Errorf("raft advertise address %q: %w", advertise, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		return nil, nil, fmt.Errorf("raft advertise address %q must name a host other nodes can reach, not a wildcard", advertise)
	}
	if l == nil {
		if l, err = net.Listen("tcp", bind); err != nil {
			return nil, nil, fmt.Errorf("listen for raft on %s: %w", bind, err)
		}
	}
	stream := newStreamLayer(connlimit.New(l, MaxRaftPortConns, "raft", log), advertise, tlsCfg, answer)
	return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream:  stream,
		MaxPool: 4,
		Timeout: 2 * time.Second,
		Logger:  rc.Logger.Named("transport"),
	}), stream, nil
}

func newStreamLayer(l net.Listener, advertise string, tlsCfg *tls.Config, answer func() hello) *streamLayer {
	if tlsCfg != nil {
		// Offer HTTP/2 to the node-to-node gRPC clients (grpc-go requires it negotiated);
		// raft's own dials offer no protocol and are unaffected.
		srv := tlsCfg.Clone()
		srv.NextProtos = append(srv.NextProtos, "h2")
		l = tls.NewListener(l, srv)
	}
	mux := newPortMux(l, answer)
	return &streamLayer{Listener: mux.raft, mux: mux, advertise: hostPort(advertise), tls: tlsCfg}
}
