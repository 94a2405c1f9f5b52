// Package loopback hands tests addresses on 127.0.0.1 to listen on.
//
// Only tests import it, so it lives in test/helpers with the other test helpers, not in
// internal/, which holds the daemon's own parts.
package loopback

import (
	"fmt"
	"net"
	"sync"
	"testing"
)

var (
	mu   sync.Mutex
	used = map[int]bool{}
)

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago and that no other call
// in this test binary has returned: two nodes of one test must not be given the same port
// because the kernel handed it out twice in a row.
func FreePort(t testing.TB) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("free port: %v", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		if err := l.Close(); err != nil {
			t.Fatalf("free port: %v", err)
		}
		mu.Lock()
		dup := used[port]
		used[port] = true
		mu.Unlock()
		if !dup {
			return port
		}
	}
	t.Fatalf("free port: no fresh port after 100 tries")
	return 0
}

// FreeAddr is FreePort as "127.0.0.1:port".
func FreeAddr(t testing.TB) string {
	t.Helper()
	return fmt.Sprintf("127.0.0.1:%d", FreePort(t))
}
