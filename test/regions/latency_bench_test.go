package regions

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc"

	"github.com/idnode/idnode/cluster"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/helpers/wan"
)

// twoTwoOne is a cluster spread over the three regions of wan.ThreeRegions as an operator who
// wants to survive the loss of a region spreads five nodes: two in a, two in b, one in c.
var twoTwoOne = []member{{"A", "a"}, {"B", "a"}, {"C", "b"}, {"D", "b"}, {"E", "c"}}

// strategy is one way of taking IDs, as a client calls it.
type strategy struct {
	name string
	// local says any node answers the call alone, so a client sends it to a node of its own
	// region; otherwise it commits through the leader, and a client sends it there.
	local bool
	call  func(ctx context.Context, cc *grpc.ClientConn) error
}

// strategies are the strategies the latency table shows, local ones first.
var strategies = []strategy{
	{"server-side", true, generate("orders/")},
	{"guid", true, generate("")},
	{"semantic", true, generate("users/ayende")},
	{"hilo-pool", true, func(ctx context.Context, cc *grpc.ClientConn) error {
		_, err := idnodev1.NewIdServiceClient(cc).NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders"})
		return err
	}},
	{"identity", false, generate("orders|")},
	{"series", false, func(ctx context.Context, cc *grpc.ClientConn) error {
		_, err := idnodev1.NewSeriesServiceClient(cc).Issue(ctx, &idnodev1.IssueRequest{
			Series: benchSeries, RequestId: uuid.NewString(), DocumentHash: "ab12"})
		return err
	}},
}

// benchSeries is the fiscal series the series strategy issues numbers of.
const benchSeries = "invoices"

// generate is the strategy of Generate with id.
func generate(id string) func(ctx context.Context, cc *grpc.ClientConn) error {
	return func(ctx context.Context, cc *grpc.ClientConn) error {
		_, err := idnodev1.NewIdServiceClient(cc).Generate(ctx, &idnodev1.GenerateRequest{Id: id})
		return err
	}
}

// router picks the node a client in region sends a call of strategy s to.
type router func(region string, s strategy) (tag string)

// routeByHand routes as a region-aware client does: a local call to the node of the client's
// region whose tag sorts first, any other call (and a local one from a region with no node)
// to the leader. It is the one place to swap for the Go client's own routing.
func (c *wanCluster) routeByHand(leader string) router {
	return func(region string, s strategy) string {
		var local []string
		for tag, r := range c.regions {
			if r == region {
				local = append(local, tag)
			}
		}
		if !s.local || len(local) == 0 {
			return leader
		}
		return slices.Min(local)
	}
}

// BenchmarkLatencyByRegion measures what one call of each strategy costs a client in each
// region of wan.ThreeRegions, five nodes 2 + 2 + 1 (A and B in a, C and D in b, E in c,
// --raft-rtt 90ms), with the leader in a, where most nodes and the shortest round trips are,
// and in c, where an election may leave it when no region is preferred (kept there for the
// measurement by preferring c). The client sends each call where a region-aware client
// sends it (routeByHand). Calls are made one after another, each after one untimed call
// that dials and warms the path; p50 and p99 are reported in milliseconds.
//
//	go test ./test/regions -run '^$' -bench LatencyByRegion -benchtime 200x
func BenchmarkLatencyByRegion(b *testing.B) {
	timing, err := cluster.TimingForRoundTrip(90 * time.Millisecond)
	if err != nil {
		b.Fatal(err)
	}
	for _, preferred := range []string{"a", "c"} {
		b.Run("leader-in-"+preferred, func(b *testing.B) {
			c := startPreferring(b, wan.ThreeRegions, twoTwoOne, timing, timing.ElectionWait(), preferred)
			leader := c.waitLeaderThat(b, "a leader in region "+preferred, placementWithin,
				func(tag string) bool { return c.regions[tag] == preferred })
			ctx, cancel := context.WithTimeout(b.Context(), time.Minute)
			defer cancel()
			if _, err := idnodev1.NewSeriesServiceClient(c.conn(b, leader)).CreateSeries(ctx,
				&idnodev1.CreateSeriesRequest{Name: benchSeries, Format: "INV-{n}"}); err != nil {
				b.Fatal(err)
			}
			route := c.routeByHand(leader)
			for _, s := range strategies {
				for _, region := range []string{"a", "b", "c"} {
					cc := c.connFrom(b, region, route(region, s))
					b.Run(s.name+"/from-"+region, func(b *testing.B) { measureCalls(b, s, cc) })
				}
			}
			if now := c.leader(); now != leader {
				b.Errorf("the leader moved from %s to %q during the measurement", leader, now)
			}
		})
	}
}

// measureCalls makes s's call on cc once untimed, then b.N times one after another, and
// reports the p50 and p99 in milliseconds.
func measureCalls(b *testing.B, s strategy, cc *grpc.ClientConn) {
	call := func() error {
		ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
		defer cancel()
		return s.call(ctx, cc)
	}
	if err := call(); err != nil {
		b.Fatal(err)
	}
	took := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		err := call()
		took = append(took, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(took)
	b.ReportMetric(ms(took[len(took)/2]), "p50-ms")
	b.ReportMetric(ms(took[len(took)*99/100]), "p99-ms")
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
