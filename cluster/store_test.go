package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// Every stored snapshot is reported (the data dir's manifest records it), and a restart whose
// log and snapshots end before the log index it was given is refused.
func TestSnapshotsAreReportedAndAShortLogRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		reported := make(chan uint64, 4)
		cfg := Config{ID: "A", DataDir: dir, RaftAddr: "inmem-A", Logger: quiet, Transport: newInmem("inmem-A"),
			OnSnapshot: func(index uint64) { reported <- index }}
		n, err := Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		seed(t, leaderOf(t, n), "snap", 4)
		if err := n.raft.Snapshot().Error(); err != nil {
			t.Fatal(err)
		}
		select {
		case index := <-reported:
			if index < 2 {
				t.Errorf("snapshot reported at index %d, want at least the seed's", index)
			}
		default:
			t.Fatal("a stored snapshot was not reported")
		}
		last := n.LastIndex()
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}

		cfg.Transport, cfg.MinLogIndex = newInmem("inmem-A"), last+100
		if n, err := Open(context.Background(), cfg); !errors.Is(err, ErrLogBehind) {
			if err == nil {
				_ = n.Close()
			}
			t.Fatalf("log ending before the recorded index: Open = %v, want ErrLogBehind", err)
		}
		cfg.Transport, cfg.MinLogIndex = newInmem("inmem-A"), last
		n, err = Open(context.Background(), cfg)
		if err != nil {
			t.Fatalf("log reaching the recorded index: %v", err)
		}
		_ = n.Close()
	})
}

// A truncated raft.db is refused before bbolt maps it (TestADamagedWALIsRefused: the WAL's).
func TestTruncatedRaftStoreIsRefusedWithoutAFault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		cfg := Config{ID: "A", DataDir: dir, RaftAddr: "inmem-A", Logger: quiet, Transport: newInmem("inmem-A"), LogStore: LogStoreBolt}
		n, err := Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		seed(t, leaderOf(t, n), "cut", 1)
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(filepath.Join(dir, "raft", "raft.db"), 20000); err != nil {
			t.Fatal(err)
		}
		cfg.Transport = newInmem("inmem-A")
		if n, err := Open(context.Background(), cfg); !errors.Is(err, ErrDamagedStore) {
			if err == nil {
				_ = n.Close()
			}
			t.Fatalf("truncated raft.db: Open = %v, want ErrDamagedStore", err)
		}
	})
}

// A caller's own deadline is reported as its deadline, not as no quorum; a bound the proposer
// set with a cause of its own is no quorum.
func TestWaitTellsTheCallersDeadlineFromNoQuorum(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfgs, _ := inmemConfigs("A", "B", "C")
		for i := range cfgs {
			cfgs[i].DataDir = t.TempDir()
			// A lease long enough that the leader, alone, still leads during both calls.
			cfgs[i].Timing = Timing{HeartbeatTimeout: 3 * time.Second, ElectionTimeout: 3 * time.Second,
				LeaderLeaseTimeout: 3 * time.Second, CommitTimeout: 10 * time.Millisecond,
				SnapshotInterval: time.Minute, SnapshotThreshold: 8192}
		}
		nodes := mustOpenAll(t, cfgs...)
		leader := leaderOf(t, nodes...)
		seed(t, leader, "w", 1)
		for _, n := range nodes {
			if n != leader {
				if err := n.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, err := leader.Apply(ctx, seedCommand(t, "w", 2)); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrNoQuorum) {
			t.Errorf("the caller's deadline: %v, want context.DeadlineExceeded and not ErrNoQuorum", err)
		}
		bound := errors.New("batch bound")
		ctx, cancel = context.WithTimeoutCause(context.Background(), 50*time.Millisecond, bound)
		defer cancel()
		if _, err := leader.Apply(ctx, seedCommand(t, "w", 3)); !errors.Is(err, ErrNoQuorum) || !errors.Is(err, bound) {
			t.Errorf("a proposer's bound: %v, want ErrNoQuorum wrapping its cause", err)
		}
	})
}

// A damaged snapshot was refused as raft's "failed to load any existing
// snapshots", naming no file. The refusal names the file and matches ErrDamagedStore.
func TestDamagedSnapshotIsNamed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		cfg := Config{ID: "A", DataDir: dir, RaftAddr: "inmem-A", Logger: quiet, Transport: newInmem("inmem-A")}
		n, err := Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		seed(t, leaderOf(t, n), "snap", 4)
		if err := n.raft.Snapshot().Error(); err != nil {
			t.Fatal(err)
		}
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
		states, err := filepath.Glob(filepath.Join(dir, "raft", "snapshots", "*", "state.bin"))
		if err != nil || len(states) != 1 {
			t.Fatalf("snapshot files: %v, %v; want one", states, err)
		}
		data, err := os.ReadFile(states[0])
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 0xff
		if err := os.WriteFile(states[0], data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg.Transport = newInmem("inmem-A")
		n, err = Open(context.Background(), cfg)
		if err == nil {
			_ = n.Close()
		}
		if !errors.Is(err, ErrDamagedStore) || !strings.Contains(err.Error(), states[0]) {
			t.Fatalf("damaged snapshot: Open = %v; want ErrDamagedStore naming %s", err, states[0])
		}
	})
}
