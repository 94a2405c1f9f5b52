package loopback

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// holderEnv, in a child run of TestNoTwoProcessesShareAPort, is how many ports the child takes.
const holderEnv = "IDNODE_TEST_LOOPBACK_HOLD"

// A port handed out is never one the kernel hands out itself (to a connection's local end or
// a listener on port 0), so a node that is down for a while finds its port free again.
func TestPortsAreOutsideTheEphemeralRange(t *testing.T) {
	lo, hi := ephemeralRange()
	for range 200 {
		if p := FreePort(t); p >= lo && p <= hi {
			t.Fatalf("FreePort = %d, inside the kernel's ephemeral range %d-%d", p, lo, hi)
		}
	}
}

// Test binaries run side by side (go test runs packages in parallel), each with its own
// nodes: no two processes alive at once are given the same port.
func TestNoTwoProcessesShareAPort(t *testing.T) {
	if n := os.Getenv(holderEnv); n != "" {
		holdPorts(t, n)
		return
	}
	const holders, each = 4, 100
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	owner := map[int]string{}
	claim := func(p int, who string) {
		if prev, ok := owner[p]; ok {
			t.Errorf("port %d was given to %s and to %s", p, prev, who)
		}
		owner[p] = who
	}
	var releases []io.Closer
	defer func() {
		for _, r := range releases {
			_ = r.Close()
		}
	}()
	// All the holders are started before any is read from, so they take their ports at once.
	var outs []*bufio.Reader
	for range holders {
		cmd := exec.CommandContext(t.Context(), self, "-test.run=^TestNoTwoProcessesShareAPort$", "-test.timeout=1m")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", holderEnv, each))
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		releases = append(releases, stdin)
		t.Cleanup(func() { _ = cmd.Wait() })
		outs = append(outs, bufio.NewReader(stdout))
	}
	for range each {
		claim(FreePort(t), "this process")
	}
	for i, out := range outs {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("holder %d: %v", i, err)
		}
		const mark = "ports:"
		at := strings.Index(line, mark)
		if at < 0 {
			t.Fatalf("holder %d wrote %q", i, line)
		}
		fields := strings.Fields(line[at+len(mark):])
		if len(fields) != each {
			t.Fatalf("holder %d took %d ports, want %d", i, len(fields), each)
		}
		for _, f := range fields {
			p, err := strconv.Atoi(f)
			if err != nil {
				t.Fatal(err)
			}
			claim(p, fmt.Sprintf("holder %d", i))
		}
	}
}

// holdPorts is a holder's part: take n ports, print them, and keep them until stdin closes.
func holdPorts(t *testing.T, n string) {
	count, err := strconv.Atoi(n)
	if err != nil {
		t.Fatal(err)
	}
	ports := make([]string, count)
	for i := range ports {
		ports[i] = strconv.Itoa(FreePort(t))
	}
	fmt.Printf("ports: %s\n", strings.Join(ports, " "))
	_, _ = io.Copy(io.Discard, os.Stdin)
}
