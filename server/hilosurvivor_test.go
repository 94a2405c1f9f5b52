package server_test

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/hilo"
	"github.com/idnode/idnode/node"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// grantedRange is a HiLo range a node answered, with the last_max its request carried.
type grantedRange struct {
	low, high, lastMax int64
	node               string
	cut                bool // granted while the cluster was cut apart
}

// routedSource is the RangeSource of a long-running generator whose calls go through the
// Go client it is pointed at now (one per phase of the test), recording every range answered.
type routedSource struct {
	to  atomic.Pointer[client.Client]
	cut atomic.Bool

	mu     sync.Mutex
	ranges []grantedRange
}

func (r *routedSource) NextHiLo(ctx context.Context, req *idnodev1.NextHiLoRequest) (*idnodev1.NextHiLoResponse, error) {
	resp, err := r.to.Load().NextHiLo(ctx, req)
	if err == nil {
		r.record(grantedRange{low: resp.GetLow(), high: resp.GetHigh(), lastMax: req.GetLastMax(), node: resp.GetServerTag(), cut: r.cut.Load()})
	}
	return resp, err
}

func (r *routedSource) ReturnHiLo(ctx context.Context, req *idnodev1.ReturnHiLoRequest) (bool, error) {
	return r.to.Load().ReturnHiLo(ctx, req)
}

func (r *routedSource) record(g grantedRange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ranges = append(r.ranges, g)
}

func (r *routedSource) granted() []grantedRange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ranges)
}

// dialNodes is a Go client of the nodes tags, in that order, on the cluster's network.
func dialNodes(t *testing.T, c *testCluster, tags ...string) *client.Client {
	t.Helper()
	var addrs []string
	for _, tag := range tags {
		addrs = append(addrs, c.Node(tag).GRPCAddr)
	}
	cl, err := client.Dial(t.Context(), addrs, client.WithNodesInOrder(), client.WithCallTimeout(2*time.Second),
		client.WithDialOptions(c.DialOptions()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close(context.Background()) })
	return cl
}

