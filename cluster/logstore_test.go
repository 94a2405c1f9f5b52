package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/raft"
)

// A data dir keeps the store it holds whatever is asked for by default, an explicit ask for
// the other one is refused, and only a data dir without a store gets the one asked for.
func TestADataDirKeepsItsLogStore(t *testing.T) {
	for _, held := range LogStores {
		t.Run(string(held), func(t *testing.T) {
			raftDir := t.TempDir()
			if got, err := chooseLogStore(raftDir, ""); err != nil || got != DefaultLogStore {
				t.Fatalf("new data dir, nothing asked: %q, %v; want the default %q", got, err, DefaultLogStore)
			}
			if got, err := chooseLogStore(raftDir, held); err != nil || got != held {
				t.Fatalf("new data dir, %q asked: %q, %v", held, got, err)
			}
			s, err := openLogStore(held, raftDir, "data", nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			for _, asked := range []LogStore{"", held} {
				if got, err := chooseLogStore(raftDir, asked); err != nil || got != held {
					t.Fatalf("data dir holding %q, %q asked: %q, %v; want %q", held, asked, got, err, held)
				}
			}
			other := LogStoreBolt
			if held == LogStoreBolt {
				other = LogStoreWAL
			}
			_, err = chooseLogStore(raftDir, other)
			if !errors.Is(err, ErrLogStoreMismatch) || !strings.Contains(err.Error(), "--raft-log="+string(held)) {
				t.Fatalf("data dir holding %q, %q asked: %v; want ErrLogStoreMismatch telling to use --raft-log=%s", held, other, err, held)
			}
		})
	}
	if _, err := chooseLogStore(t.TempDir(), "leveldb"); !errors.Is(err, ErrUnknownLogStore) {
		t.Fatalf("unknown store: %v, want ErrUnknownLogStore", err)
	}
}

// A second open of a WAL another holder has open is refused at once: raft-wal's own bbolt
// lock would wait forever.
func TestASecondOpenOfTheWALIsRefused(t *testing.T) {
	raftDir := t.TempDir()
	s, err := openLogStore(LogStoreWAL, raftDir, "data", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan error, 1)
	go func() {
		s2, err := openLogStore(LogStoreWAL, raftDir, "data", nil)
		if err == nil {
			s2.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "locked") {
			t.Fatalf("second open: %v, want the data dir refused as locked", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("second open of the WAL still waiting after 10s")
	}
}

// Every store keeps its entries across a restart and is refused when it ends before the index
// the data dir is known to have held.
func TestEachLogStoreKeepsItsEntriesAndIsRefusedWhenBehind(t *testing.T) {
	for _, kind := range LogStores {
		t.Run(string(kind), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				dir := t.TempDir()
				cfg := Config{ID: "A", DataDir: dir, RaftAddr: "inmem-A", Logger: quiet, Transport: newInmem("inmem-A"), LogStore: kind}
				n, err := Open(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				if n.LogStore() != kind {
					t.Fatalf("LogStore() = %q, want %q", n.LogStore(), kind)
				}
				// raft asks the store it was given whether it refuses gaps, and after installing a
				// snapshot leaves one unless it does: the guard must pass the WAL's answer on.
				if m, ok := raft.LogStore(n.guard).(raft.MonotonicLogStore); !ok || m.IsMonotonic() != (kind == LogStoreWAL) {
					t.Fatalf("raft sees a monotonic %s store: %v; want %v", kind, ok && m.IsMonotonic(), kind == LogStoreWAL)
				}
				seed(t, leaderOf(t, n), "kept", 7)
				last := n.LastIndex()
				if err := n.Close(); err != nil {
					t.Fatal(err)
				}

				cfg.Transport, cfg.LogStore, cfg.MinLogIndex = newInmem("inmem-A"), "", last
				n, err = Open(context.Background(), cfg)
				if err != nil {
					t.Fatalf("restart: %v", err)
				}
				if n.LogStore() != kind || n.LastIndex() < last {
					t.Fatalf("restart: store %q last index %d; want %q reaching %d", n.LogStore(), n.LastIndex(), kind, last)
				}
				waitFor(t, "the seeded counter applied again", func() bool { return n.FSM().Identity("", "kept") == 7 })
				if err := n.Close(); err != nil {
					t.Fatal(err)
				}

				cfg.Transport, cfg.MinLogIndex = newInmem("inmem-A"), last+100
				if n, err := Open(context.Background(), cfg); !errors.Is(err, ErrLogBehind) || !strings.Contains(err.Error(), kind.path(filepath.Join(dir, "raft"))) {
					if err == nil {
						_ = n.Close()
					}
					t.Fatalf("log ending before the recorded index: Open = %v, want ErrLogBehind naming the store", err)
				}
			})
		})
	}
}

// A WAL whose files were damaged is refused at start, naming it: a damaged meta file as a
// damaged store; a damaged tail segment, which raft-wal takes for a write torn by a crash and
// drops, by the index the data dir is known to have held (ErrLogBehind).
func TestADamagedWALIsRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		want   error
		damage func(t *testing.T, walDir string)
	}{
		{"truncated meta file", ErrDamagedStore, func(t *testing.T, walDir string) {
			if err := os.Truncate(filepath.Join(walDir, walMetaFile), 1000); err != nil {
				t.Fatal(err)
			}
		}},
		{"overwritten tail segment", ErrLogBehind, func(t *testing.T, walDir string) {
			segs, err := filepath.Glob(filepath.Join(walDir, "*.wal"))
			if err != nil || len(segs) == 0 {
				t.Fatalf("no segment in %s: %v", walDir, err)
			}
			if err := os.WriteFile(segs[0], []byte(strings.Repeat("x", 4096)), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				dir := t.TempDir()
				cfg := Config{ID: "A", DataDir: dir, RaftAddr: "inmem-A", Logger: quiet, Transport: newInmem("inmem-A"), LogStore: LogStoreWAL}
				n, err := Open(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				seed(t, leaderOf(t, n), "cut", 1)
				last := n.LastIndex()
				if err := n.Close(); err != nil {
					t.Fatal(err)
				}
				walDir := filepath.Join(dir, "raft", "wal")
				c.damage(t, walDir)
				cfg.Transport, cfg.MinLogIndex = newInmem("inmem-A"), last
				if n, err := Open(context.Background(), cfg); !errors.Is(err, c.want) || !strings.Contains(err.Error(), walDir) {
					if err == nil {
						_ = n.Close()
					}
					t.Fatalf("%s: Open = %v, want %v naming %s", c.name, err, c.want, walDir)
				}
			})
		})
	}
}

