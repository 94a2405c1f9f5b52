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
