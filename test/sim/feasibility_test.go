package sim

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// waitLeader waits in virtual time until a node leads, or fails naming how long it waited.
func waitLeader(t *testing.T, c *simCluster, within time.Duration) int {
	t.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if i := c.leader(); i >= 0 {
			return i
		}
	}
	t.Fatalf("no node leads after %v of virtual time", within)
	return -1
}

// TestThreeNodesElectAndApplyInVirtualTime is the harness's footing: raft elects, replicates
// and restarts inside a synctest bubble, where every goroutine it runs blocks on channels
// and timers, so that the clock only moves when all of them wait.
func TestThreeNodesElectAndApplyInVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		c, err := newSimCluster(t.TempDir(), noBug, walLike)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := c.stop(); err != nil {
				t.Error(err)
			}
		}()
		leader := waitLeader(t, c, 10*time.Second)
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		var last int64
		for range 100 {
			res, err := fsm.Propose(ctx, applier{c, leader}, fsm.ProposeIdentityBatch, &raftv1.IdentityBatch{
				Increments: []*raftv1.IdentityIncrement{{Name: "users", Count: 1}}, ProposedAtMs: time.Now().UnixMilli()})
			if err != nil {
				t.Fatalf("increment through %s: %v", nodeName(leader), err)
			}
			last = res.Ranges[0].Last
		}
		if last != 100 {
			t.Fatalf("the 100th increment answered %d", last)
		}
		// The leader crashes; the others elect one of them and go on, and the old leader
		// comes back from its stores and catches up.
		if err := c.crash(leader); err != nil {
			t.Fatal(err)
		}
		next := waitLeader(t, c, 10*time.Second)
		if _, err := fsm.Propose(ctx, applier{c, next}, fsm.ProposeIdentityBatch, &raftv1.IdentityBatch{
			Increments: []*raftv1.IdentityIncrement{{Name: "users", Count: 1}}}); err != nil {
			t.Fatalf("increment through %s after the crash: %v", nodeName(next), err)
		}
		if err := c.restart(leader); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if c.replicaOf(leader).Identity("", "users") == 101 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s restarted but holds users = %d, not 101, after 10 s of virtual time", nodeName(leader), c.replicaOf(leader).Identity("", "users"))
			}
		}
		// The new leader is cut off from both others, which elect a third; once healed, with
		// a slow link between the two, commits go on and the cut-off node catches up.
		c.partition(next)
		third := waitLeader(t, c, 10*time.Second)
		for third == next {
			time.Sleep(10 * time.Millisecond)
			third = waitLeader(t, c, 10*time.Second)
		}
		other := 3 - next - third // the indices are 0, 1 and 2
		c.delays.set(third, other, 40*time.Millisecond)
		c.delays.set(other, third, 40*time.Millisecond)
		if _, err := fsm.Propose(ctx, applier{c, third}, fsm.ProposeIdentityBatch, &raftv1.IdentityBatch{
			Increments: []*raftv1.IdentityIncrement{{Name: "users", Count: 1}}}); err != nil {
			t.Fatalf("increment through %s over a slow link: %v", nodeName(third), err)
		}
		c.heal()
		c.delays.clear()
		for deadline := time.Now().Add(10 * time.Second); c.replicaOf(next).Identity("", "users") != 102; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s was healed but holds users = %d, not 102, after 10 s of virtual time", nodeName(next), c.replicaOf(next).Identity("", "users"))
			}
		}
		t.Logf("virtual time taken: %v", time.Since(start))
	})
}
