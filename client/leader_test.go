package client

import (
	"testing"
)

func callsOf(nodes []*fakeNode) []int {
	out := make([]int, len(nodes))
	for i, n := range nodes {
		n.mu.Lock()
		out[i] = n.calls
		n.mu.Unlock()
	}
	return out
}

// Once a node names the leader, identity calls go there first; local strategies stay where
// they were; when the leader fails, the call moves on to the others.
func TestLeaderBoundCallsGoToTheLeader(t *testing.T) {
	_, nodes, addrs := fakeCluster(t, "A", "B", "C")
	for _, n := range nodes {
		n.set(func(n *fakeNode) { n.leader = addrs[2] })
	}
	c := dialTest(t, addrs)
	ctx := testCtx(t)
	if _, err := c.NextIdentity(ctx, "orders", 1); err != nil { // at A, which names C
		t.Fatal(err)
	}
	for range 10 {
		if _, err := c.NextIdentity(ctx, "orders", 1); err != nil {
			t.Fatal(err)
		}
	}
	if got := callsOf(nodes); got[0] != 1 || got[1] != 0 || got[2] != 10 {
		t.Fatalf("calls per node after 11 identities = %v; want 1 at A (which named C), then 10 at C", got)
	}
	if _, err := c.Generate(ctx, "users/", 1); err != nil {
		t.Fatal(err)
	}
	if got := callsOf(nodes); got[0] != 2 {
		t.Fatalf("calls per node after a server-side ID = %v; want it at A, the preferred node, not the leader", got)
	}
	nodes[2].set(func(n *fakeNode) { n.down = true })
	if _, err := c.NextIdentity(ctx, "orders", 1); err != nil {
		t.Fatalf("NextIdentity with the named leader down: %v; want another node to answer", err)
	}
}

// After the leader fails, the followers name it for a while yet (until they notice and elect
// another): the client trusts its own observation over such a hint for leaderHintDistrust, so
// the next calls do not try the dead node first again. After that, hints naming it count again.
func TestALeaderHintDoesNotOutweighTheClientsOwnObservationOfAFailure(t *testing.T) {
	_, nodes, addrs := fakeCluster(t, "A", "B", "C")
	for _, n := range nodes {
		n.set(func(n *fakeNode) { n.leader = addrs[0] })
	}
	c := dialTest(t, addrs, WithNodesInOrder())
	clock := newFakeClock()
	c.now = clock.now
	ctx := testCtx(t)
	if _, err := c.NextIdentity(ctx, "orders", 1); err != nil { // at A, which names itself
		t.Fatal(err)
	}
	takeDown(nodes[0], true)
	for i := range 3 {
		if _, err := c.NextIdentity(ctx, "orders", 1); err != nil {
			t.Fatal(err)
		}
		if got := callsOf(nodes); got[0] != 2 {
			t.Fatalf("calls per node after %d identities with A dead and B and C still naming it = %v; want A asked once, when it failed", i+1, got)
		}
	}
	// Once the distrust has passed, a hint naming A counts again: A back as leader gets the
	// calls that need it without a follower's hop.
	takeDown(nodes[0], false)
	clock.advance(leaderHintDistrust)
	for range 2 {
		if _, err := c.NextIdentity(ctx, "orders", 1); err != nil {
			t.Fatal(err)
		}
	}
	if got := callsOf(nodes); got[0] != 3 {
		t.Fatalf("calls per node after A came back and the hint's distrust passed = %v; want the second identity at A", got)
	}
}
