package cluster

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/hashicorp/raft"
	"go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// checkRaftStore opens an existing bbolt file (raft.db, or the WAL's meta file) read-only
// first, and checks that the file holds every page its newest meta page counts. bbolt maps the file into memory and trusts it: a
// truncated file faults (SIGBUS) on the first page past its end, which kills the process with
// a stack trace instead of a message. The fault is turned into a panic and recovered here, and
// the size check keeps raft from ever reading past the end later.
func checkRaftStore(path string) (err error) {
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // a new data dir; datadir's manifest says whether one was expected
	} else if err != nil {
		return fmt.Errorf("raft store %s: %w", path, err)
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %s cannot be read (%v)", ErrDamagedStore, path, r)
		}
	}()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: time.Second, ReadOnly: true})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return err
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrDamagedStore, path, err)
	}
	defer db.Close()
	return db.View(func(tx *bbolt.Tx) error {
		if info.Size() < tx.Size() {
			return fmt.Errorf("%w: %s is %d bytes, but its pages need %d: it was truncated", ErrDamagedStore, path, info.Size(), tx.Size())
		}
		return nil
	})
}

// checkLogReaches refuses a Raft log and snapshot store that end before index, the newest
// index this data dir is known to have held: an older copy of raft.db, or a log whose newest
// entries were lost (entries this node acknowledged to a leader, which counted them).
func checkLogReaches(logs raft.LogStore, snaps raft.SnapshotStore, index uint64, path string) error {
	if index == 0 {
		return nil
	}
	last, err := logs.LastIndex()
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrDamagedStore, path, err)
	}
	metas, err := snaps.List()
	if err != nil {
		return fmt.Errorf("%w: snapshots beside %s: %v", ErrDamagedStore, path, err)
	}
	if len(metas) > 0 {
		last = max(last, metas[0].Index)
	}
	if last < index {
		return fmt.Errorf("%w: %s and its snapshots end at index %d, but this node had reached index %d: the log was replaced by an older copy or lost entries",
			ErrLogBehind, path, last, index)
	}
	return nil
}

// recordingSnapshots tells onSnapshot the index of every snapshot that was stored completely:
// taken by this node or installed from the leader.
type recordingSnapshots struct {
	raft.SnapshotStore
	onSnapshot func(index uint64)
}

func (s recordingSnapshots) Create(version raft.SnapshotVersion, index, term uint64, configuration raft.Configuration,
	configurationIndex uint64, trans raft.Transport) (raft.SnapshotSink, error) {
	sink, err := s.SnapshotStore.Create(version, index, term, configuration, configurationIndex, trans)
	if err != nil {
		return nil, err
	}
	return &recordingSink{SnapshotSink: sink, index: index, onSnapshot: s.onSnapshot}, nil
}

type recordingSink struct {
	raft.SnapshotSink
	index      uint64
	onSnapshot func(uint64)
}

func (s *recordingSink) Close() error {
	if err := s.SnapshotSink.Close(); err != nil {
		return err
	}
	s.onSnapshot(s.index)
	return nil
}
