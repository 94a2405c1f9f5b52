package server

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idnode/idnode/internal/forward"
)

// A follower applies an entry shortly after the leader answered for it: a database, key or
// node the leader just created may not be known here yet. Before a node refuses a name it does
// not know, it catches up: it learns the leader's commit index and waits until its own FSM has
// applied that far, within catchUpGate.wait; then its answer is as good as the leader's.

// catchUpPoll is how often a waiting call looks at the applied index again.
const catchUpPoll = 5 * time.Millisecond

// catchUpGate is what a call waits at until this node has caught up with the leader: for a
// name the leader may have just created (knownAfter), and once after the node's start
// (startcatchup.go). It needs of the node only its indexes and its leader, and a health probe
// to ask the leader for its commit index.
type catchUpGate struct {
	node  catchUpNode
	probe healthProbe
	// wait bounds the wait: the election wait (four election timeouts of the node's Raft
	// timing, which --raft-rtt makes longer across regions: a pre-vote refused and the rounds
	// after it), after which a node still behind is cut off and says so by refusing. A shorter
	// wait would refuse names on a healthy follower whose leader is a few wide round trips
	// away.
	wait time.Duration
	// commitProbe shares one question for the leader's commit index among the calls that
	// wait for this node to catch up.
	commitProbe sharedProbe
	// caughtUpOnce is set once this node's FSM has held what the leader had committed, after
	// its start (health.go); until then calls a key guards are refused (startcatchup.go).
	caughtUpOnce atomic.Bool
}

// catchUpNode is what catching up needs of the node (Cluster).
type catchUpNode interface {
	IsLeader() bool
	Leader() (id, address string)
	CommitIndex() uint64
	HasApplied(index uint64) bool
}

// newCatchUpGate is the gate of node, whose calls wait for an election up to electionWait (0
// is forward.DefaultElectionWait).
func newCatchUpGate(node catchUpNode, probe healthProbe, electionWait time.Duration) *catchUpGate {
	if electionWait <= 0 {
		electionWait = forward.DefaultElectionWait
	}
	return &catchUpGate{node: node, probe: probe, wait: electionWait}
}

// caughtUpSince reports whether this node has caught up since its start, asking the leader
// how far its log is committed only while target, which the caller keeps from one look to
// the next, holds none. Under a steady stream of writes a follower's applied index trails the
// leader's commit index by an append's round trip, and a loaded machine makes that longer
// than the probe's: a target asked anew at every look could stay out of reach for as long as
// the writes go on. The first target, asked after the start, already says what catching up
// means, as it does for a call's catchUp.
func (g *catchUpGate) caughtUpSince(ctx context.Context, target *uint64) bool {
	if g.caughtUpOnce.Load() {
		return true
	}
	if *target == 0 {
		t, ok := g.startTarget(ctx)
		if !ok {
			return false
		}
		*target = t
	}
	return g.appliedSinceStart(*target)
}

// knownAfter returns known() at once when it holds, and otherwise once this node has applied
// everything the leader had committed when asked, or the wait or ctx ran out.
func (g *catchUpGate) knownAfter(ctx context.Context, known func() bool) bool {
	if known() {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, g.wait)
	defer cancel()
	return catchUp(ctx, known, g.leaderCommitIndex, g.node.HasApplied)
}

// knownAfterCatchUp is the catch-up gate's knownAfter, as every service's handlers ask it.
func (s *core) knownAfterCatchUp(ctx context.Context, known func() bool) bool {
	return s.catchUp.knownAfter(ctx, known)
}

// catchUp waits, looking at known every catchUpPoll, until this node has applied the leader's
// commit index (leaderCommit), then answers known(). A probe of the leader that fails is tried
// again at the next look rather than taken as a refusal: it fails for a moment while this node
// has not applied the cluster secret the leader already requires, or during an election, and
// the name may be applied here meanwhile. ctx bounds the wait.
func catchUp(ctx context.Context, known func() bool, leaderCommit func(context.Context) (uint64, bool), applied func(uint64) bool) bool {
	target, ok := leaderCommit(ctx)
	t := time.NewTicker(catchUpPoll)
	defer t.Stop()
	for !ok || !applied(target) {
		select {
		case <-ctx.Done():
			return known()
		case <-t.C:
		}
		if !ok {
			if known() {
				return true
			}
			target, ok = leaderCommit(ctx)
		}
	}
	return known()
}

// leaderCommitIndex is the commit index of the leader: this node's own when it leads, else
// what the leader's answer to a health probe says. ok is false when there is no leader to ask
// or it does not answer.
func (g *catchUpGate) leaderCommitIndex(ctx context.Context) (index uint64, ok bool) {
	if g.node.IsLeader() {
		return g.node.CommitIndex(), true
	}
	return g.commitProbe.get(ctx, g.probeLeaderCommit)
}

// probeLeaderCommit asks the leader for its commit index.
func (g *catchUpGate) probeLeaderCommit(ctx context.Context) (uint64, bool) {
	_, addr := g.node.Leader()
	if addr == "" {
		return 0, false
	}
	header, err := g.probe.header(ctx, addr)
	if err != nil {
		return 0, false
	}
	v := header.Get(commitIndexHeader)
	if len(v) == 0 {
		return 0, false // a leader of an older version
	}
	index, err := strconv.ParseUint(v[0], 10, 64)
	return index, err == nil
}

// sharedProbe runs at most one probe at a time for any number of callers, so callers naming
// unknown keys or databases cost the leader one probe per round trip, not one each. A caller
// shares a probe that starts after it arrived, never one already under way, whose answer may
// predate what the caller must see.
type sharedProbe struct {
	mu      sync.Mutex
	next    *probeFlight // gathers the callers that arrive while a probe runs
	running bool
}

type probeFlight struct {
	done  chan struct{}
	index uint64
	ok    bool
}

func (p *sharedProbe) get(ctx context.Context, probe func(context.Context) (uint64, bool)) (uint64, bool) {
	p.mu.Lock()
	f := p.next
	if f == nil {
		f = &probeFlight{done: make(chan struct{})}
		p.next = f
	}
	if !p.running {
		p.start(probe)
	}
	p.mu.Unlock()
	select {
	case <-f.done:
		return f.index, f.ok
	case <-ctx.Done():
		return 0, false
	}
}

// start runs the gathered flight, and after it the next one if callers gathered meanwhile;
// p.mu is held.
func (p *sharedProbe) start(probe func(context.Context) (uint64, bool)) {
	f := p.next
	p.next, p.running = nil, true
	go func() {
		f.index, f.ok = probe(context.Background()) // bounded by probeTimeout
		close(f.done)
		p.mu.Lock()
		defer p.mu.Unlock()
		p.running = false
		if p.next != nil {
			p.start(probe)
		}
	}()
}
