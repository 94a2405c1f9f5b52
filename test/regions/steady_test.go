package regions

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/idnode/idnode/cluster"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
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

	ids, errs := c.load(t, steadyCallers, steadyFor)
	for _, err := range errs {
		t.Error(err)
	}
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			t.Errorf("%s was handed out twice", id)
		}
		seen[id] = true
	}
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

// load runs callers goroutines taking identities for d, spread over every node, and returns
// the IDs they were given and the calls that failed (at most one per caller).
func (c *wanCluster) load(t *testing.T, callers int, d time.Duration) (ids []string, errs []error) {
	var tags []string
	for tag := range c.nodes {
		tags = append(tags, tag)
	}
	clients := make([]idnodev1.IdServiceClient, len(tags))
	for i, tag := range tags {
		clients[i] = c.client(t, tag)
	}
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	end := time.Now().Add(d)
	for i := range callers {
		wg.Go(func() {
			client := clients[i%len(clients)]
			var mine []string
			for time.Now().Before(end) {
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				resp, err := client.Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|"})
				cancel()
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("caller %d through %s: %w", i, tags[i%len(tags)], err))
					mu.Unlock()
					break
				}
				mine = append(mine, resp.GetIds()...)
			}
			mu.Lock()
			ids = append(ids, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return ids, errs
}
