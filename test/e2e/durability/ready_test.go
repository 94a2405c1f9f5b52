package durability

import (
	"fmt"
	"sync"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// readyEntries is how many Raft entries TestRestartedNodeServesOnlyCaughtUp writes before it
// restarts a follower: enough that replaying them takes the follower longer than learning
// who leads.
const readyEntries = 3000

// A restarted node answered SERVING (health, /readyz) as soon as it knew a
// leader, before its FSM had applied the log. Now SERVING means its FSM holds everything the
// leader had committed.
func TestRestartedNodeServesOnlyCaughtUp(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	leader := c.Leader()
	follower := c.Node(c.Others(leader)[0])
	const writers = 16
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range readyEntries / writers {
				// A seed sets a counter to at least its value, so asking again after an
				// election's refusal changes nothing the first attempt did.
				err := e2etest.WhileRetryable(e2etest.LeaderTimeout, func(int) error {
					_, err := c.Ids[leader].SeedIdentity(e2etest.RPCCtx(t), &idnodev1.SeedIdentityRequest{Name: fmt.Sprintf("w%d-%d", w, i), Value: 1})
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("SeedIdentity: %v", err)
	}
	var st *idnodev1.StatusResponse
	err := e2etest.WhileRetryable(e2etest.LeaderTimeout, func(int) (err error) {
		st, err = c.Admin[leader].Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{Consistent: true})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	committed := st.GetCommitIndex()

	follower.Stop()
	follower.Restart()
	c.WaitServing(follower.Tag)
	mine, err := c.Admin[follower.Tag].Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if mine.GetAppliedIndex() < committed {
		t.Fatalf("restarted node %s was SERVING with applied index %d, but the leader had committed %d before the restart",
			follower.Tag, mine.GetAppliedIndex(), committed)
	}
}
