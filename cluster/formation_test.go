package cluster

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/test/helpers/memnet"
)

// mustOpenAll opens the nodes at the same time, as a new cluster's nodes start, and closes
// them when the test ends.
func mustOpenAll(t *testing.T, cfgs ...Config) []*Node {
	t.Helper()
	nodes := make([]*Node, len(cfgs))
	errs := make([]error, len(cfgs))
	var wg sync.WaitGroup
	for i, cfg := range cfgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), testWait)
			defer cancel()
			nodes[i], errs[i] = Open(ctx, cfg)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %s: %v", cfgs[i].ID, err)
		}
		t.Cleanup(func() { _ = nodes[i].Close() })
	}
	return nodes
}

// tcpCluster returns the configs of a three-node cluster over raft's TCP transport whose
// member IDs carry fresh incarnations, as idnode's are. The nodes listen and dial on mem, an
// in-memory network, so that a test in a testing/synctest bubble forms, elects and commits in
// virtual time: on loopback TCP a starved CPU kept these tests from a leader within testWait.
func tcpCluster(t *testing.T, mem *memnet.Network) []Config {
	t.Helper()
	tags := []string{"A", "B", "C"}
	var peers []Peer
	listeners := make([]net.Listener, len(tags))
	for i, tag := range tags {
		listeners[i] = mem.Listen()
		peers = append(peers, Peer{ID: tag, Address: listeners[i].Addr().String()})
	}
	dial := dialClosedAtEnd(t, mem)
	cfgs := make([]Config, len(tags))
	for i, tag := range tags {
		cfgs[i] = Config{ID: docid.MemberID(tag, uuid.NewString()), DataDir: t.TempDir(), RaftAddr: peers[i].Address, RaftListener: listeners[i], Dial: dial,
			Peers: peers, Logger: quiet}
	}
	return cfgs
}

// relisten gives cfg a new listener at its address on mem, for a node opened again after it
// closed (Close closes its listener).
func relisten(t *testing.T, mem *memnet.Network, cfg *Config) {
	t.Helper()
	l, err := mem.ListenAt(cfg.RaftAddr)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RaftListener = l
}

func memberIDs(t *testing.T, n *Node) []string {
	t.Helper()
	f := n.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range f.Configuration().Servers {
		ids = append(ids, string(s.ID))
	}
	slices.Sort(ids)
	return ids
}

func TestFormationBootstrapsEveryPeerWithItsMemberID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memnet.New()
		cfgs := tcpCluster(t, mem)
		nodes := mustOpenAll(t, cfgs...)
		seedThroughLeader(t, nodes, "formed", 3)
		want := []string{cfgs[0].ID, cfgs[1].ID, cfgs[2].ID}
		slices.Sort(want)
		for _, n := range nodes {
			if got := memberIDs(t, n); !slices.Equal(got, want) {
				t.Errorf("node %s: configuration %v, want %v", n.ID(), got, want)
			}
		}
	})
}

// A node whose data dir was wiped comes back with the same tag and address but a new
// incarnation: it must refuse to start instead of forming or voting.
func TestFormationRefusesNodeWithLostDataDir(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memnet.New()
		cfgs := tcpCluster(t, mem)
		nodes := mustOpenAll(t, cfgs...)
		leader := seedThroughLeader(t, nodes, "wiped", 5)
		victim := nodes[2]
		if victim == leader {
			victim = nodes[1]
		}
		var cfg Config
		for _, c := range cfgs {
			if c.ID == victim.ID() {
				cfg = c
			}
		}
		if err := victim.Close(); err != nil {
			t.Fatal(err)
		}
		tag, _ := docid.MemberTag(cfg.ID)
		cfg.ID, cfg.DataDir = docid.MemberID(tag, uuid.NewString()), t.TempDir()
		relisten(t, mem, &cfg)
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		defer cancel()
		n, err := Open(ctx, cfg)
		if err == nil {
			_ = n.Close()
			t.Fatal("a node with a new data dir started as a member of the existing cluster")
		}
		if !errors.Is(err, ErrClusterExists) || !strings.Contains(err.Error(), "--join") {
			t.Fatalf("err = %v, want ErrClusterExists saying how to rejoin", err)
		}
		if hasRaftState(t, cfg.DataDir) {
			t.Error("the refused node bootstrapped Raft state anyway")
		}
		seedThroughLeader(t, slices.DeleteFunc(slices.Clone(nodes), func(n *Node) bool { return n == victim }), "wiped", 6) // the two others still have their quorum
	})
}

// A node that answered hellos but crashed before its own bootstrap was durable finds the
// cluster its peers formed with it, and joins that configuration.
func TestFormationJoinsTheClusterFormedWithIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memnet.New()
		cfgs := tcpCluster(t, mem)
		nodes := mustOpenAll(t, cfgs...)
		leader := seedThroughLeader(t, nodes, "crashed", 9)
		i := slices.IndexFunc(nodes, func(n *Node) bool { return n != leader })
		if err := nodes[i].Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(filepath.Join(cfgs[i].DataDir, "raft")); err != nil {
			t.Fatal(err)
		}
		relisten(t, mem, &cfgs[i])
		n := mustOpenAll(t, cfgs[i])[0]
		waitFor(t, "the restarted node catches up", func() bool { return n.FSM().Identity("", "crashed") == 9 })
	})
}

