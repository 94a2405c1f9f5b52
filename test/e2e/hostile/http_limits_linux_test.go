//go:build linux

package hostile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// The HTTP limits of a node under attack, each against a real process:
// connections that dribble a body are closed within --http-read-timeout; a Content-Length of
// 100 MB is answered 413 without the node's RSS growing; more connections than
// --http-max-conns are not accepted (they wait in the kernel's queue) while gRPC keeps serving.
func TestHTTPLimits(t *testing.T) {
	t.Parallel()
	const readTimeout, maxConns = 2 * time.Second, 16
	p, base := startHTTPNode(t, "--http-read-timeout", readTimeout.String(), "--http-max-conns", strconv.Itoa(maxConns))
	addr := strings.TrimPrefix(base, "http://")
	_, portText, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portText)
	cmd, _ := p.Current()
	pid := cmd.Process.Pid
	nextIdentity(t, base, "warm")

	t.Run("slow bodies are cut off", func(t *testing.T) {
		const conns = 8
		var wg sync.WaitGroup
		errs := make(chan error, conns)
		for i := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- dribble(addr, i, readTimeout+5*time.Second)
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	})

	t.Run("a huge body is refused before it is read", func(t *testing.T) {
		before := rssBytes(t, pid)
		code, sent, err := hugeBody(addr, 100<<20, time.Now().Add(4*e2etest.RPCTimeout))
		after := rssBytes(t, pid)
		t.Logf("RSS %d MB before, %d MB after; %d MB of the body sent before the answer", before>>20, after>>20, sent>>20)
		if err != nil || code != http.StatusRequestEntityTooLarge {
			t.Errorf("POST with Content-Length 100 MB = %d (%v) after sending %d bytes; want 413", code, err, sent)
		}
		if after-before > 16<<20 {
			t.Fatalf("RSS grew by %d MB answering a 100 MB body with 413; want < 16 MB", (after-before)>>20)
		}
	})

	t.Run("connections beyond the limit are not accepted", func(t *testing.T) {
		const extra = 3 * maxConns
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				_ = c.Close()
			}
		}()
		for range maxConns + extra {
			c, err := net.DialTimeout("tcp", addr, e2etest.RPCTimeout)
			if err != nil {
				t.Fatalf("connect %d: %v", len(conns), err)
			}
			conns = append(conns, c)
		}
		e2etest.Eventually(t, e2etest.RPCTimeout, "the node accepts its limit of connections", func() error {
			if n := connectionsOn(t, pid, port); n < maxConns {
				return fmt.Errorf("%d connections accepted, want %d", n, maxConns)
			}
			return nil
		})
		ids, _ := e2etest.Dial(t, p.GRPCAddr)
		if _, err := ids.Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "grpc|"}); err != nil {
			t.Fatalf("gRPC while HTTP is full: %v", err)
		}
		if n := connectionsOn(t, pid, port); n > maxConns {
			t.Fatalf("%d HTTP connections accepted with --http-max-conns %d", n, maxConns)
		}
		for _, c := range conns {
			_ = c.Close()
		}
		conns = nil
		nextIdentity(t, base, "after") // the slots come back
	})
}

// dribble opens a connection, sends a request whose body it then sends one byte every
// quarter second, and returns nil once the node closes the connection within limit.
func dribble(addr string, i int, limit time.Duration) error {
	c, err := net.DialTimeout("tcp", addr, e2etest.RPCTimeout)
	if err != nil {
		return err
	}
	defer c.Close()
	start := time.Now()
	if _, err := fmt.Fprintf(c, "POST /v1/ids HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", addr); err != nil {
		return err
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(250 * time.Millisecond) // the attacker's pace
		defer tick.Stop()
		for range int(limit / (250 * time.Millisecond)) {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	if err := c.SetReadDeadline(start.Add(limit)); err != nil {
		return err
	}
	answer, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("connection %d dribbling its body still open after %v", i, limit)
	}
	first, _, _ := strings.Cut(string(answer), "\r\n")
	if !strings.Contains(first, "408") && first != "" {
		return fmt.Errorf("connection %d dribbling its body: answer %q, want 408 or none", i, first)
	}
	return nil
}

// hugeBody sends a POST announcing size bytes of body and sends them while it waits for the
// answer until deadline; it returns the answer's status and how much of the body went out
// before it.
func hugeBody(addr string, size int64, deadline time.Time) (int, int64, error) {
	c, err := net.DialTimeout("tcp", addr, e2etest.RPCTimeout)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	if _, err := fmt.Fprintf(c, "POST /v1/ids HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, size); err != nil {
		return 0, 0, err
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	var sent int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		chunk := []byte(strings.Repeat(" ", 64<<10))
		for sent < size && ctx.Err() == nil {
			n, err := c.Write(chunk)
			sent += int64(n)
			if err != nil {
				return
			}
		}
	}()
	if err := c.SetReadDeadline(deadline); err != nil {
		return 0, 0, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	cancel()
	_ = c.Close() // ends the writer
	wg.Wait()
	if err != nil {
		return 0, sent, err
	}
	_ = resp.Body.Close()
	return resp.StatusCode, sent, nil
}
