// Package connlimit bounds the connections a listener holds open. Each connection costs a
// server its buffers and goroutines whatever it sends, so without a bound a caller that opens
// connections until the node runs out of file descriptors stops it answering everyone, its
// metrics included.
package connlimit

import (
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// logEvery is how often at most a listener logs that it closed connections over its bound.
const logEvery = 10 * time.Second

// Listener accepts at most max connections at once. One over the bound is accepted and closed
// at once rather than left in the kernel's queue: its client sees the refusal straight away
// (a gRPC client: UNAVAILABLE, and moves to another node) instead of hanging, and the queue
// stays free for the moment a connection closes.
type Listener struct {
	net.Listener
	max  int64
	name string
	log  *slog.Logger

	open    atomic.Int64
	refused atomic.Int64
	mu      sync.Mutex
	logged  time.Time
}

// New bounds l to max connections open at once; name says which listener in the log.
func New(l net.Listener, max int, name string, log *slog.Logger) *Listener {
	return &Listener{Listener: l, max: int64(max), name: name, log: log}
}

// Open is how many connections the listener holds now.
func (l *Listener) Open() int64 { return l.open.Load() }

// Accept returns the next connection within the bound, closing those over it.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			return &conn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		_ = c.Close()
		l.noteRefused()
	}
}

// noteRefused counts a connection closed over the bound, and logs the count at most every
// logEvery.
func (l *Listener) noteRefused() {
	n := l.refused.Add(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if time.Since(l.logged) < logEvery {
		return
	}
	l.logged = time.Now()
	l.log.Warn("closed connections over the listener's bound", "listener", l.name, "max", l.max, "closed_total", n)
}

// conn gives its slot back once, when it is closed.
type conn struct {
	net.Conn
	l    *Listener
	once sync.Once
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}
