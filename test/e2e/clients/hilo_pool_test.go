package clients

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// A node cut off from its majority keeps granting HiLo ranges for a tag it served before, from
// its pool, while it refuses identities and a tag it never served; every range stays disjoint
// from every other, before, during and after.
func TestHiLoPoolOnAMinority(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	log := e2etest.NewGrantedRanges()
	for _, tag := range e2etest.ClusterTags {
		rangeWithAMajority(t, c, log, tag)
	}
	for _, tag := range c.Others("A") {
		c.Node(tag).Kill9()
	}
	const onMinority = 20 // 640 numbers: within the first pool (1024)
	for i := range onMinority {
		r, err := e2etest.NextRange(e2etest.RPCCtx(t), c.Ids["A"], "orders")
		if err != nil {
			t.Fatalf("range %d of orders on A, cut off: %v; want one from A's pool", i, err)
		}
		if r.GetServerTag() != "A" {
			t.Fatalf("range %d granted by %q, want A", i, r.GetServerTag())
		}
		log.Add("orders", r)
	}
	_, err := c.Ids["A"].Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: "orders|"})
	if status.Code(err) != codes.Unavailable || (reason.Of(err) != reason.NoQuorum && reason.Of(err) != reason.OutcomeUnknown) {
		t.Fatalf("an identity on the minority = %v; want UNAVAILABLE, NO_QUORUM (or OUTCOME_UNKNOWN from a leader that lost its majority mid-call)", err)
	}
	if _, err := e2etest.NextRange(e2etest.RPCCtx(t), c.Ids["A"], "invoices"); status.Code(err) != codes.Unavailable {
		t.Fatalf("a tag A never served, on the minority = %v; want UNAVAILABLE (its first pool needs a quorum)", err)
	}

	for _, tag := range c.Others("A") {
		c.Node(tag).Restart()
	}
	c.WaitServing(e2etest.ClusterTags...)
	for _, tag := range e2etest.ClusterTags {
		for range 5 {
			rangeWithAMajority(t, c, log, tag)
		}
	}
	log.CheckDisjoint(t)
}

// rangeWithAMajority takes a range of orders through node via while the cluster's majority is
// up, and logs it. An election may be under way (a node just restarted, a busy machine): a
// refusal to retry is asked again, up to LeaderTimeout.
func rangeWithAMajority(t *testing.T, c *e2etest.Cluster, log e2etest.GrantedRanges, via string) {
	t.Helper()
	err := e2etest.WhileRetryable(e2etest.LeaderTimeout, func(int) error {
		r, err := e2etest.NextRange(e2etest.RPCCtx(t), c.Ids[via], "orders")
		if err == nil {
			log.Add("orders", r)
		}
		return err
	})
	if err != nil {
		t.Fatalf("orders via %s: %v", via, err)
	}
}

// kill -9 of a node while it grants from its pool, then a restart: no range it acknowledged
// before the crash is granted again.
func TestHiLoPoolSurvivesKill9(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	log := e2etest.NewGrantedRanges()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	var granted atomic.Int64
	for range 4 {
		wg.Go(func() {
			for i := 0; i < 2000 && ctx.Err() == nil; i++ {
				cctx, ccancel := context.WithTimeout(ctx, e2etest.RPCTimeout)
				r, err := e2etest.NextRange(cctx, c.Ids["B"], "carts")
				ccancel()
				if err == nil {
					log.Add("carts", r)
					granted.Add(1)
				}
			}
		})
	}
	e2etest.Eventually(t, e2etest.LeaderTimeout, "B granted some ranges", func() error {
		if n := granted.Load(); n < 40 {
			return fmt.Errorf("%d ranges so far", n)
		}
		return nil
	})
	c.Node("B").Kill9()
	c.Node("B").Restart()
	c.WaitServing("B")
	e2etest.Eventually(t, e2etest.LeaderTimeout, "B grants again after its restart", func() error {
		r, err := e2etest.NextRange(e2etest.RPCCtx(t), c.Ids["B"], "carts")
		if err != nil {
			return err
		}
		log.Add("carts", r)
		return nil
	})
	cancel()
	wg.Wait()
	for range 40 {
		r, err := e2etest.NextRange(e2etest.RPCCtx(t), c.Ids["B"], "carts")
		if err != nil {
			t.Fatalf("carts via B after the restart: %v", err)
		}
		log.Add("carts", r)
	}
	log.CheckDisjoint(t)
}

// A seed above numbers a node's pool still holds (reserved before the seed) makes the pool skip
// them: the seeded store printed them (a migration that seeds above the old store, with pools).
func TestHiLoSeedAbovePoolNumbers(t *testing.T) {
	t.Parallel()
	p := e2etest.StartNode(t, e2etest.NodeOpts{})
	p.WaitServing(e2etest.ServeTimeout)
	ids, _ := e2etest.Dial(t, p.GRPCAddr)
	first, err := e2etest.NextRange(e2etest.RPCCtx(t), ids, "orders")
	if err != nil || first.GetLow() != 1 {
		t.Fatalf("first range = %v, %v; want it to start at 1 (the node's pool)", first, err)
	}
	if _, err := ids.SeedHiLo(e2etest.RPCCtx(t), &idnodev1.SeedHiLoRequest{Tag: "orders", Max: 500}); err != nil {
		t.Fatal(err)
	}
	if r, err := e2etest.NextRange(e2etest.RPCCtx(t), ids, "orders"); err != nil || r.GetLow() <= 500 {
		t.Fatalf("range after SeedHiLo(orders, 500) = %v, %v; want it above 500, though the pool held 33…1024", r, err)
	}
}

// A retry of a NextHiLo call with the same request_id gets the same range from the node's
// pool, as it does through the log; the request_id for another tag is refused.
func TestHiLoPoolRequestIDReplays(t *testing.T) {
	t.Parallel()
	p := e2etest.StartNode(t, e2etest.NodeOpts{})
	p.WaitServing(e2etest.ServeTimeout)
	ids, _ := e2etest.Dial(t, p.GRPCAddr)
	req := &idnodev1.NextHiLoRequest{Tag: "orders", RequestId: "retry-1"}
	first, err := ids.NextHiLo(e2etest.RPCCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ids.NextHiLo(e2etest.RPCCtx(t), req)
	if err != nil || again.GetLow() != first.GetLow() || again.GetHigh() != first.GetHigh() {
		t.Fatalf("the retry = %v, %v; want the first answer %d..%d", again, err, first.GetLow(), first.GetHigh())
	}
	_, err = ids.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "carts", RequestId: "retry-1"})
	if status.Code(err) != codes.InvalidArgument || reason.Of(err) != reason.RequestIDReused {
		t.Fatalf("request_id retry-1 for another tag = %v; want INVALID_ARGUMENT, REQUEST_ID_REUSED", err)
	}
	if next, err := ids.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "orders", RequestId: "retry-2"}); err != nil || next.GetLow() <= first.GetHigh() {
		t.Fatalf("a new request = %v, %v; want a range after %d", next, err, first.GetHigh())
	}
}
