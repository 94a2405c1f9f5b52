package connlimit

import (
	"io"
	"log/slog"
	"net"
	"testing"
	"time"
)

// A listener bound to two connections holds two, closes the third at once, and takes a new
// one once one of the two is closed.
func TestListenerHoldsAtMostMax(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := New(raw, 2, "test", slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer l.Close()
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	dial := func() net.Conn {
		t.Helper()
		c, err := net.DialTimeout("tcp", raw.Addr().String(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	var held []net.Conn
	for range 2 {
		dial()
		select {
		case c := <-accepted:
			held = append(held, c)
		case <-time.After(5 * time.Second):
			t.Fatal("a connection within the bound was not accepted")
		}
	}
	over := dial()
	_ = over.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := over.Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Fatalf("a connection over the bound: read %v; want it closed by the server", err)
	}
	if got := l.Open(); got != 2 {
		t.Fatalf("Open = %d; want 2", got)
	}
	_ = held[0].Close()
	_ = held[0].Close() // a second Close gives nothing back twice
	if got := l.Open(); got != 1 {
		t.Fatalf("Open after a close = %d; want 1", got)
	}
	dial()
	select {
	case <-accepted:
	case <-time.After(5 * time.Second):
		t.Fatal("a connection after one closed was not accepted")
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
