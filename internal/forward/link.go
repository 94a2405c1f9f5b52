package forward

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/stats"
)

// A pooled connection to another node must not outlive the network path under it. When a
// partition drops packets (no FIN, no RST), the data a node sent into it stays unacknowledged
// and TCP retransmits it with exponential backoff: after a cut of 35 s the next retransmission
// may be 20–30 s away. Reused after the heal, that connection carries nothing until then, and
// every call relayed on it ends "the leader did not answer" although a new connection would
// answer at once. Three things replace such a connection, so that a node relays again within
// about the election wait of a heal:
//
//   - keepalive: gRPC pings every connection that has been silent for PingEvery, with or
//     without calls on it, and closes it when no answer comes within the link timeout; this
//     covers a connection nobody uses, but only after PingEvery (grpc-go allows no less than
//     10 s). With keepalive on, gRPC also sets TCP_USER_TIMEOUT to the link timeout, so the
//     kernel drops a connection whose data stays unacknowledged that long.
//   - a silent call: a call on the connection that its caller gave up on (its deadline, the
//     hop's bound, a leader change) while no answer to any call came back on the connection
//     since it was sent makes the link suspect. A health check, which the internal server
//     answers without Raft, then probes it; if no answer at all comes back within the link
//     timeout, the connection is closed and gRPC dials a new one. A leader that is only slow
//     (a minority leader, a stalled disk) still answers the probe, so its connection is kept.
//   - a silent stream: while a stream is open, the connection is probed in the same way each
//     time it has been silent for the link timeout (stream.go).
//
// A connection that gRPC then redials into the cut dials again as soon as the node hears from
// the leader after the heal, without waiting out gRPC's backoff or a dial that the cut
// swallowed (revive.go).
//
// The link timeout is the election wait (four election timeouts of --raft-rtt's timing, 1 s on
// a LAN): at least forty round trips, long enough for a lost packet to be sent again, and the
// time a node may anyway go without a leader's answer.

// PingEvery is how long a pooled connection may be silent before gRPC pings it: grpc-go's
// floor for client pings, and at or above the internal server's minimum ping interval
// (server/bounds.go), which also permits pings without calls.
const PingEvery = 10 * time.Second

// link watches one pooled connection: when an answer last came from the other node, and the
// network connection under it, so that it can close it when the other node has gone silent.
// It hands gRPC the dialled *net.TCPConn itself, so that gRPC's keepalive also sets
// TCP_USER_TIMEOUT on it: the kernel then drops the connection once data sent on it has gone
// unacknowledged for the link timeout.
type link struct {
	timeout  time.Duration
	heard    atomic.Int64 // UnixNano of the last answer (header, message or trailer) of any call
	probing  atomic.Bool  // a probe is under way
	reviving atomic.Bool  // a revive is under way (revive.go)
	dials    atomic.Int64 // dials begun
	mu       sync.Mutex
	conn     net.Conn // the newest network connection dialled; gRPC uses one at a time
	// abort ends the dial under way, nil when there is none.
	abort context.CancelCauseFunc
}

func newLink(timeout time.Duration) *link { return &link{timeout: timeout} }

// dialOptions make the connection dial through l, report its calls' answers to l and keep
// it alive.
func (l *link) dialOptions(dial Dialer) []grpc.DialOption {
	if dial == nil {
		var d net.Dialer
		dial = func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
	}
	return []grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			ctx, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			l.mu.Lock()
			l.abort = cancel
			l.dials.Add(1)
			l.mu.Unlock()
			c, err := dial(ctx, addr)
			l.mu.Lock()
			defer l.mu.Unlock()
			l.abort = nil
			if err == nil && errors.Is(context.Cause(ctx), errRevived) {
				// Revived as the dial ended: the connection is of before, and goes too.
				_ = c.Close()
				c, err = nil, errRevived
			}
			if err == nil {
				l.conn = c
			}
			return c, err
		}),
		grpc.WithStatsHandler(answers{l}),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: PingEvery, Timeout: l.timeout, PermitWithoutStream: true}),
		grpc.WithChainUnaryInterceptor(l.watch),
		grpc.WithChainStreamInterceptor(l.watchStream),
	}
}

// silentSince reports whether no answer came from the other node since t.
func (l *link) silentSince(t time.Time) bool { return l.heard.Load() < t.UnixNano() }

// probeKey marks a probe's context, so that a probe does not set off another.
type probeKey struct{}

// watch is the connection's unary interceptor: a call given up on this side with no answer
// to any call heard since it was sent makes the link suspect.
func (l *link) watch(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	sent := time.Now()
	err := invoker(ctx, method, req, reply, cc, opts...)
	if err != nil && ctx.Err() != nil && ctx.Value(probeKey{}) == nil && l.silentSince(sent) {
		l.suspect(cc, sent)
	}
	return err
}

// suspect probes the link, unless a probe is under way, and closes its network connection
// when no answer at all came from the other node between since and the probe's end.
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
			l.closeConn()
		}
	}()
}

// closeConn closes the link's network connection. gRPC sees its transport fail, fails the
// calls still on it, and dials anew for the next call.
func (l *link) closeConn() {
	l.mu.Lock()
	c := l.conn
	l.conn = nil
	l.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
}

// answers is the link's stats handler: it notes every header, message and trailer that
// comes back for a call.
type answers struct{ l *link }

func (a answers) HandleRPC(_ context.Context, s stats.RPCStats) {
	switch s.(type) {
	case *stats.InHeader, *stats.InPayload, *stats.InTrailer:
		a.l.heard.Store(time.Now().UnixNano())
	}
}

func (answers) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context   { return ctx }
func (answers) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (answers) HandleConn(context.Context, stats.ConnStats)                       {}
