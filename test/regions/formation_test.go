package regions

import (
	"context"
	"testing"
	"time"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/internal/forward"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/wan"
)

// nearestRegions is the shortest round trip between two regions of wan.ThreeRegions, less
// the proxies' jitter: the least any call that crosses regions can take.
const nearestRegions = 27 * time.Millisecond

// Three nodes in three regions form a cluster through the latency proxies, elect a leader,
// and hand out identities. Each identity crosses regions, so it takes at least the nearest
// regions' round trip: on the leader, Raft's replication to a second node; through a
// follower, the relay to the leader as well. Were either path to go around the proxies, the
// leader's or a follower's call would take a fraction of a millisecond.
func TestClusterFormsAcrossThreeRegions(t *testing.T) {
	c := startWANCluster(t, wan.ThreeRegions, []member{{"A", "a"}, {"B", "b"}, {"C", "c"}}, cluster.DefaultTiming, forward.DefaultElectionWait)
	leader := c.waitLeader(t, time.Minute)
	for tag := range c.nodes {
		client := c.client(t, tag)
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		// The first call dials the relay; the second one measures what an identity costs. Each
		// is sent again after a refusal a client retries: an election on a busy machine is not
		// this test's subject, the path an answer takes is.
		var resp *idnodev1.GenerateResponse
		var took time.Duration
		err := e2etest.WhileRetryable(e2etest.LeaderTimeout, func(int) error {
			_, err := client.Generate(ctx, &idnodev1.GenerateRequest{Id: "users|"})
			return err
		})
		if err == nil {
			err = e2etest.WhileRetryable(e2etest.LeaderTimeout, func(int) (err error) {
				start := time.Now()
				resp, err = client.Generate(ctx, &idnodev1.GenerateRequest{Id: "users|"})
				took = time.Since(start)
				return err
			})
		}
		cancel()
		if err != nil || len(resp.GetIds()) != 1 {
			t.Fatalf("identity on %s (leader %s): %v, %v", tag, leader, resp.GetIds(), err)
		}
		if took < nearestRegions {
			t.Errorf("identity on %s (leader %s) took %v, less than a round trip between regions (%v): a path went around the proxies",
				tag, leader, took, nearestRegions)
		}
	}
}