// Without every peer answering, a new node cannot tell a new cluster from one that formed
// without it, so it waits, and bootstraps nothing.
func TestFormationWaitsForEveryPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memnet.New()
		cfgs := tcpCluster(t, mem)
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		n, err := Open(ctx, cfgs[0])
		if err == nil {
			_ = n.Close()
			t.Fatal("a node formed a cluster while its peers were down")
		}
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "B at ") || !strings.Contains(err.Error(), "C at ") {
			t.Fatalf("err = %v, want a deadline naming the peers waited for", err)
		}
		if hasRaftState(t, cfgs[0].DataDir) {
			t.Error("the waiting node bootstrapped Raft state")
		}
	})
}

// An impostor at a member's address (another data dir, so another member ID) that accepts
// appends must not count toward the leader's quorum.
func TestMemberGuardDoesNotCountAnotherMember(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memnet.New()
		cfgs := tcpCluster(t, mem)
		nodes := mustOpenAll(t, cfgs...)
		leader := seedThroughLeader(t, nodes, "guard", 1)
		var impostorCfg Config
		for i, n := range nodes {
			if n == leader {
				continue
			}
			if err := n.Close(); err != nil {
				t.Fatal(err)
			}
			impostorCfg = cfgs[i]
		}
		tag, _ := docid.MemberTag(impostorCfg.ID)
		impostorCfg.ID, impostorCfg.DataDir, impostorCfg.NoBootstrap = docid.MemberID(tag, uuid.NewString()), t.TempDir(), true
		relisten(t, mem, &impostorCfg)
		impostor := mustOpenAll(t, impostorCfg)[0]

		// Without the guard the old leader keeps (or regains, with the impostor's vote) its
		// leadership and commits; with it, no attempt ever commits.
		cmd := seedCommand(t, "guard", 2)
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			_, err := leader.Apply(ctx, cmd)
			cancel()
			if err == nil {
				t.Fatal("the leader committed an entry with only an impostor's acknowledgement")
			}
			<-time.After(20 * time.Millisecond)
		}
		if v := impostor.FSM().Identity("", "guard"); v != 0 {
			t.Errorf("the impostor applied the cluster's entries: guard = %d", v)
		}
	})
}

func hasRaftState(t *testing.T, dataDir string) bool {
	t.Helper()
	path := filepath.Join(dataDir, "raft")
	if _, err := os.Stat(filepath.Join(path, "raft.db")); err != nil {
		return false
	}
	logs, err := raftboltdb.NewBoltStore(filepath.Join(path, "raft.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	snaps, err := raft.NewFileSnapshotStore(path, 1, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	existing, err := raft.HasExistingState(logs, logs, snaps)
	if err != nil {
		t.Fatal(err)
	}
	return existing
}

// A cluster fed an entry of a command type its build does not know halts on every node at the
// same index, rather than answering an error and diverging.
func TestUnknownCommandHaltsEveryNode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memnet.New()
		cfgs := tcpCluster(t, mem)
		type halt struct {
			node  string
			index uint64
		}
		halts := make(chan halt, len(cfgs))
		for i := range cfgs {
			id := cfgs[i].ID
			cfgs[i].OnHalt = func(h fsm.Halt) { halts <- halt{id, h.Index} }
		}
		nodes := mustOpenAll(t, cfgs...)
		seedThroughLeader(t, nodes, "halt", 1)
		leader, err := applyThroughLeader(t, nodes, []byte{0x7f, 1, 2, 3})
		if !errors.Is(err, fsm.ErrHalted) {
			t.Fatalf("unknown command answered %v, want ErrHalted", err)
		}
		seen := map[string]uint64{}
		for range nodes {
			select {
			case h := <-halts:
				seen[h.node] = h.index
			case <-time.After(testWait):
				t.Fatalf("halted: %v; want every node", seen)
			}
		}
		for _, n := range nodes {
			if seen[n.ID()] == 0 || seen[n.ID()] != seen[leader.ID()] || !n.FSM().Halted() {
				t.Errorf("node %s halted at %d (leader at %d), FSM halted %v", n.ID(), seen[n.ID()], seen[leader.ID()], n.FSM().Halted())
			}
		}
	})
}

// A power cut between the two writes of a node's bootstrap (the term, then the configuration
// entry) leaves Raft state without a configuration. While the cluster is forming, its new
// peers wait for it to form and it, with no configuration, waits for them: it must bootstrap
// again instead.
func TestFormationResumesABootstrapCutAfterItsTerm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memnet.New()
		cfgs := tcpCluster(t, mem)
		raftDir := filepath.Join(cfgs[1].DataDir, "raft")
		if err := os.Mkdir(raftDir, 0o755); err != nil {
			t.Fatal(err)
		}
		store, err := openLogStore(LogStoreWAL, raftDir, cfgs[1].DataDir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.SetUint64(keyCurrentTerm, bootstrapTerm); err != nil {
			t.Fatal(err)
		}
		if err := store.Close(); err != nil {
			t.Fatal(err)
		}
		nodes := mustOpenAll(t, cfgs...)
		seedThroughLeader(t, nodes, "resumed", 3)
		waitFor(t, "the interrupted node takes part", func() bool { return nodes[1].FSM().Identity("", "resumed") == 3 })
	})
}
