package regions

import (
	"testing"
	"time"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/test/helpers/wan"
)

// farApart are three regions 90 ms from each other.
var farApart = wan.RoundTrips{
	{"a", "b"}: 90 * time.Millisecond,
	{"b", "c"}: 90 * time.Millisecond,
	{"a", "c"}: 90 * time.Millisecond,
}

const (
	steadyCallers = 16
	steadyFor     = 20 * time.Second
)

// Three nodes 90 ms apart, told so with --raft-rtt 90ms, elect one leader and keep it while
// 16 callers take identities through every node for 20 s: no election, the term unchanged,
// every call answered, no ID twice.
func TestLeaderHoldsAt90msRoundTrips(t *testing.T) {
	timing, err := cluster.TimingForRoundTrip(90 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	c := startWANCluster(t, farApart, []member{{"A", "a"}, {"B", "b"}, {"C", "c"}}, timing, timing.ElectionWait())
	leader := c.waitLeader(t, time.Minute)
	before := c.leaderChanges()

	ids, errs := c.load(t, steadyCallers, c.tags(), time.After(steadyFor), true)()
	for _, err := range errs {
		t.Error(err)
	}
	checkUnique(t, ids)
	if now := c.leader(); now != leader {
		t.Errorf("leader %s before the load, %q after", leader, now)
	}
	for tag, changes := range c.leaderChanges() {
		if changes != before[tag] {
			t.Errorf("node %s saw the leader change under load: %v before, %v after", tag, before[tag], changes)
		}
	}
	t.Logf("%d identities in %v from %d callers", len(ids), steadyFor, steadyCallers)
}

// leaderChanges is, for each node, the last leader change it saw.
func (c *wanCluster) leaderChanges() map[string]cluster.LeaderChange {
	last := map[string]cluster.LeaderChange{}
	for tag, n := range c.nodes {
		if changes := n.Cluster().LeaderChanges(); len(changes) > 0 {
			last[tag] = changes[len(changes)-1]
		}
	}
	return last
}
