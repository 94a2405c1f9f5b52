package cluster

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	wal "github.com/hashicorp/raft-wal"
	"github.com/hashicorp/raft-wal/metadb"
	"github.com/hashicorp/raft-wal/types"
	"go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/idnode/idnode/internal/datadir"
	"github.com/idnode/idnode/internal/durablefile"
	"github.com/idnode/idnode/internal/flock"
)

// LogStore names the store that holds a node's Raft log and its stable store (term and vote).
// A data dir keeps the store it was made with: switching would start from an empty log, and
// the node would hand out again the IDs it already handed out.
type LogStore string

const (
	// LogStoreBolt is raft-boltdb: one bbolt file, raft/raft.db, synced twice per append.
	LogStoreBolt LogStore = "boltdb"
	// LogStoreWAL is hashicorp's raft-wal: append-only segment files beside a small bbolt file
	// for the segment list, term and vote, in raft/wal/; an append is one write and one fsync.
	LogStoreWAL LogStore = "wal"
)

// DefaultLogStore is the store a data dir without Raft state gets when Config.LogStore is
// empty. A data dir that holds a store keeps it, so a boltdb data dir stays boltdb.
//
// The WAL appends with one fsync instead of bbolt's two (BenchmarkStoreLogs,
// BenchmarkIdentityRound with IDNODE_BENCH_RAFT_LOG). It is the default since raft-wal v0.4.1,
// which reads its log back after raft clears a log suffix (hashicorp/raft-wal#31,
// TestAWALReadsBackAfterATailTruncation) and appends again after a failed write (raft-wal#32,
// TestAWALOnAFullDiskIsStorageFullAndResumes).
const DefaultLogStore = LogStoreWAL

// walSegmentSize is the size of a WAL segment file, preallocated when it is created.
// raft-wal's default is 64 MiB, made for Consul's large entries; an idnode entry is a few
// hundred bytes and raft keeps about 18k of them (8192 since the snapshot plus 10240
// trailing), so 8 MiB holds the whole kept log: a compaction frees whole older segments, a
// new data dir takes 8 MiB instead of 64, a restart scans a smaller tail segment, and a
// segment is sealed about every 25k entries (one more fsync then, off the append path).
const walSegmentSize = 8 << 20

// LogStores lists the stores a node can use, for flag help and validation.
var LogStores = []LogStore{LogStoreWAL, LogStoreBolt}

// ParseLogStore checks a store name given by an operator.
func ParseLogStore(s string) (LogStore, error) {
	for _, k := range LogStores {
		if LogStore(s) == k {
			return k, nil
		}
	}
	return "", fmt.Errorf("%w: %q; use %q or %q", ErrUnknownLogStore, s, LogStoreWAL, LogStoreBolt)
}

// path is where the store lives in raftDir: a file for boltdb, a directory for the WAL.
func (s LogStore) path(raftDir string) string {
	if s == LogStoreWAL {
		return filepath.Join(raftDir, "wal")
	}
	return filepath.Join(raftDir, "raft.db")
}

// walMetaFile is the WAL's bbolt file; it exists once the WAL was created.
const walMetaFile = metadb.FileName

// heldLogStore is the store raftDir holds, or "" when it holds none.
func heldLogStore(raftDir string) (LogStore, error) {
	_, boltErr := os.Stat(LogStoreBolt.path(raftDir))
	_, walErr := os.Stat(filepath.Join(LogStoreWAL.path(raftDir), walMetaFile))
	for _, err := range []error{boltErr, walErr} {
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("raft store in %s: %w", raftDir, err)
		}
	}
	switch {
	case boltErr == nil && walErr == nil:
		return "", fmt.Errorf("%w: %s holds both raft.db and wal/, so which one holds this node's log is unknown", ErrDamagedStore, raftDir)
	case boltErr == nil:
		return LogStoreBolt, nil
	case walErr == nil:
		return LogStoreWAL, nil
	}
	return "", nil
}

