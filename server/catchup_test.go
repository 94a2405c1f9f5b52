package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/test/helpers/poll"
)

// A caller that arrives while a probe is under way waits for the next probe: the one under way
// may have been answered before what the caller must see was committed.
func TestSharedProbeNeverHandsOutAnOlderAnswer(t *testing.T) {
	t.Parallel()
	var p sharedProbe
	started := make(chan uint64, 4)
	release := make(chan struct{}, 4)
	var n uint64
	probe := func(context.Context) (uint64, bool) {
		n++ // probes run one at a time
		started <- n
		<-release
		return n, true
	}
	type answer struct{ index uint64 }
	first := make(chan answer, 1)
	go func() { i, _ := p.get(context.Background(), probe); first <- answer{i} }()
	if got := <-started; got != 1 {
		t.Fatalf("first probe is %d", got)
	}
	later := make(chan answer, 1)
	go func() { i, _ := p.get(context.Background(), probe); later <- answer{i} }()
	waitGathered(t, &p)
	release <- struct{}{}
	if a := <-first; a.index != 1 {
		t.Fatalf("first caller got probe %d, want 1", a.index)
	}
	if got := <-started; got != 2 {
		t.Fatalf("second probe is %d", got)
	}
	release <- struct{}{}
	if a := <-later; a.index != 2 {
		t.Errorf("a caller that arrived during probe 1 got probe %d, want 2", a.index)
	}
}

// waitGathered waits, bounded, until a caller has gathered behind the running probe.
func waitGathered(t *testing.T, p *sharedProbe) {
	t.Helper()
	poll.Until(t, "a caller gathers behind the running probe", 5*time.Second, time.Millisecond, func() error {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.next == nil {
			return errors.New("none yet")
		}
		return nil
	})
}

// A probe of the leader that fails (as it does while this node has not yet applied the
// cluster secret the leader already requires) does not decide: the node keeps looking, and
// a name it applies meanwhile is known. TestCallRightAfterCreateWorksOnEveryNode met this
// once in CI, as NOT_FOUND for a database created a moment before.
func TestCatchUpOutlivesAFailedProbe(t *testing.T) {
	t.Parallel()
	var probes, looks int
	leaderCommit := func(context.Context) (uint64, bool) { probes++; return 0, false }
	known := func() bool { looks++; return looks > 3 } // applied on the fourth look
	if !catchUp(context.Background(), known, leaderCommit, func(uint64) bool { return false }) {
		t.Fatalf("the name was applied on look %d, but catchUp refused it after %d probes", looks, probes)
	}
	if probes < 2 {
		t.Fatalf("catchUp probed the leader %d times; a failed probe should be tried again", probes)
	}
}

// Without a leader to answer and without the name, catchUp refuses once its wait is over.
func TestCatchUpRefusesWhenTheWaitEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	never := func() bool { return false }
	if catchUp(ctx, never, func(context.Context) (uint64, bool) { return 0, false }, func(uint64) bool { return false }) {
		t.Fatal("catchUp said an unknown name is known")
	}
	if ctx.Err() == nil {
		t.Fatal("catchUp refused before its wait was over")
	}
}

// Once this node has applied what the leader had committed, its answer is final.
func TestCatchUpDecidesOnceApplied(t *testing.T) {
	t.Parallel()
	var looks int
	known := func() bool { looks++; return false }
	applied := func(index uint64) bool { return index == 7 }
	if catchUp(context.Background(), known, func(context.Context) (uint64, bool) { return 7, true }, applied) {
		t.Fatal("catchUp said an unknown name is known")
	}
	if looks != 1 {
		t.Fatalf("catchUp looked %d times, want 1 (once caught up)", looks)
	}
}

// A node whose Raft timing is made for a wider network (--raft-rtt) waits as long for a
// catch-up as a call waits for an election: with a 1.5 s election wait, a name this node
// applies 1.2 s after the call arrives is known, not refused after a LAN's 1 s.
func TestCatchUpWaitsTheElectionWait(t *testing.T) {
	t.Parallel()
	fc := &fakeCluster{leader: true, behind: true, fsm: fsm.New()}
	s := New(Config{Tag: "A", ElectionWait: 1500 * time.Millisecond}, fc, nil)
	t.Cleanup(s.Close)
	start := time.Now()
	appliedAt := start.Add(1200 * time.Millisecond)
	known := func() bool { return !time.Now().Before(appliedAt) }
	if !s.cluster.knownAfterCatchUp(context.Background(), known) {
		t.Fatalf("a name applied 1.2 s after the call arrived was refused after %v; the election wait is 1.5 s", time.Since(start))
	}
}

// leaderAheadNode is a node whose applied index trails its commit index by one entry at every
// look, as a follower's does under a steady stream of writes on a loaded machine; next moves
// both on by one write.
type leaderAheadNode struct{ commit uint64 }

func (n *leaderAheadNode) IsLeader() bool               { return true }
func (n *leaderAheadNode) Leader() (id, address string) { return "A", "a:1" }
func (n *leaderAheadNode) CommitIndex() uint64          { return n.commit }
func (n *leaderAheadNode) HasApplied(index uint64) bool { return index < n.commit }
func (n *leaderAheadNode) next()                        { n.commit++ }

// A node that is always one entry behind the newest commit has still caught up once it has
// applied what was committed when it first asked: a target asked anew at every look would
// stay out of reach for as long as the writes go on, and the node would never serve.
func TestCaughtUpSinceKeepsItsFirstTarget(t *testing.T) {
	t.Parallel()
	n := &leaderAheadNode{commit: 5}
	g := newCatchUpGate(n, healthProbe{}, 0) // the node leads: no probe
	var target uint64
	for look := 1; look <= 10; look++ {
		if g.caughtUpSince(context.Background(), &target) {
			if look != 2 || target != 5 {
				t.Fatalf("caught up at look %d with target %d; want look 2, target 5 (the first commit index asked)", look, target)
			}
			return
		}
		n.next()
	}
	t.Fatal("a node one entry behind the newest commit at every look never caught up")
}
