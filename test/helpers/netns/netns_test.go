//go:build linux

package netns

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// probeWait is how long a dial or read across a cut is given before it counts as lost: the
// cut drops packets, so nothing answers, not even a refusal.
const probeWait = 300 * time.Millisecond

// A host dials from its own address; Cut loses its packets both ways, on a connection made
// before the cut and on new ones, and leaves the other hosts alone; Heal brings both back.
func TestCutAndHeal(t *testing.T) {
	n := Start(t, "A", "B")
	l, err := net.Listen("tcp", n.TestAddr()+":0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()

	fromA, atTest := dial(t, n, "A", l.Addr().String(), accepted)
	if got, want := fromA.LocalAddr().(*net.TCPAddr).IP.String(), n.Addr("A"); got != want {
		t.Fatalf("a connection from host A comes from %s, want %s", got, want)
	}

	n.Cut("A")
	if _, err := n.Dialer("A")(ctxFor(t, probeWait), l.Addr().String()); !timedOut(err) {
		t.Fatalf("a dial from host A across the cut: %v, want no answer (a timeout)", err)
	}
	if _, err := atTest.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := readByte(fromA, probeWait); !timedOut(err) {
		t.Fatalf("host A read across the cut: %v, want nothing (a timeout)", err)
	}
	dial(t, n, "B", l.Addr().String(), accepted) // B is not cut

	n.Heal("A")
	if err := readByte(fromA, 10*time.Second); err != nil {
		t.Fatalf("host A after the heal: %v, want the byte sent during the cut", err)
	}
	dial(t, n, "A", l.Addr().String(), accepted)
}

// dial connects from host h to addr, and returns both ends.
func dial(t *testing.T, n *Net, h, addr string, accepted <-chan net.Conn) (net.Conn, net.Conn) {
	t.Helper()
	c, err := n.Dialer(h)(ctxFor(t, 10*time.Second), addr)
	if err != nil {
		t.Fatalf("dial from host %s: %v", h, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	select {
	case a := <-accepted:
		t.Cleanup(func() { _ = a.Close() })
		return c, a
	case <-time.After(10 * time.Second):
		t.Fatalf("the dial from host %s was not accepted", h)
		return nil, nil
	}
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// timedOut says whether err is a timeout: nothing answered, not even a refusal.
func timedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// readByte reads one byte from c within d.
func readByte(c net.Conn, d time.Duration) error {
	if err := c.SetReadDeadline(time.Now().Add(d)); err != nil {
		return err
	}
	_, err := io.ReadFull(c, make([]byte, 1))
	return err
}