// chooseLogStore returns the store a node opens in raftDir: the one the data dir holds, or,
// for a data dir that holds none, the one asked for, else DefaultLogStore. Asking for another
// store than the one held is an error, never a silent switch.
func chooseLogStore(raftDir string, asked LogStore) (LogStore, error) {
	if asked != "" {
		if _, err := ParseLogStore(string(asked)); err != nil {
			return "", err
		}
	}
	held, err := heldLogStore(raftDir)
	if err != nil {
		return "", err
	}
	switch {
	case held == "" && asked == "":
		return DefaultLogStore, nil
	case held == "":
		return asked, nil
	case asked != "" && asked != held:
		return "", fmt.Errorf("%w: %s holds a %s Raft log, but --raft-log=%s: start the node with --raft-log=%s (or without --raft-log); "+
			"to move this node to %s, remove it from the cluster (idctl node remove TAG) and start it with --raft-log=%s as a new member with an empty data dir (idnode --join ADDRESS)",
			ErrLogStoreMismatch, raftDir, held, asked, held, asked, asked)
	}
	return held, nil
}

// logStore is the Raft log and stable store of a node, either kind.
type logStore interface {
	raft.LogStore
	raft.StableStore
	io.Closer
}

// lockedMessage returns the error for a data dir that another process holds.
func lockedMessage(dataDir string) error {
	return fmt.Errorf("data dir %s is locked: is another idnode running on it?", dataDir)
}

// openLogStore opens (creating when new) the store kind in raftDir, with every append
// fsynced: an acknowledged ID survives power loss. log receives the WAL's own log lines,
// which are the only report of a failed segment rotation; nil discards them.
func openLogStore(kind LogStore, raftDir, dataDir string, log hclog.Logger) (logStore, error) {
	if kind == LogStoreWAL {
		if log == nil {
			log = hclog.NewNullLogger()
		}
		return openWAL(LogStoreWAL.path(raftDir), dataDir, log)
	}
	path := LogStoreBolt.path(raftDir)
	if err := checkRaftStore(path); err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, lockedMessage(dataDir)
		}
		return nil, err
	}
	store, err := raftboltdb.New(raftboltdb.Options{
		Path:        path,
		BoltOptions: &bbolt.Options{Timeout: time.Second},
		NoSync:      false,
	})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, lockedMessage(dataDir)
	}
	if err != nil {
		return nil, fmt.Errorf("open raft log in %s: %w", raftDir, err)
	}
	return store, nil
}

// walStore is raft-wal with what v0.4.2 leaves to its user: the lock that keeps a second
// idnode out (raft-wal's bbolt meta file lock waits without a timeout), and a reopen after a
// failed segment rotation. raft-wal seals a full segment and creates the next one in the
// background; when that creation fails (a disk with room for the index but not for a new
// preallocated segment) it only logs it, and every later append fails with "segment is
// sealed" until the WAL is opened again, which recovers the new segment from its meta file.
type walStore struct {
	dir  string
	log  hclog.Logger
	lock *os.File

	// mu guards w: every call holds it shared, a reopen exclusively.
	mu sync.RWMutex
	w  *wal.WAL
}

// Close closes the WAL, its meta file with it, then drops the lock.
func (s *walStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.w.Close(), s.lock.Close())
}

// wal is the open WAL; release when done with it.
func (s *walStore) wal() (w *wal.WAL, release func()) {
	s.mu.RLock()
	return s.w, s.mu.RUnlock
}

func (s *walStore) StoreLog(l *raft.Log) error { return s.StoreLogs([]*raft.Log{l}) }

// StoreLogs appends, and after a failed rotation reopens the WAL and appends once more: the
// append then fails on the disk's own error (ErrStorageFull) or succeeds.
func (s *walStore) StoreLogs(logs []*raft.Log) error {
	w, release := s.wal()
	err := w.StoreLogs(logs)
	release()
	if !errors.Is(err, types.ErrSealed) {
		return err
	}
	if err := s.reopen(w); err != nil {
		return err
	}
	w, release = s.wal()
	defer release()
	return w.StoreLogs(logs)
}

// reopen replaces stale, the WAL whose rotation failed, unless a concurrent call already did.
func (s *walStore) reopen(stale *wal.WAL) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w != stale {
		return nil
	}
	s.log.Warn("the raft log could not start a new segment; reopening it", "path", s.dir)
	if err := s.w.Close(); err != nil {
		return fmt.Errorf("reopen the raft log %s: %w", s.dir, err)
	}
	w, err := openWALFiles(s.dir, s.log)
	if err != nil {
		// The closed WAL stays: its calls fail with "closed", and a restart opens the files.
		return err
	}
	s.w = w
	return nil
}

func (s *walStore) FirstIndex() (uint64, error) {
	w, release := s.wal()
	defer release()
	return w.FirstIndex()
}

