package cluster

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/raft"
)

// StorageError is a failed write of the Raft log or its stable store: the file and why. It
// matches ErrStorageFull when the disk is full and ErrStorageFailed otherwise.
type StorageError struct {
	Path string
	Err  error
}

func (e *StorageError) Error() string {
	if e.full() {
		return fmt.Sprintf("cannot write the raft log %s: the disk is full (%v); free space there and the node resumes by itself", e.Path, e.Err)
	}
	return fmt.Sprintf("cannot write the raft log %s: %v; check the disk", e.Path, e.Err)
}

func (e *StorageError) Unwrap() []error {
	if e.full() {
		return []error{ErrStorageFull, e.Err}
	}
	return []error{ErrStorageFailed, e.Err}
}

// full reports a full disk or quota.
func (e *StorageError) full() bool { return diskFull(e.Err) }

// diskFull reports whether err is a full disk or quota. bbolt formats some of its write
// errors with %s, which drops the errno, so the message is read too.
func diskFull(err error) bool {
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT} {
		if errors.Is(err, errno) || strings.Contains(err.Error(), errno.Error()) {
			return true
		}
	}
	return false
}

// Election backoff while the node cannot write its log. A leader whose log write fails steps
// down; with the normal timing it wins again within a second and fails again, about 20 times a
// second, on a single node for as long as the disk stays full. Instead each failure doubles
// the node's heartbeat and election timeouts, up to storageBackoffMax, and the first log append
// that succeeds brings the normal timing back. Only an append counts as proof: the term and
// vote an election writes are a few bytes that bbolt fits in pages it already has.
const (
	storageBackoffFirst = time.Second
	storageBackoffMax   = 30 * time.Second
)

// storageGuard is the Raft log and stable store as raft sees them: every write that fails is
// a StorageError and puts the node in backoff; an append that succeeds ends it.
type storageGuard struct {
	raft.LogStore
	raft.StableStore
	path string
	// timing changes raft's heartbeat and election timeouts; nil until raft runs.
	timing func(heartbeat, election time.Duration)
	normal Timing
	log    *slog.Logger
	// trace is Config.OnEntry, told of every append that succeeds (EntryStored).
	trace entryTrace
	// halt stops the node when the term cannot be written (Config.OnStorageHalt); nil: raft
	// panics as it does by itself.
	halt func(error)

	mu      sync.Mutex
	fault   *StorageError
	backoff time.Duration
}

// Fault is the last failed write's error, or nil once an append has succeeded since.
func (g *storageGuard) Fault() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fault == nil {
		return nil
	}
	return g.fault
}

// check records a write's outcome; appended says it was a log append.
func (g *storageGuard) check(err error, appended bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err == nil {
		if appended && g.fault != nil {
			g.log.Info("the raft log can be written again; normal election timing", "path", g.path)
			g.fault, g.backoff = nil, 0
			g.setTiming(g.normal.HeartbeatTimeout, g.normal.ElectionTimeout)
		}
		return nil
	}
	g.fault = &StorageError{Path: g.path, Err: err}
	g.backoff = min(max(2*g.backoff, storageBackoffFirst), storageBackoffMax)
	g.log.Error("raft log write failed; this node waits before it stands for election again",
		"err", g.fault.Error(), "wait", g.backoff)
	g.setTiming(g.backoff, g.backoff)
	return g.fault
}

func (g *storageGuard) setTiming(heartbeat, election time.Duration) {
	if g.timing != nil {
		g.timing(max(heartbeat, g.normal.HeartbeatTimeout), max(election, g.normal.ElectionTimeout))
	}
}

func (g *storageGuard) StoreLog(l *raft.Log) error { return g.StoreLogs([]*raft.Log{l}) }

func (g *storageGuard) StoreLogs(l []*raft.Log) error {
	if err := g.check(g.LogStore.StoreLogs(l), true); err != nil {
		return err
	}
	g.trace.stored(l)
	return nil
}

// IsMonotonic passes on whether the log store refuses gaps (raft-wal does): raft then drops
// the whole log after installing a snapshot instead of leaving a gap before the next entry,
// which such a store would refuse.
func (g *storageGuard) IsMonotonic() bool {
	m, ok := g.LogStore.(raft.MonotonicLogStore)
	return ok && m.IsMonotonic()
}

func (g *storageGuard) DeleteRange(lo, hi uint64) error {
	return g.check(g.LogStore.DeleteRange(lo, hi), false)
}

func (g *storageGuard) Set(k, v []byte) error { return g.check(g.StableStore.Set(k, v), false) }

// raftTermKey is the key raft stores the current term under. raft panics when that write
// fails (setCurrentTerm), so the guard halts the node first, naming the file.
var raftTermKey = []byte("CurrentTerm")

func (g *storageGuard) SetUint64(k []byte, v uint64) error {
	err := g.check(g.StableStore.SetUint64(k, v), false)
	if err != nil && bytes.Equal(k, raftTermKey) && g.halt != nil {
		g.halt(err)
	}
	return err
}

var (
	_ raft.LogStore          = (*storageGuard)(nil)
	_ raft.StableStore       = (*storageGuard)(nil)
	_ raft.MonotonicLogStore = (*storageGuard)(nil)
)
