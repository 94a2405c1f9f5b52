package e2e

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/history"
)

// grantedRanges records granted HiLo ranges in a history, whose checker counts every number
// granted twice.
type grantedRanges struct{ rec *history.Recorder }

func newGrantedRanges() grantedRanges { return grantedRanges{history.New()} }

func (g grantedRanges) add(tag string, r *idnodev1.NextHiLoResponse) {
	g.rec.HiLoRange(tag, r.GetLow(), r.GetHigh())
}

func (g grantedRanges) checkDisjoint(t *testing.T) {
	t.Helper()
	if rep := g.rec.Check(rpcTimeout); rep.Duplicates != 0 {
		t.Errorf("%d HiLo numbers granted twice: %s", rep.Duplicates, rep)
	}
}

// nextRange asks via for one range of tag, keeping the range size at 32 (a previous range of
// 32 granted a minute ago: the policy keeps it).
func nextRange(ctx context.Context, ids idnodev1.IdServiceClient, tag string) (*idnodev1.NextHiLoResponse, error) {
	return ids.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: tag, LastBatchSize: 32, LastRangeAt: time.Now().Add(-45 * time.Second).UnixMilli()})
}

// A node cut off from its majority keeps granting HiLo ranges for a tag it served before, from
// its pool, while it refuses identities and a tag it never served; every range stays disjoint
// from every other, before, during and after (issue 15).
func TestHiLoPoolOnAMinority(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	log := newGrantedRanges()
	for _, tag := range clusterTags {
		r, err := nextRange(rpcCtx(t), c.ids[tag], "orders")
		if err != nil {
			t.Fatalf("orders via %s: %v", tag, err)
		}
		log.add("orders", r)
	}
	for _, tag := range c.others("A") {
		c.node(tag).kill9()
	}
	const onMinority = 20 // 640 numbers: within the first pool (1024)
	for i := range onMinority {
		r, err := nextRange(rpcCtx(t), c.ids["A"], "orders")
		if err != nil {
			t.Fatalf("range %d of orders on A, cut off: %v; want one from A's pool", i, err)
		}
		if r.GetServerTag() != "A" {
			t.Fatalf("range %d granted by %q, want A", i, r.GetServerTag())
		}
		log.add("orders", r)
	}
	_, err := c.ids["A"].Generate(rpcCtx(t), &idnodev1.GenerateRequest{Id: "orders|"})
	if status.Code(err) != codes.Unavailable || (reason.Of(err) != reason.NoQuorum && reason.Of(err) != reason.OutcomeUnknown) {
		t.Fatalf("an identity on the minority = %v; want UNAVAILABLE, NO_QUORUM (or OUTCOME_UNKNOWN from a leader that lost its majority mid-call)", err)
	}
	if _, err := nextRange(rpcCtx(t), c.ids["A"], "invoices"); status.Code(err) != codes.Unavailable {
		t.Fatalf("a tag A never served, on the minority = %v; want UNAVAILABLE (its first pool needs a quorum)", err)
	}

	for _, tag := range c.others("A") {
		c.node(tag).restart()
	}
	c.waitServing(clusterTags...)
	for _, tag := range clusterTags {
		for range 5 {
			r, err := nextRange(rpcCtx(t), c.ids[tag], "orders")
			if err != nil {
				t.Fatalf("orders via %s after healing: %v", tag, err)
			}
			log.add("orders", r)
		}
	}
	log.checkDisjoint(t)
}

// kill -9 of a node while it grants from its pool, then a restart: no range it acknowledged
// before the crash is granted again.
func TestHiLoPoolSurvivesKill9(t *testing.T) {
	t.Parallel()
	c := startCluster(t)
	log := newGrantedRanges()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	var granted atomic.Int64
	for range 4 {
		wg.Go(func() {
			for i := 0; i < 2000 && ctx.Err() == nil; i++ {
				cctx, ccancel := context.WithTimeout(ctx, rpcTimeout)
				r, err := nextRange(cctx, c.ids["B"], "carts")
				ccancel()
				if err == nil {
					log.add("carts", r)
					granted.Add(1)
				}
			}
		})
	}
	eventually(t, leaderTimeout, "B granted some ranges", func() error {
		if n := granted.Load(); n < 40 {
			return fmt.Errorf("%d ranges so far", n)
		}
		return nil
	})
	c.node("B").kill9()
	c.node("B").restart()
	c.waitServing("B")
	eventually(t, leaderTimeout, "B grants again after its restart", func() error {
		r, err := nextRange(rpcCtx(t), c.ids["B"], "carts")
		if err != nil {
			return err
		}
		log.add("carts", r)
		return nil
	})
	cancel()
	wg.Wait()
	for range 40 {
		r, err := nextRange(rpcCtx(t), c.ids["B"], "carts")
		if err != nil {
			t.Fatalf("carts via B after the restart: %v", err)
		}
		log.add("carts", r)
	}
	log.checkDisjoint(t)
}

// A seed above numbers a node's pool still holds (reserved before the seed) makes the pool
// skip them: the seeded store printed them (issue 14's migration, with pools).
func TestHiLoSeedAbovePoolNumbers(t *testing.T) {
	t.Parallel()
	p := startNode(t, nodeOpts{})
	p.waitServing(serveTimeout)
	ids, _ := dial(t, p.GRPCAddr)
	first, err := nextRange(rpcCtx(t), ids, "orders")
	if err != nil || first.GetLow() != 1 {
		t.Fatalf("first range = %v, %v; want it to start at 1 (the node's pool)", first, err)
	}
	if _, err := ids.SeedHiLo(rpcCtx(t), &idnodev1.SeedHiLoRequest{Tag: "orders", Max: 500}); err != nil {
		t.Fatal(err)
	}
	if r, err := nextRange(rpcCtx(t), ids, "orders"); err != nil || r.GetLow() <= 500 {
		t.Fatalf("range after SeedHiLo(orders, 500) = %v, %v; want it above 500, though the pool held 33…1024", r, err)
	}
}

// A retry of a NextHiLo call with the same request_id gets the same range from the node's
// pool, as it does through the log; the request_id for another tag is refused.
func TestHiLoPoolRequestIDReplays(t *testing.T) {
	t.Parallel()
	p := startNode(t, nodeOpts{})
	p.waitServing(serveTimeout)
	ids, _ := dial(t, p.GRPCAddr)
	req := &idnodev1.NextHiLoRequest{Tag: "orders", RequestId: "retry-1"}
	first, err := ids.NextHiLo(rpcCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := ids.NextHiLo(rpcCtx(t), req)
	if err != nil || again.GetLow() != first.GetLow() || again.GetHigh() != first.GetHigh() {
		t.Fatalf("the retry = %v, %v; want the first answer %d..%d", again, err, first.GetLow(), first.GetHigh())
	}
	_, err = ids.NextHiLo(rpcCtx(t), &idnodev1.NextHiLoRequest{Tag: "carts", RequestId: "retry-1"})
	if status.Code(err) != codes.InvalidArgument || reason.Of(err) != reason.RequestIDReused {
		t.Fatalf("request_id retry-1 for another tag = %v; want INVALID_ARGUMENT, REQUEST_ID_REUSED", err)
	}
	if next, err := ids.NextHiLo(rpcCtx(t), &idnodev1.NextHiLoRequest{Tag: "orders", RequestId: "retry-2"}); err != nil || next.GetLow() <= first.GetHigh() {
		t.Fatalf("a new request = %v, %v; want a range after %d", next, err, first.GetHigh())
	}
}