// The user's sequence: pools reserved in turn (survivor, other follower, leader), a
// long-running client takes many ranges through the leader until its last_max lies above the
// survivor's whole pool, then the leader and the other follower are lost. The survivor must go
// on granting ranges to that client, with its real last_max, until its pool is used up; after
// the heal, every range anyone granted is disjoint from every other and no ID was printed twice.
func TestASurvivorGrantsToALongRunningClientBelowItsLastMax(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := newVirtualTestClusterConfigured(t, 3, func(c *node.Config) { c.HiLoPools = true })
		leader := c.waitLeader(convergeTimeout, c.Tags()...)
		survivor, other := without(c.Tags(), leader)[0], without(c.Tags(), leader)[1]
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		const tag = "orders"

		// Pools in turn: the survivor's first, then the other follower's; the leader's come above.
		src := &routedSource{}
		for _, n := range []string{survivor, other} {
			resp, err := idnodev1.NewIdServiceClient(c.Dial(t, n)).NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: tag})
			if err != nil {
				t.Fatalf("first range through %s: %v", n, err)
			}
			src.record(grantedRange{low: resp.GetLow(), high: resp.GetHigh(), node: n})
		}
		survivorPoolHigh := src.granted()[1].low - 1 // the other follower's pool starts right above

		// The long-running client, through the leader, until its ranges lie above the survivor's pool.
		src.to.Store(dialNodes(t, c, leader))
		gen, err := hilo.NewGenerator(src, tag, hilo.WithFetchTimeout(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { gen.Close(context.Background()) })
		printed := map[string]bool{}
		take := func(ctx context.Context) error {
			id, err := gen.NextID(ctx)
			if err != nil {
				return err
			}
			if printed[id] {
				t.Fatalf("ID %s printed twice", id)
			}
			printed[id] = true
			return nil
		}
		for range 4000 {
			if err := take(ctx); err != nil {
				t.Fatalf("an ID through the leader: %v", err)
			}
		}
		before := src.granted()
		if last := before[len(before)-1]; last.high <= survivorPoolHigh || len(before) < 6 {
			t.Fatalf("the client took %d ranges, the newest ending at %d; want several, above the survivor's pool (up to %d)", len(before)-2, last.high, survivorPoolHigh)
		}
		held := poolHeld(t, ctx, dialNodes(t, c, leader), tag, survivor)

		// The leader and the other follower are lost: every node alone, the client on the survivor.
		c.Partition([]string{leader}, []string{other}, []string{survivor})
		src.to.Store(dialNodes(t, c, survivor))
		src.cut.Store(true)
		for {
			callCtx, cancel := context.WithTimeout(ctx, 8*time.Second)
			err := take(callCtx)
			cancel()
			if err != nil {
				break // the survivor's pool is used up: it refuses until a leader answers again
			}
		}
		var fromSurvivor, below, survivorRanges int64
		for _, g := range src.granted() {
			if g.cut && g.node == survivor {
				fromSurvivor, survivorRanges = fromSurvivor+g.high-g.low+1, survivorRanges+1
				if g.high <= g.lastMax {
					below++
				}
			}
		}
		if fromSurvivor < held || below == 0 {
			t.Fatalf("cut off, the survivor granted %d numbers to the client (%d ranges below its last_max); want its whole pool, %d numbers, "+
				"from below the client's last_max", fromSurvivor, below, held)
		}
		// The leader, alone, still grants from its own pool to another caller.
		for range 3 {
			callCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
			resp, err := idnodev1.NewIdServiceClient(c.Dial(t, leader)).NextHiLo(callCtx, &idnodev1.NextHiLoRequest{Tag: tag})
			cancel()
			if err == nil {
				src.record(grantedRange{low: resp.GetLow(), high: resp.GetHigh(), node: leader, cut: true})
			}
		}

		// Heal: the client goes on through every node, and each node grants once more.
		c.Heal()
		c.waitLeader(convergeTimeout, c.Tags()...)
		src.cut.Store(false)
		src.to.Store(dialNodes(t, c, c.Tags()...))
		for range 1000 {
			if err := take(ctx); err != nil {
				t.Fatalf("an ID after the heal: %v", err)
			}
		}
		for _, n := range c.Tags() {
			resp, err := idnodev1.NewIdServiceClient(c.Dial(t, n)).NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: tag, LastMax: 1})
			if err != nil {
				t.Fatalf("a range through %s after the heal: %v", n, err)
			}
			src.record(grantedRange{low: resp.GetLow(), high: resp.GetHigh(), node: n})
		}
		all := slices.SortedFunc(slices.Values(src.granted()), func(a, b grantedRange) int { return cmp.Compare(a.low, b.low) })
		for i := 1; i < len(all); i++ {
			if all[i-1].high >= all[i].low {
				t.Fatalf("ranges %+v and %+v overlap", all[i-1], all[i])
			}
		}
		t.Logf("%d ranges disjoint; cut off, the survivor granted %d numbers in %d ranges (%d below last_max) of the %d it held",
			len(all), fromSurvivor, survivorRanges, below, held)
	})
}

// poolHeld is how many numbers node's pool of tag holds, as ListHiLo through cl reports it. A
// node that answers the listing node late is listed without its figures, so it asks again until
// they are there.
func poolHeld(t *testing.T, ctx context.Context, cl *client.Client, tag, node string) int64 {
	t.Helper()
	var held int64
	waitFor(t, "ListHiLo to show node "+node+"'s pool of "+tag, convergeTimeout, func() (bool, string) {
		resp, err := cl.ListHiLo(ctx, &idnodev1.ListHiLoRequest{Prefix: tag})
		if err != nil {
			return false, "ListHiLo: " + err.Error()
		}
		for _, tg := range resp.GetTags() {
			for _, p := range tg.GetPools() {
				if tg.GetTag() == tag && p.GetNode() == node && p.GetAnswered() {
					held = p.GetRemaining()
					return true, ""
				}
			}
		}
		return false, "no answered pool in " + resp.String()
	})
	return held
}
