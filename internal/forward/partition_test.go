package forward_test

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/idnode/idnode/test/helpers/memnet"
)

// network carries the tests' calls: they run inside testing/synctest bubbles, where a socket
// would stop the clock (memnet). Every listener has an address of its own, so tests share it.
var network = memnet.New()

// listen opens a listener on network, closed when the test ends.
func listen(t testing.TB) (addr string, lis net.Listener) {
	lis = network.Listen()
	t.Cleanup(func() { lis.Close() })
	return lis.Addr().String(), lis
}

// partition is the network between a follower and its leader. A cut blackholes every
// connection the follower has open to the leader and every one it opens during the cut: what
// it writes is taken and dropped, and nothing more is read, with no FIN or RST, as when a
// firewall drops packets. A heal does not bring the connections of before back: over TCP they
// stay in retransmission backoff for as long again as the cut lasted, longer than these tests
// run, so here they stay blackholed. Connections opened after the heal pass. With dropSYN set,
// a connection opened during the cut does not connect at all until its dial gives up, as when
// the firewall drops its SYN too.
type partition struct {
	target  string
	mu      sync.Mutex
	cutNow  chan struct{} // closed at the cut of the connections opened since the last heal
	dropSYN atomic.Bool
	isCut   atomic.Bool
}

func newPartition(t testing.TB, target string) *partition {
	p := &partition{target: target}
	p.heal(t)
	return p
}

// heal lets the connections opened from now on through.
func (p *partition) heal(testing.TB) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutNow = make(chan struct{})
	p.isCut.Store(false)
}

// cut blackholes the connections opened since the last heal, and those opened until the next.
func (p *partition) cut(testing.TB) {
	p.mu.Lock()
	defer p.mu.Unlock()
	close(p.cutNow)
	p.isCut.Store(true)
}

func (p *partition) dial(ctx context.Context, _ string) (net.Conn, error) {
	if p.dropSYN.Load() && p.isCut.Load() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	c, err := network.Dial(ctx, p.target)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return &holeConn{Conn: c, cut: p.cutNow, closed: make(chan struct{})}, nil
}

// holeConn is a connection through a partition: once cut, writes are dropped and reads wait
// for Close.
type holeConn struct {
	net.Conn
	cut    <-chan struct{}
	closed chan struct{}
	once   sync.Once
}

func (c *holeConn) isCut() bool {
	select {
	case <-c.cut:
		return true
	default:
		return false
	}
}

func (c *holeConn) Read(b []byte) (int, error) {
	if !c.isCut() {
		n, err := c.Conn.Read(b)
		if !c.isCut() {
			return n, err
		}
		// What arrived after the cut is lost in it.
	}
	<-c.closed
	return 0, net.ErrClosed
}

func (c *holeConn) Write(b []byte) (int, error) {
	if c.isCut() {
		return len(b), nil
	}
	return c.Conn.Write(b)
}

func (c *holeConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}
