//go:build linux

package netns

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// Dialer opens TCP connections from inside host h, as a process of h would (for
// grpc.WithContextDialer): a client beside h reaches what h reaches and loses what h loses
// when it is cut. The socket is made on a thread moved into h's namespace for the dial; a
// socket stays in the namespace it was made in.
func (n *Net) Dialer(h string) func(ctx context.Context, addr string) (net.Conn, error) {
	path := filepath.Join(namesDir, n.name(h))
	return func(ctx context.Context, addr string) (net.Conn, error) {
		type result struct {
			conn net.Conn
			err  error
		}
		done := make(chan result, 1)
		// A goroutine of its own: if its thread cannot return to the test's namespace, the
		// thread stays locked and ends with the goroutine, so no other goroutine runs there.
		go func() {
			conn, err := dialFrom(ctx, path, addr)
			done <- result{conn, err}
		}()
		r := <-done
		return r.conn, r.err
	}
}

// dialFrom dials addr from the namespace at path on this goroutine's thread.
func dialFrom(ctx context.Context, path, addr string) (net.Conn, error) {
	runtime.LockOSThread()
	own, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	defer own.Close()
	host, err := os.Open(path)
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	defer host.Close()
	if err := unix.Setns(int(host.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if unix.Setns(int(own.Fd()), unix.CLONE_NEWNET) == nil {
		runtime.UnlockOSThread()
	}
	return conn, err
}
