package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Every stored snapshot is reported (the data dir's manifest records it), and a restart whose
// log and snapshots end before the log index it was given is refused.
func TestSnapshotsAreReportedAndAShortLogRefused(t *testing.T) {
	dir := t.TempDir()
	reported := make(chan uint64, 4)
	cfg := Config{ID: "A", DataDir: dir, RaftAddr: "inmem-A", Logger: quiet, Transport: newInmem("inmem-A"),
		OnSnapshot: func(index uint64) { reported <- index }}
	n, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	seed(t, leaderOf(t, n), "snap", 4)
	if err := n.Raft().Snapshot().Error(); err != nil {
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
}

func TestTruncatedRaftStoreIsRefusedWithoutAFault(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{ID: "A", DataDir: dir, RaftAddr: "inmem-A", Logger: quiet, Transport: newInmem("inmem-A")}
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
}
