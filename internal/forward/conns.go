package forward

import (
	"context"
	"crypto/tls"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/idnode/idnode/internal/flowcontrol"
)

// Dialer opens a connection to another node's internal address. Tests replace it to cut links.
type Dialer func(ctx context.Context, addr string) (net.Conn, error)

// conns keeps one gRPC connection per other node, created on first use and reused, so a hop
// costs no handshake. Each is watched by a link (link.go), which replaces it when the network
// under it has gone silent, as it does through a partition.
type conns struct {
	dial        Dialer
	creds       credentials.TransportCredentials
	secret      Secret
	extra       []grpc.DialOption
	linkTimeout time.Duration
	mu          sync.Mutex
	byAdr       map[string]pooled
	closed      bool // set by close; a call that outlived it must not open what nothing would close
}

// pooled is one connection of the pool and the link that watches it.
type pooled struct {
	cc   *grpc.ClientConn
	link *link
}

// newConns dials with mutual TLS when tlsCfg is set (the node's certificate and the CA), and
// every call carries the cluster secret; extra are added to every connection's options. A
// connection that stays silent for linkTimeout when it should answer is replaced.
func newConns(dial Dialer, tlsCfg *tls.Config, secret Secret, extra []grpc.DialOption, linkTimeout time.Duration) *conns {
	creds := insecure.NewCredentials()
	if tlsCfg != nil {
		creds = credentials.NewTLS(tlsCfg)
	}
	return &conns{dial: dial, creds: creds, secret: secret, extra: extra, linkTimeout: linkTimeout, byAdr: make(map[string]pooled)}
}

func (p *conns) conn(addr string) (*grpc.ClientConn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	if c, ok := p.byAdr[addr]; ok {
		return c.cc, nil
	}
	opts := append([]grpc.DialOption{
		grpc.WithTransportCredentials(p.creds),
		grpc.WithPerRPCCredentials(p.secret),
		// grpc-go's default reconnect backoff grows to 2 minutes; while it waits, calls fail
		// at once with the stale dial error. Keep retries within about one election timeout
		// so a follower forwards again promptly once a partition heals.
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 500 * time.Millisecond},
			MinConnectTimeout: time.Second,
		}),
	}, flowcontrol.DialOptions()...)
	l := newLink(p.linkTimeout)
	opts = append(opts, l.dialOptions(p.dial)...)
	opts = append(opts, p.extra...)
	c, err := grpc.NewClient("passthrough:///"+addr, opts...)
	if err != nil {
		return nil, err
	}
	p.byAdr[addr] = pooled{c, l}
	return c, nil
}

// revive makes the connection to addr, if there is one and it is not connected, dial again
// now: this node has just heard from the node at addr (link.revive).
func (p *conns) revive(addr string) {
	p.mu.Lock()
	c, ok := p.byAdr[addr]
	p.mu.Unlock()
	if ok {
		c.link.revive(c.cc)
	}
}

func (p *conns) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for addr, c := range p.byAdr {
		c.cc.Close()
		delete(p.byAdr, addr)
	}
}
