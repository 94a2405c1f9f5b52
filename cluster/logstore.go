package cluster

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	wal "github.com/hashicorp/raft-wal"
	"github.com/hashicorp/raft-wal/metadb"
	"go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
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
// empty. A data dir that holds a store keeps it.
//
// The WAL appends several times faster (BenchmarkStoreLogs, BenchmarkIdentityRound with
// IDNODE_BENCH_RAFT_LOG), but raft-wal v0.4.0, the only version the module proxy serves here,
// cannot read its log back after raft clears a log suffix, as a follower does after a leader
// change, and restarts (hashicorp/raft-wal#31, TestAWALThatCannotBeReadBackIsRefused); it
// keeps failing appends after one failed write (raft-wal#32), and a segment whose sealing
// failed on a full disk stays sealed also after space is freed and the node restarts. Both
// issues are fixed in v0.4.1; until then boltdb stays the default.
const DefaultLogStore = LogStoreBolt

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

// chooseLogStore is the store a node opens in raftDir: the one the data dir holds, or for a
// data dir without one, asked or else DefaultLogStore. Asking for another store than the one
// held is an error, never a silent switch.
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

// lockedMessage is the error of a data dir that another process holds.
func lockedMessage(dataDir string) error {
	return fmt.Errorf("data dir %s is locked: is another idnode running on it?", dataDir)
}

// openLogStore opens (creating when new) the store kind in raftDir, with every append
// fsynced: an acknowledged ID survives power loss. log takes the WAL's lines (a failed
// segment rotation is only logged); nil: none.
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

// walStore is raft-wal with what it leaves to its user: its meta file, which WAL.Close does
// not close (a second open in this process would wait forever for bbolt's lock), and the lock
// that keeps a second idnode out (bbolt's own lock waits without a timeout).
type walStore struct {
	*wal.WAL
	meta *metadb.BoltMetaDB
	lock *os.File
}

func (s *walStore) Close() error {
	return errors.Join(s.WAL.Close(), s.meta.Close(), s.lock.Close())
}

// openWAL opens the WAL in dir, refusing a dir another process holds and one it cannot read
// back (ErrDamagedStore).
func openWAL(dir, dataDir string, log hclog.Logger) (_ *walStore, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir %s is not usable: %w", dataDir, err)
	}
	lock, err := lockDir(dir)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, lockedMessage(dataDir)
	}
	if err != nil {
		return nil, fmt.Errorf("lock the raft log %s: %w", dir, err)
	}
	defer func() {
		if err != nil {
			lock.Close()
		}
	}()
	// The meta file is bbolt, mapped into memory: a truncated one faults instead of failing.
	if err := checkRaftStore(filepath.Join(dir, walMetaFile)); err != nil {
		return nil, err
	}
	meta := &metadb.BoltMetaDB{}
	w, err := wal.Open(dir, wal.WithMetaStore(meta), wal.WithLogger(log))
	if err != nil {
		return nil, errors.Join(fmt.Errorf("%w: %s: %v", ErrDamagedStore, dir, err), meta.Close())
	}
	s := &walStore{WAL: w, meta: meta, lock: lock}
	if err := checkWALReadable(w); err != nil {
		return nil, errors.Join(fmt.Errorf("%w: %s: %v", ErrDamagedStore, dir, err), s.WAL.Close(), meta.Close())
	}
	return s, nil
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
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