func (s *walStore) LastIndex() (uint64, error) {
	w, release := s.wal()
	defer release()
	return w.LastIndex()
}

func (s *walStore) GetLog(index uint64, l *raft.Log) error {
	w, release := s.wal()
	defer release()
	return w.GetLog(index, l)
}

func (s *walStore) DeleteRange(lo, hi uint64) error {
	w, release := s.wal()
	defer release()
	return w.DeleteRange(lo, hi)
}

func (s *walStore) Set(k, v []byte) error {
	w, release := s.wal()
	defer release()
	return w.Set(k, v)
}

func (s *walStore) Get(k []byte) ([]byte, error) {
	w, release := s.wal()
	defer release()
	return w.Get(k)
}

func (s *walStore) SetUint64(k []byte, v uint64) error {
	w, release := s.wal()
	defer release()
	return w.SetUint64(k, v)
}

func (s *walStore) GetUint64(k []byte) (uint64, error) {
	w, release := s.wal()
	defer release()
	return w.GetUint64(k)
}

// IsMonotonic tells raft the WAL refuses gaps in the log.
func (s *walStore) IsMonotonic() bool { return true }

// openWAL opens the WAL in dir, refusing a dir another process holds and one it cannot read
// back (ErrDamagedStore).
func openWAL(dir, dataDir string, log hclog.Logger) (_ *walStore, err error) {
	if err := durablefile.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir %s is not usable: %w", dataDir, err)
	}
	lock, err := lockDir(dir)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, lockedMessage(dataDir)
	}
	if err != nil {
		return nil, fmt.Errorf("lock the raft log %s: %w", dir, err)
	}
	w, err := openWALFiles(dir, log)
	if err != nil {
		return nil, errors.Join(err, lock.Close())
	}
	return &walStore{dir: dir, log: log, lock: lock, w: w}, nil
}

// openWALFiles opens the WAL in dir, which the caller has locked.
func openWALFiles(dir string, log hclog.Logger) (*wal.WAL, error) {
	// The meta file is bbolt, mapped into memory: a truncated one faults instead of failing.
	if err := checkRaftStore(filepath.Join(dir, walMetaFile)); err != nil {
		return nil, err
	}
	meta := &metadb.BoltMetaDB{}
	w, err := wal.Open(dir, wal.WithMetaStore(meta), wal.WithLogger(log), wal.WithSegmentSize(walSegmentSize))
	if err != nil {
		// A failed Open leaves the meta file open: only WAL.Close closes it.
		if diskFull(err) {
			return nil, errors.Join(noRoomForSegment(dir, err), meta.Close())
		}
		return nil, errors.Join(fmt.Errorf("%w: %s: %v", ErrDamagedStore, dir, err), meta.Close())
	}
	if err := checkWALReadable(w); err != nil {
		return nil, errors.Join(fmt.Errorf("%w: %s: %v", ErrDamagedStore, dir, err), w.Close())
	}
	return w, nil
}

// noRoomForSegment is the error of a WAL that cannot create a segment file because the disk
// under dir is full. The store is not damaged, so the error says what the disk lacks rather
// than pointing the operator at a copy of the data dir.
func noRoomForSegment(dir string, err error) error {
	free := "an unknown number of bytes"
	if n, err := datadir.FreeBytes(dir); err == nil {
		free = fmt.Sprintf("%d bytes", n)
	}
	return fmt.Errorf("%w: the raft log %s cannot create a segment file: each one takes %d MiB, "+
		"and the disk has %s free (%v); free space there or move the data dir to a larger disk, "+
		"then start the node again", ErrStorageFull, dir, walSegmentSize>>20, free, err)
}

// checkWALReadable reads the first and last entry back: a segment cut short or overwritten
// fails here, at start, instead of when raft first needs it.
func checkWALReadable(w *wal.WAL) error {
	first, err := w.FirstIndex()
	if err != nil {
		return err
	}
	last, err := w.LastIndex()
	if err != nil || last == 0 {
		return err
	}
	var l raft.Log
	for _, i := range []uint64{first, last} {
		if err := w.GetLog(i, &l); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
	}
	return nil
}

// lockDir takes an exclusive flock on dir, held while the returned file is open; the kernel
// drops it when the process dies, so kill -9 leaves no stale lock.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	err = flock.TryExclusive(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
