package cluster

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/fsm"
)

// Apply watchdog. An apply that does not return holds raft's FSM goroutine: nothing after
// it is applied, and raft's Shutdown waits for it, so the node can neither serve nor stop.
// watchedFSM records which entries are being applied and since when; the node's watchdog
// names an apply that runs longer than SlowApply in the log and through Config.OnSlowApply
// (a metric), and cmd/idnode's shutdown bound names it when it exits without it.
const (
	// SlowApply is how long an apply may run before the watchdog names it.
	SlowApply = time.Second
	// watchdogEvery is how often the watchdog looks.
	watchdogEvery = 250 * time.Millisecond
)

// ApplyInProgress describes the apply under way: the entries, their command types (each
// once, in order) and when it began.
type ApplyInProgress struct {
	First, Last uint64
	Types       []fsm.CommandType
	Since       time.Time
}

func (a ApplyInProgress) String() string {
	return fmt.Sprintf("raft entries %d-%d (command types %v), running for %v", a.First, a.Last, a.Types, time.Since(a.Since).Round(time.Millisecond))
}

// watchedFSM is the FSM as raft calls it. It also keeps the index of the newest entry the FSM
// has applied: raft's AppliedIndex moves when entries are queued for the FSM, before they are
// applied.
type watchedFSM struct {
	raft.BatchingFSM // *fsm.FSM; a slow one in tests
	applied          atomic.Uint64
	// opened is the index of the snapshot raft opened last; a Restore that follows applies it.
	opened atomic.Uint64
	// trace is Config.OnEntry (EntryApplying, EntryApplied).
	trace entryTrace
	// waiting is who waits for the FSM to apply an index (WaitApplied).
	waiting appliedWaiters

	mu       sync.Mutex
	running  []*raft.Log // the entries being applied, nil when idle; raft's, only read
	since    time.Time
	reported bool // the watchdog has named the apply under way
}

func (w *watchedFSM) Apply(l *raft.Log) any {
	logs := []*raft.Log{l}
	w.begin(logs)
	defer w.end(logs)
	return w.BatchingFSM.Apply(l)
}

func (w *watchedFSM) ApplyBatch(logs []*raft.Log) []any {
	if len(logs) == 0 {
		return nil
	}
	w.begin(logs)
	defer w.end(logs)
	return w.BatchingFSM.ApplyBatch(logs)
}

func (w *watchedFSM) Restore(rc io.ReadCloser) error {
	if err := w.BatchingFSM.Restore(rc); err != nil {
		return err
	}
	w.applied.Store(w.opened.Load())
	w.waiting.wake(w.applied.Load())
	return nil
}

// begin records the entries raft hands the FSM; the hot path, so nothing is copied until the
// watchdog asks.
func (w *watchedFSM) begin(logs []*raft.Log) {
	w.trace.logs(EntryApplying, logs)
	now := time.Now()
	w.mu.Lock()
	w.running, w.since, w.reported = logs, now, false
	w.mu.Unlock()
}

func (w *watchedFSM) end(logs []*raft.Log) {
	w.applied.Store(logs[len(logs)-1].Index)
	w.waiting.wake(logs[len(logs)-1].Index)
	w.trace.logs(EntryApplied, logs)
	w.mu.Lock()
	w.running = nil
	w.mu.Unlock()
}

// describe returns the apply under way. w.mu is held and running is not nil.
func (w *watchedFSM) describe() ApplyInProgress {
	a := ApplyInProgress{First: w.running[0].Index, Last: w.running[len(w.running)-1].Index, Since: w.since}
	for _, l := range w.running {
		if l.Type == raft.LogCommand && len(l.Data) > 0 && !slices.Contains(a.Types, fsm.CommandType(l.Data[0])) {
			a.Types = append(a.Types, fsm.CommandType(l.Data[0]))
		}
	}
	return a
}

// InProgress is the apply under way, and whether there is one.
func (w *watchedFSM) InProgress() (ApplyInProgress, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running == nil {
		return ApplyInProgress{}, false
	}
	return w.describe(), true
}

// slow returns the apply under way if it has run longer than SlowApply at now and was not
// named yet; it is named once.
func (w *watchedFSM) slow(now time.Time) (ApplyInProgress, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running == nil || w.reported || now.Sub(w.since) <= SlowApply {
		return ApplyInProgress{}, false
	}
	w.reported = true
	return w.describe(), true
}

