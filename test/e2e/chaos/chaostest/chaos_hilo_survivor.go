package chaostest

// The chaos suite and HiLo clients that have been running when their node's majority goes:
// their last_max lies above every number a follower's pool holds (the leader kept reserving
// above the others), and the node left must still grant them ranges from its pool, below
// last_max, until the pool is used up.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

const (
	// ChaosPoolTagSurvivor is hilo-survivor's tag.
	ChaosPoolTagSurvivor = "tickets"
	// chaosSurvivorHold bounds how long hilo-survivor's clients ask the node left: its pool
	// (about chaosPoolFirst numbers) is used up within seconds once the node knows it has no
	// leader.
	chaosSurvivorHold = 20 * time.Second
	chaosSurvivorPace = 100 * time.Millisecond // between rounds of the clients' calls
	// chaosLongRunningCalls bounds the ranges one client takes through the leader before its
	// last_max lies above every pool: the leader's first pool, then its refill.
	chaosLongRunningCalls = 3*chaosPoolFirst/chaosPoolRange + 8
)

// LongRunning returns n clients of tag that took ranges through node, the leader, until each
// one's last_max lay above every number the cluster had reserved when it was called (the tag's
// Max): above every other node's pool. Warm the pools first (WarmPools).
func (r *ChaosRun) LongRunning(tag, node string, n int) []*PoolClient {
	r.T.Helper()
	reserved, err := r.hiloMax(tag)
	if err != nil {
		r.T.Fatalf("reading HiLo Max of %s: %v", tag, err)
	}
	var out []*PoolClient
	for range n {
		p := &PoolClient{c: r.c, run: r, node: node, tag: tag}
		for p.lastMax <= reserved {
			if p.calls >= chaosLongRunningCalls {
				r.T.Fatalf("a client of %s through %s took %d ranges and its last_max %d is not above %d, what the cluster had reserved", tag, node, p.calls, p.lastMax, reserved)
			}
			e2etest.Eventually(r.T, ChaosRecoverWait, fmt.Sprintf("a range of %s from %s", tag, node), func() error {
				_, _, err := p.next()
				if errors.Is(err, errChaosBadRange) {
					r.T.Fatal(err)
				}
				return err
			})
		}
		out = append(out, p)
	}
	r.T.Logf("%d clients of %s took ranges through %s up to last_max %d..%d, above %d reserved before", n, tag, node, out[0].lastMax, out[n-1].lastMax, reserved)
	return out
}

// PoolHeld is how many numbers node's pool of tag holds, as ListHiLo through the leader says.
func (r *ChaosRun) PoolHeld(tag, node string) int64 {
	r.T.Helper()
	var held int64 = -1
	e2etest.Eventually(r.T, ChaosRecoverWait, fmt.Sprintf("ListHiLo shows node %s's pool of %s", node, tag), func() error {
		ctx, cancel := context.WithTimeout(context.Background(), chaosAttempt)
		defer cancel()
		resp, err := r.c.ids[r.Tags()[0]].ListHiLo(ctx, &idnodev1.ListHiLoRequest{Prefix: tag})
		if err != nil {
			return err
		}
		for _, t := range resp.GetTags() {
			for _, p := range t.GetPools() {
				if t.GetTag() == tag && p.GetNode() == node && p.GetAnswered() {
					held = p.GetRemaining()
					return nil
				}
			}
		}
		return fmt.Errorf("no answered pool of %s on node %s in %v", tag, node, resp.GetTags())
	})
	return held
}

// survivorResult is what the clients saw of the node left during one hold.
type survivorResult struct {
	granted   int64 // numbers granted by the node left
	ranges    int   // ranges it granted
	below     int   // of them, ranges below the last_max the client sent
	unknown   int   // attempts that ended without an answer (each may have taken a range)
	usedUp    bool  // a whole round refused UNAVAILABLE once the pool must have been used up
	problems  []string
	perClient map[*PoolClient]int
}

// HoldSurvivor has clients ask node survivor, cut off from its majority, for ranges with their
// own last_max, round after round, until it refuses them all once its pool of held numbers
// must be used up (or chaosSurvivorHold), while during runs on the test's goroutine. It fails
// the test unless every client got ranges from the node itself, below its last_max, and the
// pool was used up; it returns the numbers the node granted.
func (r *ChaosRun) HoldSurvivor(clients []*PoolClient, survivor string, held int64, during func()) int64 {
	r.T.Helper()
	var (
		wg   sync.WaitGroup
		once sync.Once
		res  survivorResult
	)
	quit := make(chan struct{})
	r.T.Cleanup(func() { once.Do(func() { close(quit) }); wg.Wait() })
	wg.Go(func() { res = holdSurvivor(clients, survivor, held, quit) })
	during()
	wg.Wait()
	r.T.Logf("node %s without a majority: %d ranges (%d below the client's last_max), %d numbers of the %d its pool held, to %d clients; %d attempts unanswered",
		survivor, res.ranges, res.below, res.granted, held, len(clients), res.unknown)
	for _, p := range clients {
		if res.perClient[p] == 0 {
			res.problems = append(res.problems, fmt.Sprintf("a client with last_max %d, above the pool, got no range", p.lastMax))
		}
	}
	if !res.usedUp {
		res.problems = append(res.problems, fmt.Sprintf("its pool was not used up in %v: %d of %d numbers granted", chaosSurvivorHold, res.granted, held))
	}
	if n := len(res.problems); n > 0 {
		r.T.Fatalf("node %s without a majority, asked by clients that had been running: %d problem(s): %s", survivor, n, strings.Join(res.problems[:min(n, chaosPoolShown)], "; "))
	}
	return res.granted
}

func holdSurvivor(clients []*PoolClient, survivor string, held int64, quit <-chan struct{}) survivorResult {
	res := survivorResult{perClient: map[*PoolClient]int{}}
	tick := time.NewTicker(chaosSurvivorPace) // the clients' pace, not a wait for anything
	defer tick.Stop()
	begin := time.Now()
	for time.Since(begin) < chaosSurvivorHold && !res.usedUp {
		select {
		case <-quit:
			return res
		case <-tick.C:
		}
		refused := 0
		for _, p := range clients {
			p.node = survivor
			asked := p.lastMax
			resp, _, err := p.next()
			switch {
			case errors.Is(err, errChaosBadRange):
				res.problems = append(res.problems, err.Error())
			case status.Code(err) == codes.Unavailable:
				refused++
			case err != nil:
				res.unknown++
			case resp.GetServerTag() != survivor:
				res.problems = append(res.problems, fmt.Sprintf("range [%d, %d] via %s, cut off, was granted by %q", resp.GetLow(), resp.GetHigh(), survivor, resp.GetServerTag()))
			default:
				res.ranges++
				res.perClient[p]++
				res.granted += resp.GetHigh() - resp.GetLow() + 1
				if resp.GetHigh() <= asked {
					res.below++
				}
			}
		}
		res.usedUp = refused == len(clients) && res.granted+int64(res.unknown)*chaosPoolRange >= held
	}
	return res
}
