package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/tlsconfig"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/test/helpers/memnet"
	"github.com/idnode/idnode/test/helpers/poll"
)

const (
	testWait = 20 * time.Second // every poll in these tests ends after this
	testPoll = 10 * time.Millisecond
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	poll.Until(t, what, testWait, testPoll, func() error {
		if !cond() {
			return errors.New("not yet")
		}
		return nil
	})
}

func leaderOf(t *testing.T, nodes ...*Node) *Node {
	t.Helper()
	var leader *Node
	waitFor(t, "a leader is elected", func() bool {
		for _, n := range nodes {
			if n.IsLeader() {
				leader = n
				return true
			}
		}
		return false
	})
	return leader
}

func seedCommand(t *testing.T, name string, value int64) []byte {
	t.Helper()
	cmd, err := fsm.Encode(fsm.SeedIdentityCommand, &raftv1.SeedIdentity{Name: name, Value: value})
	if err != nil {
		t.Fatal(err)
	}
	return cmd
}

func seed(t *testing.T, n *Node, name string, value int64) {
	t.Helper()
	cmd := seedCommand(t, name, value)
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	if _, err := n.Apply(ctx, cmd); err != nil {
		t.Fatalf("apply on %s: %v", n.ID(), err)
	}
}

// seedThroughLeader seeds name to value through whichever of nodes leads (applyThroughLeader)
// and returns the node that committed it. A seed only raises a counter, so a seed sent twice
// leaves what one leaves.
func seedThroughLeader(t *testing.T, nodes []*Node, name string, value int64) *Node {
	t.Helper()
	n, err := applyThroughLeader(t, nodes, seedCommand(t, name, value))
	if err != nil {
		t.Fatalf("seed %s=%d through %s: %v", name, value, n.ID(), err)
	}
	return n
}

// applyThroughLeader applies cmd through whichever of nodes leads, and through the next leader
// when that one loses its leadership first, and returns the node that answered and its error.
// On loopback TCP in real time a leader's 200 ms lease (DefaultTiming) lapses when a loaded
// machine does not run it for that long, between the test finding the leader and the entry
// committing; every such error of Node says the call is safe to retry on another node.
func applyThroughLeader(t *testing.T, nodes []*Node, cmd []byte) (*Node, error) {
	t.Helper()
	var answered *Node
	var answer error
	poll.Until(t, "a command applied through a leader", testWait, testPoll, func() error {
		i := slices.IndexFunc(nodes, (*Node).IsLeader)
		if i < 0 {
			return errors.New("no node leads")
		}
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		defer cancel()
		_, err := nodes[i].Apply(ctx, cmd)
		if errors.Is(err, ErrNotLeader) || errors.Is(err, ErrLeadershipLost) || errors.Is(err, ErrNoQuorum) || errors.Is(err, ErrHandingOver) {
			return fmt.Errorf("apply on %s: %w", nodes[i].ID(), err)
		}
		answered, answer = nodes[i], err
		return nil
	})
	return answered, answer
}

// inmemCluster opens tags as one cluster over raft's in-memory transport, all connected.
func inmemCluster(t *testing.T, dirs map[string]string, tags ...string) map[string]*Node {
	t.Helper()
	return inmemClusterWith(t, dirs, func(_ string, tr *raft.InmemTransport) raft.Transport { return tr }, tags...)
}

// inmemClusterWith is inmemCluster with each node's transport as wrap makes it of its
// in-memory one, so that a test can slow down what a node sends.
func inmemClusterWith(t *testing.T, dirs map[string]string, wrap func(tag string, tr *raft.InmemTransport) raft.Transport, tags ...string) map[string]*Node {
	t.Helper()
	cfgs, trans := inmemConfigs(tags...)
	nodes := map[string]*Node{}
	for i, tag := range tags {
		cfgs[i].DataDir, cfgs[i].Transport = dirs[tag], wrap(tag, trans[tag])
		n, err := Open(context.Background(), cfgs[i])
		if err != nil {
			t.Fatalf("open %s: %v", tag, err)
		}
		nodes[tag] = n
	}
	return nodes
}

