package cluster

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/raft"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/test/helpers/logbuf"
)

// blockingFSM is the test seam of the watchdog: an FSM whose apply returns only when told.
type blockingFSM struct {
	raft.BatchingFSM
	entered chan struct{}
	release chan struct{}
}

func (b blockingFSM) Apply(*raft.Log) any {
	close(b.entered)
	<-b.release
	return nil
}

// An apply that does not return is named, once, in the log and through
// OnSlowApply (the metric), with its index and command type; the applied index moves only
// when it returns.
func TestWatchdogNamesASlowApply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := blockingFSM{entered: make(chan struct{}), release: make(chan struct{})}
		w := &watchedFSM{BatchingFSM: b}
		var logs logbuf.Buffer
		slow := make(chan struct{}, 2)
		n := &Node{watched: w, closed: make(chan struct{}), log: slog.New(slog.NewTextHandler(&logs, nil)),
			cfg: Config{OnSlowApply: func() { slow <- struct{}{} }}}
		go n.watchApplies()
		defer close(n.closed)

		cmd := seedCommand(t, "users", 9)
		applied := make(chan struct{})
		go func() {
			w.Apply(&raft.Log{Index: 42, Type: raft.LogCommand, Data: cmd})
			close(applied)
		}()
		<-b.entered
		if a, ok := n.ApplyInProgress(); !ok || a.First != 42 || len(a.Types) != 1 || a.Types[0] != fsm.SeedIdentityCommand {
			t.Fatalf("ApplyInProgress = %+v, %v; want entry 42, SeedIdentity", a, ok)
		}
		select {
		case <-slow:
		case <-time.After(SlowApply + 10*watchdogEvery):
			t.Fatalf("no slow apply reported within %v", SlowApply+10*watchdogEvery)
		}
		if got := logs.String(); !strings.Contains(got, "an apply is slow") || !strings.Contains(got, "entries=42-42") {
			t.Errorf("log %q does not name the slow apply at index 42", got)
		}
		if w.applied.Load() != 0 {
			t.Errorf("applied index %d while entry 42 is still being applied", w.applied.Load())
		}
		if _, again := w.slow(time.Now().Add(time.Hour)); again {
			t.Error("the same slow apply was reported twice")
		}
		close(b.release)
		<-applied
		if _, ok := n.ApplyInProgress(); ok || w.applied.Load() != 42 {
			t.Errorf("after the apply returned: in progress %v, applied index %d; want none and 42", ok, w.applied.Load())
		}
	})
}

// HasApplied counts what the FSM applied, not what raft queued, and passes over raft's
// no-op and barrier entries, which never reach the FSM: an idle leader whose log ends on its
// no-op, and a restarted node that restored a snapshot, are caught up; an index past the log
// is not.
func TestHasAppliedSkipsEntriesTheFSMNeverSees(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		cfg := Config{ID: "A", DataDir: dir, RaftAddr: "inmem-A", Logger: quiet, Transport: newInmem("inmem-A")}
		n, err := Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		leader := leaderOf(t, n)
		waitFor(t, "the idle leader has applied its commit index", func() bool {
			c := leader.CommitIndex()
			return c > 0 && leader.HasApplied(c)
		})
		var last raft.Log
		if err := n.guard.GetLog(n.CommitIndex(), &last); err != nil || last.Type == raft.LogCommand {
			t.Fatalf("the log ends on %v (%v); want raft's own entry, which the FSM never sees", last.Type, err)
		}
		seed(t, leader, "users", 3)
		if !n.HasApplied(n.CommitIndex()) || n.HasApplied(n.LastIndex()+1) {
			t.Fatalf("after a seed: HasApplied(commit %d) %v, HasApplied(last+1 %d) %v; want true, false",
				n.CommitIndex(), n.HasApplied(n.CommitIndex()), n.LastIndex()+1, n.HasApplied(n.LastIndex()+1))
		}
		if err := n.raft.Snapshot().Error(); err != nil {
			t.Fatal(err)
		}
		snapshotAt := n.LastIndex()
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
		cfg.Transport = newInmem("inmem-A")
		n, err = Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer n.Close()
		if !n.HasApplied(snapshotAt) {
			t.Fatalf("after restoring the snapshot at %d: not applied (FSM at %d)", snapshotAt, n.watched.applied.Load())
		}
	})
}

// WaitApplied returns once the FSM has applied the index, not when raft queued it: a wait for
// an entry still in the FSM's apply goes on until the apply returns. A wait whose context
// ends returns false and is forgotten.
func TestWaitAppliedWakesWhenTheApplyReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := blockingFSM{entered: make(chan struct{}), release: make(chan struct{})}
		w := &watchedFSM{BatchingFSM: b}
		n := &Node{watched: w, closed: make(chan struct{})}
		defer close(n.closed)
		go w.Apply(&raft.Log{Index: 42, Type: raft.LogCommand, Data: seedCommand(t, "users", 9)})
		<-b.entered
		waited := make(chan bool)
		go func() { waited <- n.WaitApplied(context.Background(), 42) }()
		synctest.Wait()
		select {
		case <-waited:
			t.Fatal("WaitApplied(42) returned while entry 42 was still being applied")
		default:
		}
		close(b.release)
		if !<-waited {
			t.Fatal("WaitApplied(42) = false after entry 42 was applied")
		}
		if !n.WaitApplied(context.Background(), 41) {
			t.Fatal("WaitApplied(41) = false with entry 42 applied")
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if n.WaitApplied(ctx, 43) {
			t.Fatal("WaitApplied(43) = true with nothing past entry 42 applied")
		}
		if c := w.waiting.count.Load(); c != 0 {
			t.Fatalf("%d waits left behind after they returned", c)
		}
	})
}
