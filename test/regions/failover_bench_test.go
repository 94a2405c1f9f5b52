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

// failoverRuns is how many failovers each round trip is measured over.
const failoverRuns = 5

// BenchmarkFailoverByRoundTrip measures, for three nodes in three regions the same round
// trip apart and --raft-rtt set to it, how long after the leader stops a survivor hands out
// an identity again: the failover a caller sees. Each run starts a new cluster; the fastest,
// the median and the slowest run are reported in milliseconds.
//
//	go test ./test/regions -run '^$' -bench FailoverByRoundTrip -benchtime 1x
func BenchmarkFailoverByRoundTrip(b *testing.B) {
	for _, rtt := range []time.Duration{cluster.LANRoundTrip, 30 * time.Millisecond, 70 * time.Millisecond, 90 * time.Millisecond} {
		b.Run("rtt-"+rtt.String(), func(b *testing.B) {
			timing, err := cluster.TimingForRoundTrip(rtt)
			if err != nil {
				b.Fatal(err)
			}
			apart := wan.RoundTrips{{"a", "b"}: rtt, {"b", "c"}: rtt, {"a", "c"}: rtt}
			var took []time.Duration
			for b.Loop() {
				for range failoverRuns {
					took = append(took, failover(b, apart, timing))
				}
			}
			slices.Sort(took)
			b.ReportMetric(ms(took[0]), "min-ms")
			b.ReportMetric(ms(took[len(took)/2]), "median-ms")
			b.ReportMetric(ms(took[len(took)-1]), "max-ms")
		})
	}
}

// failover starts a cluster, stops its leader, and returns how long it then took until a
// survivor answered an identity.
func failover(b *testing.B, apart wan.RoundTrips, timing cluster.Timing) time.Duration {
	c := startWANCluster(b, apart, []member{{"A", "a"}, {"B", "b"}, {"C", "c"}}, timing, timing.ElectionWait())
	leader := c.waitLeader(b, time.Minute)
	var survivor string
	for tag := range c.nodes {
		if tag != leader {
			survivor = tag
		}
	}
	client := c.client(b, survivor)
	ctx, cancel := context.WithTimeout(b.Context(), time.Minute)
	defer cancel()
	if _, err := client.Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|"}); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	c.stopNode(b, leader)
	for {
		if _, err := client.Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|"}); err == nil {
			return time.Since(start)
		}
		select {
		case <-ctx.Done():
			b.Fatal("no identity within a minute of the leader's stop")
		case <-time.After(retryPause):
		}
	}
}
