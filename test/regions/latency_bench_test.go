package regions

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/idnode/idnode/cluster"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/helpers/wan"
)

// BenchmarkLatencyByRegion measures what one call costs a client in each region of
// wan.ThreeRegions, one node per region (A in a, B in b, C in c), with the leader kept in a by
// --preferred-region: an identity (a Raft commit, relayed to the leader from b and c) and a
// server-side ID (the node alone). Calls are made one after another, so each is a whole
// round; p50 and p99 are reported in milliseconds.
//
//	go test ./test/regions -run '^$' -bench LatencyByRegion -benchtime 200x
func BenchmarkLatencyByRegion(b *testing.B) {
	timing, err := cluster.TimingForRoundTrip(90 * time.Millisecond)
	if err != nil {
		b.Fatal(err)
	}
	c := startPreferring(b, wan.ThreeRegions, []member{{"A", "a"}, {"B", "b"}, {"C", "c"}}, timing, timing.ElectionWait(), "a")
	c.waitLeaderThat(b, "leader A, in the preferred region", placementWithin, func(tag string) bool { return tag == "A" })
	for _, strategy := range []struct{ name, id string }{{"identity", "orders|"}, {"server-side", "orders/"}} {
		for _, from := range []string{"A", "B", "C"} {
			client := c.client(b, from)
			b.Run(strategy.name+"/from-"+from, func(b *testing.B) {
				took := make([]time.Duration, 0, b.N)
				for b.Loop() {
					ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
					start := time.Now()
					_, err := client.Generate(ctx, &idnodev1.GenerateRequest{Id: strategy.id})
					took = append(took, time.Since(start))
					cancel()
					if err != nil {
						b.Fatal(err)
					}
				}
				slices.Sort(took)
				b.ReportMetric(ms(took[len(took)/2]), "p50-ms")
				b.ReportMetric(ms(took[len(took)*99/100]), "p99-ms")
			})
		}
	}
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
