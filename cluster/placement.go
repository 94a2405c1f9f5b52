package cluster

import (
	"time"
)

// An operator who names a preferred region (Config.PreferredRegion) wants the leader there,
// near the callers whose identities cost a round trip to it. After a failover the leader
// stays wherever the election put it, so a leader outside the preferred region looks, every
// placementCheckHeartbeats heartbeat timeouts, for a voter of that region that answers its
// hello and has applied about as far as the leader has committed, and hands it leadership
// (raft's LeadershipTransferToServer). It waits placementHoldHeartbeats heartbeat timeouts
// after it saw itself become leader (at the first check after its election) and after each
// transfer it started, so that leadership cannot flap: a node that has just returned, or
// that lost the transfer's election, is not asked again at once.
const (
	placementCheckHeartbeats = 2
	placementHoldHeartbeats  = 10
	// maxTransferLag is how many entries behind the leader's commit index a voter may have
	// applied and still count as caught up: one full append of MaxAppendEntries, which the
	// transfer itself sends before the target starts its election.
	maxTransferLag = 256
)

// keepLeaderInPreferredRegion moves leadership to the preferred region while the node runs,
// as described above; heartbeat is raft's heartbeat timeout. It does nothing without a
// preferred region, or with a custom Transport, which carries no hellos.
func (n *Node) keepLeaderInPreferredRegion(heartbeat time.Duration) {
	if n.cfg.PreferredRegion == "" || n.dial == nil {
		return
	}
	hold := placementHoldHeartbeats * heartbeat
	tick := time.NewTicker(placementCheckHeartbeats * heartbeat)
	defer tick.Stop()
	var lastTransfer time.Time
	for {
		select {
		case <-n.closed:
			return
		case <-tick.C:
		}
		if !n.placementDue(hold) || time.Since(lastTransfer) < hold {
			continue
		}
		to, ok := n.preferredVoter()
		if !ok {
			continue
		}
		lastTransfer = time.Now()
		n.log.Info("handing leadership to a voter of the preferred region", "to", to.ID, "region", n.cfg.PreferredRegion)
		if err := n.TransferLeadership(to); err != nil {
			n.log.Warn("leadership transfer to the preferred region failed; trying again later", "to", to.ID, "err", err)
		}
	}
}

// placementDue reports whether this node leads from outside the preferred region, and has led
// for at least hold. It learns since when from raft's own state at each look (every
// placementCheckHeartbeats), not from the leader log: that log's observer drops a change that
// finds its channel full, and a leader whose election the log missed would never be due, so
// the leader would stay out of the preferred region for good. A term that changed between two
// looks is a new leadership, counted from the later look.
func (n *Node) placementDue(hold time.Duration) bool {
	if n.cfg.Region == n.cfg.PreferredRegion || !n.IsLeader() {
		n.leading = leadership{}
		return false
	}
	now := time.Now()
	if term := n.raft.CurrentTerm(); n.leading.since.IsZero() || n.leading.term != term {
		n.leading = leadership{term: term, since: now}
	}
	return now.Sub(n.leading.since) >= hold
}

// leadership is the term this node leads in, and since when it has seen itself lead in it.
type leadership struct {
	term  uint64
	since time.Time
}

// preferredVoter finds a voter of the preferred region that answers its hello and has
// applied the log to within maxTransferLag of what this leader had committed when it asked.
func (n *Node) preferredVoter() (Member, bool) {
	committed := n.raft.CommitIndex()
	for _, m := range n.Members() {
		if !m.Voter || m.ID == n.cfg.ID {
			continue
		}
		h, err := askHello(n.dial, m.Address)
		if err != nil || h.ID != m.ID || h.Region != n.cfg.PreferredRegion {
			continue
		}
		if h.Applied+maxTransferLag >= committed {
			return m, true
		}
	}
	return Member{}, false
}
