// Package memnet is an in-memory network for tests that run inside a testing/synctest
// bubble. There time moves only while every goroutine of the bubble is durably blocked, and a
// goroutine reading a socket is not, so a gRPC server on loopback TCP stops the bubble's
// clock; one on this package's pipes, whose reads wait on a sync.Cond, does not
// (docs/testing.md, "Cluster tests in virtual time").
//
// Each listener gets an address of its own that looks like a loopback TCP address, and the
// connections it accepts say they come from 127.0.0.1, as a node's answers depend on whether a
// caller is local. A dial of an address nothing listens at is refused at once, as a closed
// loopback port refuses.
package memnet

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"syscall"

	"github.com/idnode/idnode/internal/inprocess"
)

// bufferSize is each direction's buffer of a connection: gRPC's frames of a test fit.
const bufferSize = 1 << 20

// firstPort is the port of a network's first listener. The addresses never reach the
// kernel; the range is the top of the ephemeral ports, so that a test that dials one over TCP
// by mistake is most likely refused.
const firstPort = 61000

func init() {
	// The net package makes the channel its DNS configuration is guarded by on the first
	// lookup. Made inside a bubble, it belongs to that bubble, and the next bubble's lookup
	// (gRPC resolves the peers' Raft addresses) is a fatal error. Made here, it belongs to none.
	_, _ = net.LookupHost("localhost")
}

// Network is one set of listeners, reached by address.
type Network struct {
	mu   sync.Mutex
	next int
	lis  map[string]*inprocess.Listener
}

// New returns an empty network.
func New() *Network { return &Network{lis: map[string]*inprocess.Listener{}} }

// Listen opens a listener at a new address. Closing it refuses later dials.
func (n *Network) Listen() net.Listener {
	n.mu.Lock()
	defer n.mu.Unlock()
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: firstPort + n.next}
	n.next++
	l := listen(addr)
	n.lis[addr.String()] = l
	return l
}

// ListenAt opens a listener at addr, one of this network's addresses whose listener was
// closed, as a restarted node binds its port again.
func (n *Network) ListenAt(addr string) (net.Listener, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.lis[addr]; !ok {
		return nil, fmt.Errorf("memnet: %s is not an address of this network", addr)
	}
	l := listen(net.TCPAddrFromAddrPort(ap))
	n.lis[addr] = l
	return l, nil
}

// Gone is an address nothing listens at, as a port whose listener was closed.
func (n *Network) Gone() string {
	l := n.Listen()
	l.Close()
	return l.Addr().String()
}

// Dial connects to the listener at addr, or is refused.
func (n *Network) Dial(ctx context.Context, addr string) (net.Conn, error) {
	n.mu.Lock()
	l := n.lis[addr]
	n.mu.Unlock()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	if l == nil {
		return nil, refused
	}
	c, err := l.DialContext(ctx, addr)
	if err != nil {
		refused.Err = fmt.Errorf("%w (%v)", syscall.ECONNREFUSED, err)
		return nil, refused
	}
	return c, nil
}

// listen is a listener at addr whose connections are pipes of this package. The server's end
// says it comes from a loopback caller, as a node's answers depend on whether a caller is local.
func listen(addr *net.TCPAddr) *inprocess.Listener {
	caller := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
	return inprocess.ListenPairs(addr, func() (net.Conn, net.Conn) {
		toServer, toClient := newPipe(bufferSize), newPipe(bufferSize)
		return &conn{in: toServer, out: toClient, local: addr, remote: caller},
			&conn{in: toClient, out: toServer, local: caller, remote: addr}
	})
}
