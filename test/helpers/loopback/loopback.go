// Package loopback hands tests addresses on 127.0.0.1 to listen on.
//
// Only tests import it, so it lives in test/helpers with the other test helpers, not in
// internal/, which holds the daemon's own parts.
package loopback

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/idnode/idnode/test/helpers/filelock"
)

// lowestPort is the lowest port handed out: below it are the ports services (PostgreSQL, the
// idnode defaults and the chaos suite's fixed ports) listen on.
const lowestPort = 20000

var (
	mu sync.Mutex
	// held is every port this process was given, by the file whose lock reserves it; the
	// files stay open (and locked) until the process ends.
	held = map[int]*os.File{}
)

// FreePort returns a TCP port on 127.0.0.1 that is free, outside the range the kernel hands
// out by itself, and reserved to this process until it ends. A port from the kernel's range
// (a listener on port 0) could be handed to another process as soon as it was let go: a node
// that a test kills and restarts a minute later found its port taken by another test
// binary's node, or by a connection's local end. Reservations are lock files under
// os.TempDir(), so every test binary on the machine honours them, and the kernel drops a lock
// when its process dies, so none is left behind.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := Reserve()
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	return port
}

// FreeAddr is FreePort as "127.0.0.1:port".
func FreeAddr(t testing.TB) string {
	t.Helper()
	return fmt.Sprintf("127.0.0.1:%d", FreePort(t))
}

// Reserve is FreePort for a program that is not a test, such as a harness that starts
// clusters for other test programs: it takes the first port, from a random one on, that no
// process holds and that is free now, and holds it until the process ends.
func Reserve() (int, error) {
	candidates := portsOutsideEphemeralRange()
	if len(candidates) == 0 {
		lo, hi := ephemeralRange()
		return 0, fmt.Errorf("the kernel's ephemeral port range %d-%d (%s) leaves no port from %d up to tests: narrow it",
			lo, hi, ephemeralRangeFile, lowestPort)
	}
	dir := filepath.Join(os.TempDir(), "idnode-test-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return 0, fmt.Errorf("the directory of port reservations: %w", err)
	}
	mu.Lock()
	defer mu.Unlock()
	start := rand.IntN(len(candidates))
	for i := range candidates {
		port := candidates[(start+i)%len(candidates)]
		if held[port] != nil {
			continue
		}
		lock, err := filelock.TryLock(filepath.Join(dir, strconv.Itoa(port)))
		if err != nil {
			return 0, fmt.Errorf("a reservation: %w", err)
		}
		if lock == nil {
			continue // another process holds it
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			_ = lock.Close() // in use by something that takes no reservations
			continue
		}
		if err := l.Close(); err != nil {
			_ = lock.Close()
			return 0, err
		}
		held[port] = lock
		return port, nil
	}
	return 0, fmt.Errorf("all %d ports outside the kernel's ephemeral range are held or in use", len(candidates))
}

// portsOutsideEphemeralRange is every port from lowestPort up that the kernel does not hand
// out by itself.
func portsOutsideEphemeralRange() []int {
	lo, hi := ephemeralRange()
	var ports []int
	for p := lowestPort; p <= 65535; p++ {
		if p < lo || p > hi {
			ports = append(ports, p)
		}
	}
	return ports
}