// BenchmarkStoreLogs appends one batch of 27 entries of 120 bytes (a busy leader's identity
// round) per iteration to each store, fsync on, in a temp dir:
//
//	go test -run NONE -bench StoreLogs ./cluster/
func BenchmarkStoreLogs(b *testing.B) {
	for _, kind := range LogStores {
		b.Run("store="+string(kind), func(b *testing.B) {
			s, err := openLogStore(kind, b.TempDir(), "bench", nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			batch := make([]*raft.Log, 27)
			for i := range batch {
				batch[i] = &raft.Log{Type: raft.LogCommand, Term: 1, Data: make([]byte, 120)}
			}
			took := make([]time.Duration, 0, b.N)
			next := uint64(1)
			b.ResetTimer()
			for range b.N {
				for _, l := range batch {
					l.Index = next
					next++
				}
				start := time.Now()
				if err := s.StoreLogs(batch); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
			if b.N >= 100 {
				fmt.Fprintf(os.Stdout, "%s: p50 %v p99 %v over %d batches\n", b.Name(), took[len(took)/2], took[len(took)*99/100], b.N)
			}
		})
	}
}

// raft clears a log suffix when a follower drops entries a new leader never committed.
// raft-wal v0.4.0 then marked the tail segment sealed without writing its index, and could not
// read it after a restart (hashicorp/raft-wal#31): raft panicked in NewRaft, or the start was
// refused as a damaged store. The WAL must read back what is left and append after it.
func TestAWALReadsBackAfterATailTruncation(t *testing.T) {
	raftDir := t.TempDir()
	s, err := openLogStore(LogStoreWAL, raftDir, "data", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= 10; i++ {
		if err := s.StoreLogs([]*raft.Log{{Index: i, Term: 1, Type: raft.LogCommand, Data: []byte("x")}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteRange(9, 10); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = openLogStore(LogStoreWAL, raftDir, "data", nil)
	if err != nil {
		t.Fatalf("WAL after a tail truncation and a restart: %v", err)
	}
	defer s.Close()
	if last, err := s.LastIndex(); err != nil || last != 8 {
		t.Fatalf("last index after truncating 9-10: %d, %v; want 8", last, err)
	}
	if err := s.StoreLogs([]*raft.Log{{Index: 9, Term: 2, Type: raft.LogCommand, Data: []byte("y")}}); err != nil {
		t.Fatalf("append after the truncation: %v", err)
	}
	var l raft.Log
	for i, term := range map[uint64]uint64{1: 1, 8: 1, 9: 2} {
		if err := s.GetLog(i, &l); err != nil || l.Term != term {
			t.Fatalf("entry %d: term %d, %v; want term %d", i, l.Term, err, term)
		}
	}
}

// smallTmpfs mounts a tmpfs of size bytes and returns its mount point. Mounting needs root:
// without it the test skips, except in CI (CI=true), where a skip would hide the test.
func smallTmpfs(t *testing.T, size int) (root string) {
	root = t.TempDir()
	if err := syscall.Mount("tmpfs", root, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("cannot mount a tmpfs (mount needs root): %v", err)
		}
		t.Skipf("no tmpfs (mount needs root): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(root, 0); err != nil {
			t.Errorf("unmount %s: %v", root, err)
		}
	})
	return root
}

// fullTmpfs mounts a tmpfs of size bytes and returns its mount point and a func that frees
// the ballast that fill writes there.
func fullTmpfs(t *testing.T, size int) (root string, free func()) {
	root = smallTmpfs(t, size)
	return root, func() {
		if err := os.Remove(filepath.Join(root, "ballast")); err != nil {
			t.Fatal(err)
		}
	}
}

// fill writes the ballast until the file system under root has no page left, then gives
// back spare bytes of it.
func fill(t *testing.T, root string, spare int64) {
	ballast, err := os.Create(filepath.Join(root, "ballast"))
	if err != nil {
		t.Fatal(err)
	}
	defer ballast.Close()
	for size := 1 << 20; size >= 4096; size /= 2 {
		chunk := make([]byte, size)
		for err == nil {
			_, err = ballast.Write(chunk)
		}
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("filling the disk: %v, want ENOSPC", err)
		}
		err = nil
	}
	st, err := ballast.Stat()
	if err != nil || st.Size() < spare {
		t.Fatalf("ballast of %d bytes, %v: cannot give back %d", st.Size(), err, spare)
	}
	if err := ballast.Truncate(st.Size() - spare); err != nil {
		t.Fatal(err)
	}
}

// On a full disk the WAL's append fails as ErrStorageFull naming the WAL, as raft.db's does
// (TestFullDisk in test/e2e/durability covers it end to end), and once space is freed the
// same open WAL appends again and goes on into new segments. Segments are preallocated, so an
// append fails when the tail segment is full: on a full disk its index does not fit
// (raft-wal v0.4.0 kept failing after that one failed write, hashicorp/raft-wal#32); on a
// nearly full one the index fits but the next segment does not, and raft-wal v0.4.2 only
// logs that and refuses every later append with "segment is sealed" until it is reopened.
func TestAWALOnAFullDiskIsStorageFullAndResumes(t *testing.T) {
	for _, c := range []struct {
		name  string
		spare int64
	}{
		{"full", 0},
		{"no room for the next segment", walSegmentSize / 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, free := fullTmpfs(t, 5*walSegmentSize)
			raftDir := filepath.Join(root, "raft")
			if err := os.Mkdir(raftDir, 0o700); err != nil {
				t.Fatal(err)
			}
			s, err := openLogStore(LogStoreWAL, raftDir, root, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			g := &storageGuard{LogStore: s, StableStore: s, path: LogStoreWAL.path(raftDir), log: quiet, normal: DefaultTiming}
			fill(t, root, c.spare)
			const entries = 3 * walSegmentSize / 300 // more than the segment and the spare hold
			next := uint64(1)
			appendNext := func() error {
				return g.StoreLogs([]*raft.Log{{Index: next, Term: 1, Type: raft.LogCommand, Data: make([]byte, 300)}})
			}
			for ; next < entries; next++ {
				if err = appendNext(); err != nil {
					break
				}
			}
			if !errors.Is(err, ErrStorageFull) || !strings.Contains(err.Error(), g.path) {
				t.Fatalf("append %d on a full disk: %v; want ErrStorageFull naming %s", next, err, g.path)
			}
			if err := appendNext(); !errors.Is(err, ErrStorageFull) {
				t.Fatalf("append %d again on the full disk: %v; want ErrStorageFull", next, err)
			}
			free()
			for end := next + walSegmentSize/300*3/2; next < end; next++ {
				if err := appendNext(); err != nil {
					t.Fatalf("append %d after space was freed: %v", next, err)
				}
			}
			if g.Fault() != nil {
				t.Fatalf("fault after appends succeeded: %v", g.Fault())
			}
			var l raft.Log
			if err := s.GetLog(1, &l); err != nil {
				t.Fatalf("first entry after the appends: %v", err)
			}
		})
	}
}

// A new data dir on a disk with less free space than one WAL segment is not damaged: the
// node says the disk is too small, how much it needs and where, and does not tell the
// operator to restore a copy or remove the node.
func TestANewWALOnADiskSmallerThanASegmentSaysSo(t *testing.T) {
	root := smallTmpfs(t, walSegmentSize/2)
	raftDir := filepath.Join(root, "raft")
	if err := os.Mkdir(raftDir, 0o700); err != nil {
		t.Fatal(err)
	}
	s, err := openLogStore(LogStoreWAL, raftDir, root, nil)
	if err == nil {
		s.Close()
		t.Fatal("a WAL opened on a disk smaller than one segment")
	}
	if errors.Is(err, ErrDamagedStore) || !errors.Is(err, ErrStorageFull) {
		t.Fatalf("open on a disk smaller than a segment: %v; want ErrStorageFull, not ErrDamagedStore", err)
	}
	for _, want := range []string{LogStoreWAL.path(raftDir), "8 MiB", "free"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("open on a disk smaller than a segment: %q does not say %q", err, want)
		}
	}
	// Given the room it asked for, the same data dir opens.
	if err := syscall.Mount("tmpfs", root, "tmpfs", syscall.MS_REMOUNT, fmt.Sprintf("size=%d", 2*walSegmentSize)); err != nil {
		t.Fatalf("grow the tmpfs: %v", err)
	}
	s, err = openLogStore(LogStoreWAL, raftDir, root, nil)
	if err != nil {
		t.Fatalf("open once the disk has room for a segment: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
