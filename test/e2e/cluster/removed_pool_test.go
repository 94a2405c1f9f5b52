package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// A removed node that keeps running kept granting HiLo ranges from its
// pool, which RemoveNode retires (the docs promise its numbers are never granted by anyone).
// Now it stops once it learns it was removed: its next ranges, if any, come from the cluster.
func TestRemovedNodeStopsGrantingFromItsPool(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	leader := c.Leader()
	victim := c.Others(leader)[0]
	// Each call below is asked again through an election, as a client would: the ranges with
	// their request ids, so a retry gets the range the first attempt reserved; RemoveNode of a
	// node removed already answers as the first did.
	firstReq := &idnodev1.NextHiLoRequest{Tag: "orders", RequestId: c.RequestID()}
	first, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.NextHiLoResponse, error) {
		return c.Ids[victim].NextHiLo(ctx, firstReq)
	})
	if err != nil {
		t.Fatalf("first range via %s: %v", victim, err)
	}
	// The leader reserves a pool of its own above the victim's: where the victim's pool ends.
	aboveReq := &idnodev1.NextHiLoRequest{Tag: "orders", LastMax: first.GetHigh(), RequestId: c.RequestID()}
	above, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.NextHiLoResponse, error) {
		return c.Ids[leader].NextHiLo(ctx, aboveReq)
	})
	if err != nil {
		t.Fatalf("a range via the leader %s: %v", leader, err)
	}
	poolHigh := above.GetLow() - 1
	if poolHigh <= first.GetHigh() {
		t.Fatalf("the victim's pool ends at %d, no further than its first range %d-%d: nothing to test", poolHigh, first.GetLow(), first.GetHigh())
	}
	if _, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.RemoveNodeResponse, error) {
		return c.Admin[leader].RemoveNode(ctx, &idnodev1.RemoveNodeRequest{Tag: victim})
	}); err != nil {
		t.Fatalf("RemoveNode %s: %v", victim, err)
	}
	last := first.GetHigh()
	fromPool := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		r, err := c.Ids[victim].NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders", LastMax: last})
		if err != nil {
			return nil // refused: not granted from the pool
		}
		last = r.GetHigh()
		if r.GetLow() <= poolHigh {
			return fmt.Errorf("removed node %s granted %d-%d from its retired pool (which ends at %d)", victim, r.GetLow(), r.GetHigh(), poolHigh)
		}
		return nil
	}
	// The victim learns of its removal from the configuration entry the leader sends it last.
	e2etest.Eventually(t, 10*time.Second, "the victim's configuration no longer lists it", func() error {
		st, err := c.Admin[victim].Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{})
		if err != nil {
			return err
		}
		for _, n := range st.GetNodes() {
			if n.GetTag() == victim {
				return fmt.Errorf("%s still lists itself", victim)
			}
		}
		return nil
	})
	for range 5 {
		if err := fromPool(); err != nil {
			t.Fatal(err)
		}
	}
}
