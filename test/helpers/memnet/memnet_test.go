package memnet

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// echo serves l until it closes, writing back what each connection reads.
func echo(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			_, _ = io.Copy(c, c)
		}()
	}
}

// Connections dialled in parallel inside a bubble carry bytes both ways and end cleanly, and a
// closed listener refuses the next dial.
func TestParallelDialsInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := New()
		l := n.Listen()
		go echo(l)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for i := range 1000 {
					c, err := n.Dial(t.Context(), l.Addr().String())
					if err != nil {
						t.Errorf("Dial: %v", err)
						return
					}
					if i%10 == 0 {
						if _, err := c.Write([]byte("ping")); err != nil {
							t.Errorf("Write: %v", err)
						}
						got := make([]byte, 4)
						if _, err := io.ReadFull(c, got); err != nil || string(got) != "ping" {
							t.Errorf("read back %q, %v; want ping", got, err)
						}
					}
					c.Close()
				}
			})
		}
		wg.Wait()
		l.Close()
		if _, err := n.Dial(t.Context(), l.Addr().String()); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Errorf("Dial after Close: %v, want a refusal", err)
		}
	})
}

// A read waits until its deadline passes, in the bubble's time; a deadline already passed
// fails the next read at once; a deadline cleared lets a read wait for data again.
func TestDeadlines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := New()
		l := n.Listen()
		defer l.Close()
		go echo(l)
		c, err := n.Dial(context.Background(), l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		c.SetReadDeadline(start.Add(3 * time.Second))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(start) != 3*time.Second {
			t.Errorf("a read with a deadline 3 s ahead: %v after %v; want a timeout after 3s", err, time.Since(start))
		}
		c.SetDeadline(start)
		if _, err := c.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("a write past its deadline: %v, want a timeout", err)
		}
		c.SetDeadline(time.Time{})
		if _, err := c.Write([]byte("x")); err != nil {
			t.Fatalf("a write without a deadline: %v", err)
		}
		if _, err := c.Read(make([]byte, 1)); err != nil {
			t.Errorf("a read without a deadline: %v", err)
		}
	})
}
