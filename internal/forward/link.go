package forward

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
)

// A pooled connection to another node must not outlive the network path under it. When a
// partition drops packets (no FIN, no RST), the data a node sent into it stays unacknowledged
// and TCP retransmits it with exponential backoff: after a cut of 35 s the next retransmission
// may be 20–30 s away. Reused after the heal, that connection carries nothing until then, and
// every call relayed on it ends "the leader did not answer" although a new connection would
// answer at once. Two things replace such a connection, so that a node relays again within
// about the election wait of a heal:
//
//   - keepalive: gRPC pings every connection that has been silent for PingEvery, with or
//     without calls on it, and closes it when no answer comes within the link timeout. This
//     covers a stream and a connection nobody uses, but only after PingEvery (grpc-go allows no
//     less than 10 s).
//   - a silent call: a call on the connection that its caller gave up on (its deadline, the
//     hop's bound, a leader change) while not a byte came back on the connection since it was
//     sent makes the link suspect. A health check, which the internal server answers without
//     Raft, then probes it; if nothing at all comes back within the link timeout, the
//     connection is closed and gRPC dials a new one. A leader that is only slow (a minority
//     leader, a stalled disk) still answers the probe, so its connection is kept.
//
// The link timeout is the election wait (four election timeouts of --raft-rtt's timing, 1 s on
// a LAN): forty round trips, long enough for a lost packet to be sent again, and the time a
// node may anyway go without a leader's answer.

// PingEvery is how long a pooled connection may be silent before gRPC pings it: grpc-go's
// floor for client pings, and at or above the internal server's minimum ping interval
// (server/bounds.go), which also permits pings without calls.
const PingEvery = 10 * time.Second

// link watches one pooled connection: when it last heard from the other node, and the network
// connections under it, so that it can close them when the other node has gone silent.
type link struct {
	timeout time.Duration
	heard   atomic.Int64 // UnixNano of the last read that returned data
	probing atomic.Bool  // a probe is under way
	mu      sync.Mutex
	open    map[*heardConn]struct{}
}

func newLink(timeout time.Duration) *link {
	return &link{timeout: timeout, open: make(map[*heardConn]struct{})}
}

// dialOptions make the connection's transport go through l and keep it alive.
func (l *link) dialOptions(dial Dialer) []grpc.DialOption {
	if dial == nil {
		var d net.Dialer
		dial = func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
	}
	return []grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			c, err := dial(ctx, addr)
			if err != nil {
				return nil, err
			}
			return l.add(c), nil
		}),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: PingEvery, Timeout: l.timeout, PermitWithoutStream: true}),
		grpc.WithChainUnaryInterceptor(l.watch),
	}
}

func (l *link) add(c net.Conn) *heardConn {
	hc := &heardConn{Conn: c, link: l}
	l.mu.Lock()
	l.open[hc] = struct{}{}
	l.mu.Unlock()
	return hc
}

// silentSince reports whether nothing came from the other node since t.
func (l *link) silentSince(t time.Time) bool { return l.heard.Load() < t.UnixNano() }

// probeKey marks a probe's context, so that a probe does not set off another.
type probeKey struct{}

// watch is the connection's unary interceptor: a call given up on this side after hearing
// nothing since it was sent makes the link suspect.
func (l *link) watch(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	sent := time.Now()
	err := invoker(ctx, method, req, reply, cc, opts...)
	if err != nil && ctx.Err() != nil && ctx.Value(probeKey{}) == nil && l.silentSince(sent) {
		l.suspect(cc, sent)
	}
	return err
}

// suspect probes the link, unless a probe is under way, and closes its network connections
// when nothing at all came from the other node between since and the probe's end.
func (l *link) suspect(cc *grpc.ClientConn, since time.Time) {
	if !l.probing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer l.probing.Store(false)
		ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), probeKey{}, true), l.timeout)
		_, _ = healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if l.silentSince(since) {
			l.closeAll()
		}
	}()
}

// closeAll closes the link's network connections. gRPC sees its transport fail, fails the
// calls still on it, and dials anew for the next call.
func (l *link) closeAll() {
	l.mu.Lock()
	open := l.open
	l.open = make(map[*heardConn]struct{})
	l.mu.Unlock()
	for c := range open {
		_ = c.Conn.Close()
	}
}

// heardConn is a network connection of a link that notes when data arrives on it.
type heardConn struct {
	net.Conn
	link *link
}

func (c *heardConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.link.heard.Store(time.Now().UnixNano())
	}
	return n, err
}

func (c *heardConn) Close() error {
	c.link.mu.Lock()
	delete(c.link.open, c)
	c.link.mu.Unlock()
	return c.Conn.Close()
}
