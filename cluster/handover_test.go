package cluster

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/raft"
)

// slowTimeoutNow delays the TimeoutNow a leader sends to start a hand-over, as a loaded
// machine does when the target's main loop is busy with an fsync or a large entry.
type slowTimeoutNow struct {
	*raft.InmemTransport
	delay atomic.Int64 // nanoseconds
}

func (s *slowTimeoutNow) TimeoutNow(id raft.ServerID, target raft.ServerAddress, args *raft.TimeoutNowRequest, resp *raft.TimeoutNowResponse) error {
	time.Sleep(time.Duration(s.delay.Load()))
	return s.InmemTransport.TimeoutNow(id, target, args, resp)
}

// handOverCluster is three nodes whose TimeoutNow can be slowed down, and its leader.
func handOverCluster(t *testing.T) (nodes map[string]*Node, trans map[string]*slowTimeoutNow, leader string) {
	t.Helper()
	trans = map[string]*slowTimeoutNow{}
	dirs := map[string]string{"A": t.TempDir(), "B": t.TempDir(), "C": t.TempDir()}
	nodes = inmemClusterWith(t, dirs, func(tag string, tr *raft.InmemTransport) raft.Transport {
		trans[tag] = &slowTimeoutNow{InmemTransport: tr}
		return trans[tag]
	}, "A", "B", "C")
	t.Cleanup(func() { closeAll(t, nodes) })
	l := leaderOf(t, nodes["A"], nodes["B"], nodes["C"])
	return nodes, trans, l.ID()
}

func otherThan(nodes map[string]*Node, tag string) string {
	for other := range nodes {
		if other != tag {
			return other
		}
	}
	return ""
}

// raft gives a transfer one election timeout, counted before the TimeoutNow that starts it is
// even sent. On a loaded machine the target may get that message later and still win at once;
// the hand-over happened, and TransferLeadership says so instead of failing a transfer that
// moved leadership.
func TestATransferThatOutlastsRaftsTimeoutStillLands(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		nodes, trans, old := handOverCluster(t)
		target := otherThan(nodes, old)
		trans[old].delay.Store(int64(2 * DefaultTiming.ElectionTimeout))
		to := Member{ID: target, Address: string(trans[target].LocalAddr()), Voter: true}
		if err := nodes[old].TransferLeadership(to); err != nil {
			t.Fatalf("TransferLeadership from %s to %s, its TimeoutNow late by %v: %v",
				old, target, 2*DefaultTiming.ElectionTimeout, err)
		}
		waitFor(t, target+" leads", nodes[target].IsLeader)
	})
}

// A transfer whose TimeoutNow never reaches the target leaves this node leading, and the
// caller hears that it failed.
func TestATransferThatNeverLandsFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		nodes, trans, old := handOverCluster(t)
		target := otherThan(nodes, old)
		trans[old].Disconnect(trans[target].LocalAddr())
		t.Cleanup(func() { trans[old].Connect(trans[target].LocalAddr(), trans[target].InmemTransport) })
		to := Member{ID: target, Address: string(trans[target].LocalAddr()), Voter: true}
		if err := nodes[old].TransferLeadership(to); err == nil {
			t.Fatalf("TransferLeadership from %s to %s, which it cannot reach, succeeded", old, target)
		}
		if !nodes[old].IsLeader() {
			t.Errorf("%s stopped leading after a transfer that failed", old)
		}
	})
}
