package client

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// fakeClock is a regionOrder's clock that moves only when a test says so.
type fakeClock struct{ ns atomic.Int64 }

// newFakeClock starts at the real time: a regionOrder takes 0 for "never failed".
func newFakeClock() *fakeClock {
	f := &fakeClock{}
	f.ns.Store(time.Now().UnixNano())
	return f
}

func (f *fakeClock) now() time.Time          { return time.Unix(0, f.ns.Load()) }
func (f *fakeClock) advance(d time.Duration) { f.ns.Add(int64(d)) }

// errUnreachable is how an attempt on a node the client cannot reach fails: UNAVAILABLE with
// no idnode reason, for the node never answered.
var errUnreachable = status.Error(codes.Unavailable, "fake: connection refused")

// takeDown makes n fail every call as a node the client cannot reach does, or, with down
// false, answer again.
func takeDown(n *fakeNode, down bool) {
	n.set(func(n *fakeNode) {
		n.refuse = nil
		if down {
			n.refuse = errUnreachable
		}
	})
}

// regionalCluster starts fake nodes A (east), B and C (west) and D (south), and a client in
// west that keeps its nodes in order and reads clock.
func regionalCluster(t *testing.T, opts ...Option) (*Client, []*fakeNode, []string, *fakeClock) {
	t.Helper()
	_, nodes, addrs := fakeCluster(t, "A", "B", "C", "D")
	regions := map[string]string{addrs[0]: "east", addrs[1]: "west", addrs[2]: "west", addrs[3]: "south"}
	c := dialTest(t, addrs, append([]Option{WithNodesInOrder(), WithRegion("west", regions)}, opts...)...)
	clock := newFakeClock()
	c.regions.now = clock.now
	return c, nodes, addrs, clock
}

// westWithOneNode starts fake nodes A (east) and B (west), the only node of its region, and a
// client in west that reads clock.
func westWithOneNode(t *testing.T) (*Client, []*fakeNode, *fakeClock) {
	t.Helper()
	_, nodes, addrs := fakeCluster(t, "A", "B")
	c := dialTest(t, addrs, WithRegion("west", map[string]string{addrs[0]: "east", addrs[1]: "west"}))
	clock := newFakeClock()
	c.regions.now = clock.now
	return c, nodes, clock
}

// generateAt makes one server-side ID and returns the tag of the node that answered it.
func generateAt(t *testing.T, c *Client) string {
	t.Helper()
	ids, err := c.Generate(testCtx(t), "users/", 1)
	if err != nil {
		t.Fatal(err)
	}
	return ids[0][strings.LastIndexByte(ids[0], '-')+1:]
}

// Calls any node answers stay in the client's region: at the first local node, then at the
// other local one when it fails, at a remote node only when both fail, and back in the region
// once a local node answers again; a node that just failed is not asked again at once.
func TestRegionalCallsStayInTheClientsRegion(t *testing.T) {
	c, nodes, _, clock := regionalCluster(t)
	for range 3 {
		if got := generateAt(t, c); got != "B" {
			t.Fatalf("server-side ID answered by %s; want B, the first node of west", got)
		}
	}
	takeDown(nodes[1], true)
	if got := generateAt(t, c); got != "C" {
		t.Fatalf("with B down, server-side ID answered by %s; want C, the other node of west", got)
	}
	failedAtB := nodes[1].callCount()
	takeDown(nodes[2], true)
	for range 3 {
		if got := generateAt(t, c); got != "A" && got != "D" {
			t.Fatalf("with west down, server-side ID answered by %s; want a node of another region", got)
		}
	}
	if got := nodes[1].callCount(); got != failedAtB {
		t.Fatalf("B was asked %d more times within a second of failing; want it skipped", got-failedAtB)
	}
	calledC := nodes[2].callCount()
	if calledC != 2 {
		t.Fatalf("C was asked %d times; want 2 (its answer, then its one failure)", calledC)
	}
	takeDown(nodes[1], false)
	takeDown(nodes[2], false)
	if got := generateAt(t, c); got == "B" || got == "C" {
		t.Fatalf("server-side ID answered by %s within a second of its failure; want it skipped for now", got)
	}
	clock.advance(regionSkip + time.Millisecond)
	for range 3 {
		if got := generateAt(t, c); got != "C" {
			t.Fatalf("a second after west came back, server-side ID answered by %s; want C, west's node that answered last", got)
		}
	}
}