// inmemConfigs are the configs of a cluster of tags over raft's in-memory transport, every
// transport connected to every other, with no data dir set.
func inmemConfigs(tags ...string) ([]Config, map[string]*raft.InmemTransport) {
	trans := map[string]*raft.InmemTransport{}
	var peers []Peer
	for _, tag := range tags {
		addr := raft.ServerAddress("inmem-" + tag)
		_, trans[tag] = raft.NewInmemTransport(addr)
		peers = append(peers, Peer{ID: tag, Address: string(addr)})
	}
	for _, a := range tags {
		for _, b := range tags {
			if a != b {
				trans[a].Connect(trans[b].LocalAddr(), trans[b])
			}
		}
	}
	cfgs := make([]Config, len(tags))
	for i, tag := range tags {
		cfgs[i] = Config{ID: tag, RaftAddr: "inmem-" + tag, Peers: peers, Transport: trans[tag], Logger: quiet}
	}
	return cfgs, trans
}

func closeAll(t *testing.T, nodes map[string]*Node) {
	t.Helper()
	for tag, n := range nodes {
		if err := n.Close(); err != nil {
			t.Errorf("close %s: %v", tag, err)
		}
	}
}

func writePeersJSON(t *testing.T, dataDir, content string) string {
	t.Helper()
	path := filepath.Join(dataDir, "raft", PeersFile)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPeersJSONRecoversALostQuorum is the "lost quorum for ever" procedure: B and C are gone
// for good, A alone cannot elect itself, peers.json listing only A makes it a cluster of one
// that keeps every committed value.
func TestPeersJSONRecoversALostQuorum(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dirs := map[string]string{"A": t.TempDir(), "B": t.TempDir(), "C": t.TempDir()}
		nodes := inmemCluster(t, dirs, "A", "B", "C")
		leader := leaderOf(t, nodes["A"], nodes["B"], nodes["C"])
		seed(t, leader, "orders", 41)
		waitFor(t, "A applied the seed", func() bool { return nodes["A"].FSM().Identity("", "orders") == 41 })
		closeAll(t, nodes)

		// A wrong file stops the node and is left in place.
		path := writePeersJSON(t, dirs["A"], `[{"id": "B", "address": "inmem-B", "non_voter": false}]`)
		if _, err := Open(context.Background(), Config{ID: "A", DataDir: dirs["A"], RaftAddr: "inmem-A", Logger: quiet, Transport: newInmem("inmem-A")}); err == nil ||
			!strings.Contains(err.Error(), "does not list this node") {
			t.Fatalf("peers.json without this node: %v", err)
		}

		writePeersJSON(t, dirs["A"], `[{"id": "A", "address": "inmem-A", "non_voter": false}]`)
		a, err := Open(context.Background(), Config{ID: "A", DataDir: dirs["A"], RaftAddr: "inmem-A", Logger: quiet, Transport: newInmem("inmem-A")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("peers.json still there after recovery: %v", err)
		}
		if _, err := os.Stat(path + ".applied"); err != nil {
			t.Errorf("peers.json.applied: %v", err)
		}
		leaderOf(t, a)
		if got := a.FSM().Identity("", "orders"); got != 41 {
			t.Errorf("after recovery orders = %d, want 41", got)
		}
		seed(t, a, "orders", 50)
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}

		// The new configuration is durable: the next start needs no file.
		a, err = Open(context.Background(), Config{ID: "A", DataDir: dirs["A"], RaftAddr: "inmem-A", Logger: quiet, Transport: newInmem("inmem-A")})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		leaderOf(t, a)
		waitFor(t, "after restart orders = 50", func() bool { return a.FSM().Identity("", "orders") == 50 })
		servers := a.raft.GetConfiguration().Configuration().Servers
		if len(servers) != 1 || servers[0].ID != "A" {
			t.Errorf("configuration after recovery: %v", servers)
		}
	})
}

func TestPeersJSONOnAnEmptyDataDirIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "raft"), 0o700); err != nil {
			t.Fatal(err)
		}
		writePeersJSON(t, dir, `[{"id": "A", "address": "inmem-A", "non_voter": false}]`)
		if n, err := Open(context.Background(), Config{ID: "A", DataDir: dir, RaftAddr: "inmem-A", Logger: quiet, Transport: newInmem("inmem-A")}); err == nil {
			n.Close()
			t.Fatal("recovery of a data dir with no Raft state was accepted")
		}
	})
}

