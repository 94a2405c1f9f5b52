package regions

import (
	"flag"
	"testing"
	"time"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/test/helpers/wan"
)

// The conditions BenchmarkLANTimingAcrossRegions runs under: three nodes in three regions
// -lan-rtt apart, each direction of each link varying by up to -lan-jitter, -lan-callers
// callers taking identities for -lan-for.
var (
	lanRTT     = flag.Duration("lan-rtt", 90*time.Millisecond, "round trip between the regions of BenchmarkLANTimingAcrossRegions")
	lanJitter  = flag.Duration("lan-jitter", 0, "jitter of each direction of BenchmarkLANTimingAcrossRegions' links; 0: a tenth of its delay")
	lanCallers = flag.Int("lan-callers", 16, "callers of BenchmarkLANTimingAcrossRegions")
	lanFor     = flag.Duration("lan-for", 30*time.Second, "how long BenchmarkLANTimingAcrossRegions loads the cluster")
	lanRaftRTT = flag.Duration("lan-raft-rtt", cluster.LANRoundTrip, "--raft-rtt of BenchmarkLANTimingAcrossRegions' nodes (default: the LAN's)")
)

// BenchmarkLANTimingAcrossRegions finds where the LAN timing (the default --raft-rtt) stops
// holding a leader across regions: it reports the leader changes the nodes saw and the calls
// refused while callers took identities through every node (docs/regions.md, "When the LAN
// timing fails").
//
//	go test ./test/regions -run '^$' -bench LANTimingAcrossRegions -benchtime 1x -lan-rtt 90ms -lan-jitter 60ms
func BenchmarkLANTimingAcrossRegions(b *testing.B) {
	timing, err := cluster.TimingForRoundTrip(*lanRaftRTT)
	if err != nil {
		b.Fatal(err)
	}
	apart := wan.RoundTrips{{"a", "b"}: *lanRTT, {"b", "c"}: *lanRTT, {"a", "c"}: *lanRTT}
	for b.Loop() {
		changes, refused, ids := leaderUnder(b, apart, *lanJitter, timing, *lanCallers, *lanFor)
		b.ReportMetric(float64(changes), "leader-changes")
		b.ReportMetric(float64(refused), "callers-refused")
		b.ReportMetric(float64(ids)/lanFor.Seconds(), "identities/s")
	}
}

// leaderUnder starts three nodes in three regions apart over links with jitter, each node
// timed by timing, has callers take identities through every node for d, and returns the
// leader changes the nodes saw between them, how many callers were refused at least once,
// and how many identities were handed out. It fails tb if an ID was handed out twice.
func leaderUnder(tb testing.TB, apart wan.RoundTrips, jitter time.Duration, timing cluster.Timing, callers int, d time.Duration) (changes, refused, ids int) {
	c := startOver(tb, apart, jitter, []member{{"A", "a"}, {"B", "b"}, {"C", "c"}}, timing, timing.ElectionWait(), "")
	c.waitLeader(tb, time.Minute)
	c.waitLeaderLogged(tb, time.Minute)
	start := time.Now()
	got, errs := c.load(tb, callers, c.tags(), time.After(d), false)()
	checkUnique(tb, got)
	for tag, seen := range c.leaderChangesSince(start) {
		changes += len(seen)
		tb.Logf("node %s saw %d leader changes", tag, len(seen))
	}
	for _, err := range errs {
		tb.Logf("refused: %v", err)
	}
	tb.Logf("round trips %v, jitter %v, heartbeat timeout %v, %d callers for %v: %d identities, %d leader changes, %d callers refused",
		apart, jitter, timing.HeartbeatTimeout, callers, d, len(got), changes, len(errs))
	return changes, len(errs), len(got)
}
