//go:build linux

package hostile

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tcpSocket is one of a process's TCP sockets, from the kernel's tables.
type tcpSocket struct {
	localPort int
	state     string // as /proc/net/tcp writes it: "0A" listening, "01" established
}

// TCP states in /proc/net/tcp.
const (
	tcpEstablished = "01"
	tcpListen      = "0A"
)

// tcpSockets are process pid's TCP sockets (IPv4 and IPv6), read from /proc: the inodes of
// its socket descriptors, matched against the kernel's socket tables. It sees every socket,
// also a listener the process never reported.
func tcpSockets(t *testing.T, pid int) []tcpSocket {
	t.Helper()
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(fdDir)
	if err != nil {
		t.Fatalf("descriptors of pid %d: %v", pid, err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
		if err == nil && strings.HasPrefix(target, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = true
		}
	}
	var out []tcpSocket
	for _, table := range []string{"tcp", "tcp6"} {
		f, err := os.Open(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			t.Fatalf("socket table: %v", err)
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the header line
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || !inodes[fields[9]] {
				continue
			}
			_, hexPort, _ := strings.Cut(fields[1], ":")
			port, err := strconv.ParseInt(hexPort, 16, 32)
			if err != nil {
				t.Fatalf("%s: local address %q: %v", table, fields[1], err)
			}
			out = append(out, tcpSocket{localPort: int(port), state: fields[3]})
		}
		_ = f.Close()
	}
	return out
}

// listeningPorts are the TCP ports process pid listens on.
func listeningPorts(t *testing.T, pid int) []int {
	t.Helper()
	var ports []int
	for _, s := range tcpSockets(t, pid) {
		if s.state == tcpListen {
			ports = append(ports, s.localPort)
		}
	}
	return ports
}

// connectionsOn counts the connections process pid has accepted on its port.
func connectionsOn(t *testing.T, pid, port int) int {
	t.Helper()
	n := 0
	for _, s := range tcpSockets(t, pid) {
		if s.state == tcpEstablished && s.localPort == port {
			n++
		}
	}
	return n
}

// rssBytes is process pid's resident set size.
func rssBytes(t *testing.T, pid int) int64 {
	t.Helper()
	n, err := readRSS(pid)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// readRSS reads process pid's resident set size (VmRSS in /proc/pid/status).
func readRSS(pid int) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("status of pid %d: %w", pid, err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("VmRSS %q: %w", rest, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
