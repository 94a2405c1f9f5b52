package memnet

import (
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// pipe is one direction of a connection: what is written waits in a buffer of at most max
// bytes until it is read. Readers and writers wait on a sync.Cond, which in a bubble is a
// durable block, so a node waiting for its next request lets the bubble's clock move.
type pipe struct {
	mu   sync.Mutex
	cond sync.Cond
	buf  []byte
	max  int

	closed      bool // the reading end closed: nothing more is read or written
	writeClosed bool // the writing end closed: what is buffered is still read, then EOF
	read, write deadline
}

func newPipe(max int) *pipe {
	p := &pipe{max: max}
	p.cond.L = &p.mu
	return p
}

// deadline is one of a pipe's deadlines; gen tells a timer of an earlier deadline from the
// one of now.
type deadline struct {
	gen    int
	passed bool
	timer  *time.Timer
}

// set makes d pass at t (never, for the zero time), waking every waiter when it does.
//
// A deadline already passed is marked here, not by a timer due at once: in a bubble such a
// timer runs on the caller's stack under the bubble's single race-detector context, and two
// of them on two threads at once crash the race detector (golang/go#78156). gRPC's bufconn,
// which this package used before, made two such timers for each connection.
func (p *pipe) set(d *deadline, t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	d.gen++
	d.passed = false
	if t.IsZero() {
		return
	}
	wait := time.Until(t)
	if wait <= 0 {
		d.passed = true
		p.cond.Broadcast()
		return
	}
	gen := d.gen
	d.timer = time.AfterFunc(wait, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if d.gen == gen {
			d.passed = true
			p.cond.Broadcast()
		}
	})
}

func (p *pipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		switch {
		case p.closed:
			return 0, io.ErrClosedPipe
		case p.read.passed:
			return 0, os.ErrDeadlineExceeded
		case len(p.buf) > 0:
			n := copy(b, p.buf)
			p.buf = p.buf[n:]
			p.cond.Broadcast()
			return n, nil
		case p.writeClosed:
			return 0, io.EOF
		}
		p.cond.Wait()
	}
}

func (p *pipe) Write(b []byte) (n int, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(b) > 0 {
		switch {
		case p.closed || p.writeClosed:
			return n, io.ErrClosedPipe
		case p.write.passed:
			return n, os.ErrDeadlineExceeded
		case len(p.buf) < p.max:
			k := min(len(b), p.max-len(p.buf))
			p.buf = append(p.buf, b[:k]...)
			b, n = b[k:], n+k
			p.cond.Broadcast()
			continue
		}
		p.cond.Wait()
	}
	return n, nil
}

// closeRead and closeWrite close the pipe's reading and writing ends.
func (p *pipe) closeRead()  { p.closeEnd(&p.closed) }
func (p *pipe) closeWrite() { p.closeEnd(&p.writeClosed) }

func (p *pipe) closeEnd(end *bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	*end = true
	p.cond.Broadcast()
}

// conn is one end of a connection: it reads from in and writes to out.
type conn struct {
	in, out       *pipe
	local, remote net.Addr
}

func (c *conn) Read(b []byte) (int, error)  { return c.in.Read(b) }
func (c *conn) Write(b []byte) (int, error) { return c.out.Write(b) }
func (c *conn) LocalAddr() net.Addr         { return c.local }
func (c *conn) RemoteAddr() net.Addr        { return c.remote }

func (c *conn) Close() error {
	c.in.closeRead()
	c.out.closeWrite()
	return nil
}

func (c *conn) SetDeadline(t time.Time) error {
	c.in.set(&c.in.read, t)
	c.out.set(&c.out.write, t)
	return nil
}

func (c *conn) SetReadDeadline(t time.Time) error {
	c.in.set(&c.in.read, t)
	return nil
}

func (c *conn) SetWriteDeadline(t time.Time) error {
	c.out.set(&c.out.write, t)
	return nil
}
