package regions

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc"

	"github.com/idnode/idnode/client"
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
	call func(ctx context.Context, cl *client.Client) error
}

// strategies are the strategies the latency table shows: those any node answers alone first,
// then those that commit through the leader.
var strategies = []strategy{
	{"server-side", generate("orders/")},
	{"guid", generate("")},
	{"semantic", generate("users/ayende")},
	{"hilo-pool", func(ctx context.Context, cl *client.Client) error {
		_, err := cl.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders"})
		return err
	}},
	{"identity", generate("orders|")},
	{"series", func(ctx context.Context, cl *client.Client) error {
		_, err := cl.Series().Issue(ctx, &idnodev1.IssueRequest{Series: benchSeries, RequestId: uuid.NewString(), DocumentHash: "ab12"})
		return err
	}},
}

// benchSeries is the fiscal series the series strategy issues numbers of.
const benchSeries = "invoices"

// generate is the strategy of Generate with id.
func generate(id string) func(ctx context.Context, cl *client.Client) error {
	return func(ctx context.Context, cl *client.Client) error {
		_, err := cl.Generate(ctx, id, 1)
		return err
	}
}

// clientIn is the Go client of an application in region: it knows every node's region
// (client.WithRegion), so it sends what any node answers to a node of its region and the rest
// to the leader, and it reaches the nodes through the proxies of its region. It is closed when
// the test ends.
func (c *wanCluster) clientIn(t testing.TB, region string) *client.Client {
	t.Helper()
	var addrs []string
	regions := map[string]string{}
	for _, cfg := range c.cfgs {
		addrs = append(addrs, cfg.GRPCAddr)
		regions[cfg.GRPCAddr] = cfg.Region
	}
	slices.Sort(addrs)
	cl, err := client.Dial(t.Context(), addrs, client.WithRegion(region, regions),
		client.WithDialOptions(grpc.WithContextDialer(c.network.ClientDialer(region))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close(context.Background()) })
	return cl
}

// BenchmarkLatencyByRegion measures what one call of each strategy costs the Go client of an
// application in each region of wan.ThreeRegions, five nodes 2 + 2 + 1 (A and B in a, C and D
// in b, E in c, --raft-rtt 90ms), with the leader in a, where most nodes and the shortest
// round trips are, and in c, where an election may leave it when no region is preferred (kept
// there for the measurement by preferring c). The client knows its region (clientIn). Calls
// are made one after another, each after one untimed call that dials, warms the path and
// tells the client the leader; p50 and p99 are reported in milliseconds.
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
				func(tag string) bool { return c.cfgs[tag].Region == preferred })
			clients := map[string]*client.Client{}
			for _, region := range []string{"a", "b", "c"} {
				clients[region] = c.clientIn(b, region)
			}
			ctx, cancel := context.WithTimeout(b.Context(), time.Minute)
			defer cancel()
			if _, err := clients["a"].Series().Create(ctx, &idnodev1.CreateSeriesRequest{Name: benchSeries, Format: "INV-{n}"}); err != nil {
				b.Fatal(err)
			}
			for _, s := range strategies {
				for _, region := range []string{"a", "b", "c"} {
					b.Run(s.name+"/from-"+region, func(b *testing.B) { measureCalls(b, s, clients[region]) })
				}
			}
			if now := c.leader(); now != leader {
				b.Errorf("the leader moved from %s to %q during the measurement", leader, now)
			}
		})
	}
}

// measureCalls makes s's call through cl once untimed, then b.N times one after another, and
// reports the p50 and p99 in milliseconds.
func measureCalls(b *testing.B, s strategy, cl *client.Client) {
	call := func() error {
		ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
		defer cancel()
		return s.call(ctx, cl)
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
