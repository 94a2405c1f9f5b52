package cluster

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/raft"
)

// failingStore fails every write with err while err is set.
type failingStore struct {
	raft.LogStore
	raft.StableStore
	err error
}

func (f *failingStore) StoreLogs([]*raft.Log) error { return f.err }

func TestAFullDiskIsStorageFullWithThePathAndBacksOffElections(t *testing.T) {
	inner := raft.NewInmemStore()
	store := &failingStore{LogStore: inner, StableStore: inner}
	type timing struct{ heartbeat, election time.Duration }
	var set []timing
	normal := Timing{HeartbeatTimeout: 500 * time.Millisecond, ElectionTimeout: 500 * time.Millisecond}
	g := &storageGuard{LogStore: store, StableStore: store, path: "/data/raft/raft.db", normal: normal,
		log:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		timing: func(h, e time.Duration) { set = append(set, timing{h, e}) }}

	// bbolt reports a failed grow with %s, which drops the errno.
	store.err = fmt.Errorf("file resize error: %s", &os.PathError{Op: "truncate", Path: "raft.db", Err: syscall.ENOSPC})
	for range 8 {
		err := g.StoreLogs(nil)
		if !errors.Is(err, ErrStorageFull) || !strings.Contains(err.Error(), "/data/raft/raft.db") {
			t.Fatalf("write on a full disk: %v; want ErrStorageFull naming the file", err)
		}
	}
	if !errors.Is(g.Fault(), ErrStorageFull) {
		t.Fatalf("Fault() = %v after failed writes", g.Fault())
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		if i >= len(set) || set[i] != (timing{w, w}) {
			t.Fatalf("election timing after each failure %v; want heartbeat = election = %v", set, want)
		}
	}

	store.err = nil
	if err := g.SetUint64([]byte("CurrentTerm"), 9); err != nil || g.Fault() == nil {
		t.Fatalf("an election's term write: %v, fault %v; want it written and the fault kept (no append yet)", err, g.Fault())
	}
	if err := g.StoreLogs(nil); err != nil || g.Fault() != nil {
		t.Fatalf("a write after space came back: %v, fault %v; want both nil", err, g.Fault())
	}
	if last := set[len(set)-1]; last != (timing{normal.HeartbeatTimeout, normal.ElectionTimeout}) {
		t.Fatalf("timing after recovery %v, want the normal %v", last, normal)
	}

	store.err = &os.PathError{Op: "write", Path: "raft.db", Err: syscall.EIO}
	if err := g.StoreLogs(nil); !errors.Is(err, ErrStorageFailed) || errors.Is(err, ErrStorageFull) || !errors.Is(err, syscall.EIO) {
		t.Fatalf("an I/O error: %v; want ErrStorageFailed wrapping EIO", err)
	}
	if set[len(set)-1] != (timing{time.Second, time.Second}) {
		t.Fatalf("the backoff did not start over after a recovery: %v", set)
	}
}

// failingTerm fails every SetUint64.
type failingTerm struct {
	raft.StableStore
	err error
}

func (f failingTerm) SetUint64([]byte, uint64) error { return f.err }

// Raft panics when it cannot write the current term. The guard halts the
// node first, with the file named; a vote's term, which raft handles itself, only fails.
func TestAFailedTermWriteHaltsNamingTheFile(t *testing.T) {
	var halted []error
	g := &storageGuard{StableStore: failingTerm{StableStore: raft.NewInmemStore(), err: syscall.EIO}, path: "/data/raft/raft.db",
		log: slog.New(slog.NewTextHandler(io.Discard, nil)), halt: func(err error) { halted = append(halted, err) }}
	if err := g.SetUint64([]byte("LastVoteTerm"), 3); err == nil || len(halted) != 0 {
		t.Fatalf("a failed vote write: %v, halted %v; want the error and no halt", err, halted)
	}
	err := g.SetUint64([]byte("CurrentTerm"), 3)
	if err == nil || len(halted) != 1 || !strings.Contains(halted[0].Error(), "/data/raft/raft.db") || !errors.Is(halted[0], ErrStorageFailed) {
		t.Fatalf("a failed term write: %v, halted %v; want one halt naming /data/raft/raft.db", err, halted)
	}
}