// A remote node that answered while the client's region was down does not keep the calls: the
// first call after the skip goes back to the local node.
func TestRegionalCallsReturnToTheirRegionAfterAFailover(t *testing.T) {
	c, nodes, clock := westWithOneNode(t)
	takeDown(nodes[1], true)
	if got := generateAt(t, c); got != "A" {
		t.Fatalf("with west's only node down, answered by %s; want A", got)
	}
	takeDown(nodes[1], false)
	clock.advance(regionSkip)
	if got := generateAt(t, c); got != "B" {
		t.Fatalf("once B is back, answered by %s; want B, not A which answered last", got)
	}
}

// Calls for the leader go to the leader the client learnt, in another region, and to the
// client's region while it knows none; HiLo ranges come from a node of its region, and go back
// there; a server-side ID after an identity stays in the region.
func TestRegionalLeaderCallsGoToTheLeaderInAnotherRegion(t *testing.T) {
	c, nodes, addrs, _ := regionalCluster(t)
	for _, n := range nodes {
		n.set(func(n *fakeNode) { n.leader = addrs[3] })
	}
	ctx := testCtx(t)
	for range 4 {
		if _, err := c.NextIdentity(ctx, "invoices", 1); err != nil {
			t.Fatal(err)
		}
	}
	if got := callsOf(nodes); !slices.Equal(got, []int{0, 1, 0, 3}) {
		t.Fatalf("calls per node A..D after 4 identities = %v; want the first at B (west, which names D), then 3 at D", got)
	}
	if got := generateAt(t, c); got != "B" {
		t.Fatalf("server-side ID after identities answered by %s; want B: the leader in south answered, west keeps the calls", got)
	}
	r, err := c.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	if r.GetServerTag() != "B" {
		t.Fatalf("HiLo range granted by %s; want B, whose pool is in west", r.GetServerTag())
	}
	before := nodes[1].callCount()
	if _, err := c.ReturnHiLo(ctx, &idnodev1.ReturnHiLoRequest{Tag: "orders", GrantId: r.GetGrantId(), End: r.GetHigh(), Last: r.GetLow()}); err != nil {
		t.Fatal(err)
	}
	if nodes[1].callCount() != before+1 {
		t.Fatalf("the range's return did not go to B, which granted it: calls %v", callsOf(nodes))
	}
	nodes[3].set(func(n *fakeNode) { n.down = true })
	for _, n := range nodes[:3] {
		n.set(func(n *fakeNode) { n.leader = addrs[0] })
	}
	if _, err := c.NextIdentity(ctx, "invoices", 1); err != nil {
		t.Fatalf("NextIdentity with the leader down: %v; want another node to answer", err)
	}
	if got := callsOf(nodes); got[1] != before+2 {
		t.Fatalf("calls per node A..D = %v; want the identity's failover to start in west, at B", got)
	}
}

// Without WithNodesInOrder each client starts at a random node of its region, never at
// another region's.
func TestRegionalClientsSpreadOverTheirRegion(t *testing.T) {
	addrs := []string{"a:1", "b:1", "c:1", "d:1"}
	regions := map[string]string{"a:1": "east", "b:1": "west", "c:1": "west", "d:1": "south"}
	seen := map[string]int{}
	for range 100 {
		r, err := newRegionOrder("west", regions, addrs, false)
		if err != nil {
			t.Fatal(err)
		}
		seen[addrs[r.order(-1)[0]]]++
	}
	if len(seen) != 2 || seen["b:1"] == 0 || seen["c:1"] == 0 {
		t.Fatalf("first nodes of 100 clients in west: %v; want both b:1 and c:1, and no other node", seen)
	}
}

func TestWithRegionRefusesBadConfiguration(t *testing.T) {
	addrs := []string{"127.0.0.1:1", "127.0.0.1:2"}
	for _, tc := range []struct {
		name    string
		region  string
		regions map[string]string
		want    string
	}{
		{"empty region", "", map[string]string{addrs[0]: "west"}, "WithRegion: empty region"},
		{"blank region", "  ", map[string]string{addrs[0]: "west"}, "WithRegion: empty region"},
		{"empty node region", "west", map[string]string{addrs[0]: "west", addrs[1]: ""}, "node 127.0.0.1:2 has an empty region"},
		{"unknown node", "west", map[string]string{addrs[0]: "west", "127.0.0.1:3": "east"}, "127.0.0.1:3 is not one of the client's nodes"},
		{"no local node", "north", map[string]string{addrs[0]: "west", addrs[1]: "east"}, `WithRegion("north"): none of the client's nodes is in that region`},
		{"no node regions", "west", nil, `WithRegion("west"): none of the client's nodes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Dial(context.Background(), addrs, WithRegion(tc.region, tc.regions))
			if err == nil {
				_ = c.Close(context.Background())
				t.Fatalf("Dial succeeded; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Dial: %v; want an error containing %q", err, tc.want)
			}
		})
	}
}
