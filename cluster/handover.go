package cluster

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hashicorp/raft"
)

// A planned hand-over of leadership (TransferLeadership: an operator's call, or the move to the
// preferred region) should cost callers nothing. raft refuses every proposal while it transfers
// and fails the ones still in flight when the leader steps down, their outcome unknown. So the
// node first stops proposing (Apply refuses with ErrHandingOver, nothing proposed), waits for
// the proposals it made to finish, and only then asks raft to transfer: no entry is in flight
// when leadership moves. The layer above holds the calls it refused (AwaitHandOver) and takes
// them to the new leader once it is known.

// drainBound bounds how long a hand-over waits for the proposals in flight: a commit takes a
// round trip and an fsync, far below it; a leader that cannot commit for that long has lost
// its quorum, and the transfer is tried anyway.
const drainBound = 2 * time.Second

// stepDownPoll is how often a transfer raft gave up on looks whether this node still leads.
const stepDownPoll = 10 * time.Millisecond

// handOver is the state of the node's hand-overs.
type handOver struct {
	mu       sync.Mutex
	inFlight int           // Apply calls proposed and not answered
	done     chan struct{} // closed when the hand-over under way ends; nil when none is
	drained  chan struct{} // closed when inFlight reaches 0 during a hand-over
}

// enter counts an Apply in flight, or refuses it with ErrHandingOver while a hand-over is
// under way. The returned leave must be called when the Apply ends.
func (h *handOver) enter() (leave func(), err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done != nil {
		return nil, ErrHandingOver
	}
	h.inFlight++
	return h.leave, nil
}

func (h *handOver) leave() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inFlight--
	if h.inFlight == 0 && h.drained != nil {
		close(h.drained)
		h.drained = nil
	}
}

// begin starts a hand-over and returns a channel closed once no proposal is in flight, and the
// hand-over's end, which must be called; ok is false when one is under way already.
func (h *handOver) begin() (drained <-chan struct{}, end func(), ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done != nil {
		return nil, nil, false
	}
	done := make(chan struct{})
	h.done = done
	d := make(chan struct{})
	if h.inFlight == 0 {
		close(d)
	} else {
		h.drained = d
	}
	return d, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.done, h.drained = nil, nil
		close(done)
	}, true
}

// under is the end of the hand-over under way, or nil.
func (h *handOver) under() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.done
}

// TransferLeadership hands leadership to the voter to, or to any up-to-date voter when to.ID
// is empty, and returns once this node no longer leads or the transfer failed; on the leader
// only. No proposal is in flight when leadership moves (see handOver).
func (n *Node) TransferLeadership(to Member) error {
	drained, end, ok := n.handOver.begin()
	if !ok {
		return ErrHandingOver
	}
	defer end()
	select {
	case <-drained:
	case <-time.After(drainBound):
		n.log.Warn("handing leadership over with proposals still in flight", "waited", drainBound)
	case <-n.closed:
		return ErrShutdown
	}
	var f raft.Future
	if to.ID == "" {
		f = n.raft.LeadershipTransfer()
	} else {
		f = n.raft.LeadershipTransferToServer(raft.ServerID(to.ID), raft.ServerAddress(to.Address))
	}
	err := f.Error()
	if err == nil || errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrRaftShutdown) {
		return err
	}
	// raft gives up on a transfer one election timeout after it began, though the TimeoutNow
	// it sent may still be on its way: on a loaded machine the target gets it late and wins
	// at once. The transfer failed only if this node still leads after the election wait of
	// the timing raft runs now (a storage fault may have stretched it).
	if n.stepsDownWithin(Timing{ElectionTimeout: n.raft.ReloadableConfig().ElectionTimeout}.ElectionWait()) {
		n.log.Info("leadership moved after raft gave up on the transfer", "raft_said", err)
		return nil
	}
	return err
}

// stepsDownWithin reports whether this node stops leading within d.
func (n *Node) stepsDownWithin(d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(stepDownPoll)
	defer tick.Stop()
	for n.raft.State() == raft.Leader {
		select {
		case <-tick.C:
		case <-deadline.C:
			return false
		case <-n.closed:
			return false
		}
	}
	return true
}

// AwaitHandOver waits until no hand-over of leadership is under way on this node, or ctx ends.
// A call that Apply refused with ErrHandingOver waits here, then goes to whoever leads.
func (n *Node) AwaitHandOver(ctx context.Context) {
	done := n.handOver.under()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	case <-n.closed:
	}
}
