package main

import (
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idnode/idnode/test/helpers/prebuilt"
)

// fakeNode is a program in place of idnode that writes say to its log and exits with code.
func fakeNode(t *testing.T, say string, code string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "idnode")
	script := "#!/bin/sh\necho '" + say + "' >&2\nexit " + code + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// countPicks makes pickPorts count its calls, and run taken after each with the ports chosen,
// until the test ends.
func countPicks(t *testing.T, taken func(call int, ports []string)) *int {
	t.Helper()
	calls := 0
	t.Cleanup(func() { pickPorts = freePorts })
	pickPorts = func(count int) ([]string, error) {
		ports, err := freePorts(count)
		if err == nil {
			calls++
			if taken != nil {
				taken(calls, ports)
			}
		}
		return ports, err
	}
	return &calls
}

func start(t *testing.T, bin string, top topology) (*cluster, error) {
	t.Helper()
	dir := t.TempDir()
	cl, err := startCluster(bin, dir, top, slog.New(slog.NewTextHandler(t.Output(), nil)))
	if cl != nil {
		t.Cleanup(cl.teardown)
	}
	return cl, err
}

// Another process (another idcluster's node, or its probe of a free port) takes a port
// between idcluster's choosing it and the node's listening on it: here node C's Raft port, on
// the first attempt. Node C exits; A and B never serve without it, as a new cluster forms
// only once every peer answers. The start goes again on new ports and the cluster serves.
func TestStartAgainWhenANodeLosesItsPort(t *testing.T) {
	bin := prebuilt.Idnode.ForTest(t, "../../..")
	var stolen string
	calls := countPicks(t, func(call int, ports []string) {
		if call > 1 {
			return
		}
		stolen = ports[portsPerNode*2+2] // C's Raft port
		l, err := net.Listen("tcp", stolen)
		if err != nil {
			t.Fatalf("taking C's Raft port %s: %v", stolen, err)
		}
		t.Cleanup(func() { _ = l.Close() })
	})
	cl, err := start(t, bin, topology{Nodes: 3})
	if err != nil {
		t.Fatalf("start with C's Raft port %s taken: %v", stolen, err)
	}
	if *calls != 2 {
		t.Errorf("the ports were chosen %d times, want 2 (once more after C lost its port)", *calls)
	}
	if c := cl.byTag("C"); c.raft == stolen {
		t.Errorf("node C serves Raft on %s, the port another process holds", c.raft)
	}
	if cl.first == "" {
		t.Error("the cluster started without a leader")
	}
	log, err := os.ReadFile(cl.byTag("C").logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), addrInUse) {
		t.Errorf("node C's log does not keep its first attempt's %q:\n%s", addrInUse, log)
	}
}

// A node that exits before it serves, for any other reason than a port, is reported at once
// with its exit status and the end of its log, and the start is not tried again.
func TestStartReportsANodeThatExits(t *testing.T) {
	calls := countPicks(t, nil)
	_, err := start(t, fakeNode(t, "idnode: --peers: no such peer", "3"), topology{Nodes: 3})
	var exited *exitedError
	if !errors.As(err, &exited) {
		t.Fatalf("start of nodes that exit: %v, want the exit of one reported", err)
	}
	for _, want := range []string{"exited (exit status 3) before it served", "--peers: no such peer"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if *calls != 1 {
		t.Errorf("the ports were chosen %d times, want 1: a node that did not lose a port is not started again", *calls)
	}
}

// A start whose nodes lose a port every time gives up after startAttempts, saying why.
func TestStartGivesUpAfterItsAttempts(t *testing.T) {
	calls := countPicks(t, nil)
	_, err := start(t, fakeNode(t, "listen for raft on 127.0.0.1:1: bind: "+addrInUse, "1"), topology{Nodes: 3})
	if err == nil {
		t.Fatal("a start whose nodes all lose their ports succeeded")
	}
	for _, want := range []string{"3 starts, each on new ports", "exit status 1", addrInUse} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if *calls != startAttempts {
		t.Errorf("the ports were chosen %d times, want %d", *calls, startAttempts)
	}
}