// watchApplies names every apply that runs longer than SlowApply, until the node closes.
func (n *Node) watchApplies() {
	t := time.NewTicker(watchdogEvery)
	defer t.Stop()
	for {
		select {
		case <-n.closed:
			return
		case now := <-t.C:
			a, ok := n.watched.slow(now)
			if !ok {
				continue
			}
			n.log.Warn("an apply is slow: the state machine applies nothing else and the node cannot stop cleanly until it returns",
				"entries", fmt.Sprintf("%d-%d", a.First, a.Last), "command_types", fmt.Sprint(a.Types), "running_for", now.Sub(a.Since).Round(time.Millisecond))
			if n.cfg.OnSlowApply != nil {
				n.cfg.OnSlowApply()
			}
		}
	}
}

// ApplyInProgress is the FSM apply under way on this node, if any (what a stop waits for).
func (n *Node) ApplyInProgress() (ApplyInProgress, bool) { return n.watched.InProgress() }

// maxUnseenEntries bounds HasApplied's walk over entries the FSM never sees.
const maxUnseenEntries = 64

// HasApplied reports whether this node's FSM has applied every entry up to index that
// changes it. raft's AppliedIndex moves when entries are queued for the FSM, before they are
// applied; and raft's no-op and barrier entries never reach the FSM, so an index that ends on
// them is applied once everything before them is.
func (n *Node) HasApplied(index uint64) bool {
	applied := n.watched.applied.Load()
	if applied >= index {
		return true
	}
	if n.raft.AppliedIndex() < index || index-applied > maxUnseenEntries {
		return false
	}
	for i := index; i > applied; i-- {
		var l raft.Log
		if err := n.guard.GetLog(i, &l); err != nil || l.Type == raft.LogCommand || l.Type == raft.LogConfiguration {
			return false
		}
	}
	return true
}

// openedSnapshots tells the watched FSM the index of the snapshot raft opens, which it then
// restores (at start, or one installed from the leader).
type openedSnapshots struct {
	raft.SnapshotStore
	watched *watchedFSM
}

func (s openedSnapshots) Open(id string) (*raft.SnapshotMeta, io.ReadCloser, error) {
	meta, rc, err := s.SnapshotStore.Open(id)
	if err == nil {
		s.watched.opened.Store(meta.Index)
	}
	return meta, rc, err
}

// appliedWaiters are the callers waiting for the FSM to apply an index. An apply wakes those
// it reached; with nobody waiting it costs an atomic load, as it runs for every apply.
type appliedWaiters struct {
	count atomic.Int32 // len(list), read without mu
	mu    sync.Mutex
	list  []appliedWaiter
}

type appliedWaiter struct {
	index   uint64
	reached chan struct{}
}

// add registers a wait for index; the channel is closed once an apply reaches it.
func (a *appliedWaiters) add(index uint64) <-chan struct{} {
	w := appliedWaiter{index: index, reached: make(chan struct{})}
	a.mu.Lock()
	a.list = append(a.list, w)
	a.count.Store(int32(len(a.list)))
	a.mu.Unlock()
	return w.reached
}

// wake closes the waits that applied reaches, and forgets them.
func (a *appliedWaiters) wake(applied uint64) {
	if a.count.Load() == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	keep := a.list[:0]
	for _, w := range a.list {
		if w.index <= applied {
			close(w.reached)
		} else {
			keep = append(keep, w)
		}
	}
	clear(a.list[len(keep):])
	a.list = keep
	a.count.Store(int32(len(keep)))
}

// drop forgets the wait whose channel is reached, when its caller gives up.
func (a *appliedWaiters) drop(reached <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.list = slices.DeleteFunc(a.list, func(w appliedWaiter) bool { return w.reached == reached })
	a.count.Store(int32(len(a.list)))
}

// WaitApplied waits until this node's FSM has applied the entry at index (a command: raft's
// no-op and configuration entries never reach the FSM; HasApplied covers those), and reports
// whether it did before ctx ended or the node closed.
func (n *Node) WaitApplied(ctx context.Context, index uint64) bool {
	// The wait is registered before the applied index is read: an apply stores its index
	// before it looks for waiters, so one of the two sees the other.
	reached := n.watched.waiting.add(index)
	if n.watched.applied.Load() >= index {
		n.watched.waiting.drop(reached)
		return true
	}
	select {
	case <-reached:
		return true
	case <-ctx.Done():
	case <-n.closed:
	}
	n.watched.waiting.drop(reached)
	return false
}
