package regions

import (
	"testing"
	"time"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/test/helpers/wan"
)

// placementWithin bounds each wait for the leader to reach the node it should: a failover,
// or the hold after an election (ten heartbeat timeouts, 9 s at 90 ms) and a transfer.
const placementWithin = time.Minute

// With region a preferred, the leader goes to A, a's only node. When A stops, the leader moves
// to another region; when A returns, the leader comes back to it. Identities taken through B
// and C all along are never repeated.
func TestLeaderReturnsToThePreferredRegion(t *testing.T) {
	timing, err := cluster.TimingForRoundTrip(90 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	c := startPreferring(t, wan.ThreeRegions, []member{{"A", "a"}, {"B", "b"}, {"C", "c"}}, timing, timing.ElectionWait(), "a")
	c.waitLeaderThat(t, "leader A, in the preferred region", placementWithin, func(tag string) bool { return tag == "A" })

	stop := make(chan time.Time)
	wait := c.load(t, 4, []string{"B", "C"}, stop, false)
	c.stopNode(t, "A")
	away := c.waitLeaderThat(t, "a leader away from A", placementWithin, func(tag string) bool { return tag != "A" })
	c.restart(t, "A")
	c.waitLeaderThat(t, "leader A, in the preferred region", placementWithin, func(tag string) bool { return tag == "A" })
	close(stop)
	ids, errs := wait()
	checkUnique(t, ids)
	if len(ids) == 0 {
		t.Fatalf("no identity was handed out while the leader moved: %v", errs)
	}
	t.Logf("leader A, then %s, then A again; %d identities, %d callers refused at least once (%v)", away, len(ids), len(errs), errs)
}

// stopNode stops the node with tag; the others no longer count it.
func (c *wanCluster) stopNode(t testing.TB, tag string) {
	t.Helper()
	if err := c.nodes[tag].Close(); err != nil {
		t.Logf("stopping %s: %v", tag, err)
	}
	delete(c.nodes, tag)
}

// restart starts the node with tag again on its data dir.
func (c *wanCluster) restart(t testing.TB, tag string) {
	t.Helper()
	n, err := c.open(t, tag)
	if err != nil {
		t.Fatal(err)
	}
	c.nodes[tag] = n
}
