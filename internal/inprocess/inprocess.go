// Package inprocess is a net.Listener with no socket: its connections are net.Pipe pairs that
// only code in this process can make (Listener.DialContext), so no other process, container
// or user can reach what it serves. The HTTP gateway reaches its node's gRPC services through
// one, because a loopback port let any local process call the gateway's server.
package inprocess

import (
	"context"
	"net"
	"sync"
)

// Listener hands the server ends of the pipes DialContext makes to Accept.
type Listener struct {
	addr      net.Addr
	pair      func() (server, client net.Conn)
	conns     chan net.Conn
	closed    chan struct{}
	closeOnce sync.Once
}

// Listen returns a Listener of net.Pipe pairs that takes connections until Close.
func Listen() *Listener {
	return ListenPairs(addr{}, func() (net.Conn, net.Conn) { return net.Pipe() })
}

// ListenPairs returns a Listener at addr whose connections are the pairs that pair makes,
// the server's end first; tests use it for pipes of their own (test/helpers/memnet).
func ListenPairs(at net.Addr, pair func() (server, client net.Conn)) *Listener {
	return &Listener{addr: at, pair: pair, conns: make(chan net.Conn), closed: make(chan struct{})}
}

// Accept waits for the next DialContext, or for Close (net.ErrClosed).
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and refuses later dials; connections already made stay open.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return nil
}

// Addr names the listener; there is no address to dial from outside.
func (l *Listener) Addr() net.Addr { return l.addr }

// DialContext connects to the listener; the address is ignored (grpc.WithContextDialer
// passes one). It waits for Accept, for ctx, or for Close.
func (l *Listener) DialContext(ctx context.Context, _ string) (net.Conn, error) {
	server, client := l.pair()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.closed:
		_, _ = server.Close(), client.Close()
		return nil, net.ErrClosed
	case <-ctx.Done():
		_, _ = server.Close(), client.Close()
		return nil, ctx.Err()
	}
}

type addr struct{}

func (addr) Network() string { return "inprocess" }
func (addr) String() string  { return "inprocess" }