func newInmem(addr string) *raft.InmemTransport {
	_, tr := raft.NewInmemTransport(raft.ServerAddress(addr))
	return tr
}

func tlsNode(t *testing.T, ca *tlsconfig.Authority) *tlsconfig.Node {
	t.Helper()
	certPEM, keyPEM, err := ca.Issue("node", []string{"127.0.0.1"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	n, err := tlsconfig.NewNode(certPEM, keyPEM, ca.CertPEM)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// mutualTLSConfigs are three nodes A, B and C that speak mutual TLS, their certificates
// signed by one test CA, over the TCP transport: they listen and dial on mem, an in-memory
// network for a test inside a testing/synctest bubble.
func mutualTLSConfigs(t *testing.T, mem *memnet.Network) []Config {
	ca, err := tlsconfig.NewAuthority("test CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	tags := []string{"A", "B", "C"}
	var peers []Peer
	listeners := make([]net.Listener, len(tags))
	for i, tag := range tags {
		listeners[i] = mem.Listen()
		peers = append(peers, Peer{ID: tag, Address: listeners[i].Addr().String()})
	}
	cfgs := make([]Config, len(tags))
	for i, tag := range tags {
		cfgs[i] = Config{ID: tag, DataDir: t.TempDir(), RaftAddr: peers[i].Address, RaftListener: listeners[i], Dial: dialClosedAtEnd(t, mem),
			Peers: peers, Logger: quiet, TLS: tlsNode(t, ca).Peer()}
	}
	return cfgs
}

// dialClosedAtEnd is mem.Dial, and closes every connection it made when the test ends, after
// the nodes made with it close (a cleanup registered before theirs runs after them). raft's
// NetworkTransport.Close closes neither its pool of connections to peers nor the ones peers
// opened to it, whose goroutines read until the peer closes its end; a bubble's test may not
// end while they wait.
func dialClosedAtEnd(t *testing.T, mem *memnet.Network) func(ctx context.Context, address string) (net.Conn, error) {
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return func(ctx context.Context, address string) (net.Conn, error) {
		c, err := mem.Dial(ctx, address)
		if err == nil {
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
		return c, err
	}
}

// TestMutualTLSTransport forms a three-node cluster over the TCP transport with mutual TLS,
// and checks a plaintext dial to a node's Raft port gets nothing out of it and that OnApply
// observes. It runs in a bubble on an in-memory network: the handshakes and elections happen
// in virtual time, so a starved CPU cannot keep a leader from being elected in time (on
// loopback TCP, at a load average of 60, none was within 20 s).
func TestMutualTLSTransport(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memnet.New()
		applied := make(chan time.Duration, 100)
		cfgs := mutualTLSConfigs(t, mem)
		for i := range cfgs {
			cfgs[i].OnApply = func(_ context.Context, d time.Duration) { applied <- d }
		}
		nodes := mustOpenAll(t, cfgs...)
		seedThroughLeader(t, nodes, "tls", 7)
		for _, n := range nodes {
			waitFor(t, "node "+n.ID()+" applied the seed", func() bool { return n.FSM().Identity("", "tls") == 7 })
		}
		select {
		case d := <-applied:
			// In virtual time a commit that waited on no timer took no time.
			if d < 0 {
				t.Errorf("OnApply observed %v", d)
			}
		default:
			t.Error("OnApply was not called")
		}

		plain := &streamLayer{dial: mem.Dial}
		conn, err := plain.Dial(raft.ServerAddress(cfgs[0].RaftAddr), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		_, _ = conn.Write([]byte{0, 0x81, 0xa4}) // the start of a raft RPC, not a TLS hello
		if n, err := conn.Read(make([]byte, 64)); err == nil && n > 0 {
			// A TLS server answers garbage with an alert record (type 21) and closes.
			buf := make([]byte, 1)
			if _, err := conn.Read(buf); err == nil {
				t.Error("a plaintext peer got an answer from a TLS Raft port")
			}
		}
	})
}
