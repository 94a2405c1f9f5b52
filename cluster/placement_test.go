package cluster

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/raft"
)

// A leader outside the preferred region is due to hand over even when its leader log missed
// the change that made it leader: the log's observer drops a change that finds its channel
// full, and a missed change must not keep the leader out of the preferred region for good.
// The hold still counts: a leader is not due before it has led for hold.
func TestPlacementSeesLeadershipTheLogMissed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, trans := raft.NewInmemTransport("inmem-A")
		n, err := Open(context.Background(), Config{ID: "A", DataDir: t.TempDir(), RaftAddr: "inmem-A",
			Peers: []Peer{{ID: "A", Address: "inmem-A"}}, Transport: trans, Logger: quiet,
			Region: "x", PreferredRegion: "y"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Close() })
		leaderOf(t, n)
		waitFor(t, "the leader log names A", func() bool {
			changes := n.LeaderChanges()
			return len(changes) > 0 && changes[len(changes)-1].LeaderID == "A"
		})
		// What a dropped observation leaves behind: the log's last change says no one leads,
		// though this node does.
		n.leaders.add(LeaderChange{At: n.leaders.now(), LeaderID: ""})

		if n.placementDue(time.Hour) {
			t.Error("placement is due before the leader has led for the hold")
		}
		if !n.placementDue(0) {
			t.Fatal("a leader outside the preferred region is not due to hand over because its leader log missed its election")
		}
	})
}
