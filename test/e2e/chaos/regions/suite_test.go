package regions

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// Regions a (A, B), b (C, D) and c (E): each of the two-node regions holds two of five votes,
// so cut off from the others it is a minority, and the three nodes left are a majority. The
// leader is kept in a (--preferred-region a).
const preferred = "a"

var cluster = must(chaostest.NewChaosCluster(preferred, "a", "a", "b", "b", "c"))

// schedules: one fresh cluster, two cuts one after the other, so that the package stays well
// inside the suite's budget. First the preferred region, which holds the leader, is cut off
// for the 30 s its nodes are asked for HiLo ranges from their pools: the leader must lose its
// leadership, and get it back after the heal. Then, once recovered, region b is cut off while
// the leader stays in a, only for the checks and a load phase (a few seconds).
var schedules = []chaostest.ChaosSchedule{
	{Name: "regions-cut-off", Run: func(r *chaostest.ChaosRun) {
		a := regionCut(r, preferred, "parcels")
		r.Progress("between the cuts", r.Tags(), true)
		b := regionCut(r, "b", "")
		r.Note = a + " " + b
	}},
}

// TestChaosRegions runs the chaos suite (package chaostest) on schedules, on cluster.
func TestChaosRegions(t *testing.T) { chaostest.RunChaosSuite(t, cluster, schedules) }

// regionCut cuts region off: both its nodes leave the raft network for one of their own
// (Partition), so they still reach each other and nothing else. Before the cut the leader is
// in the preferred region and every node mints numeric IDs (taking its worker lease) and, with
// a poolTag, grants HiLo ranges of it (holding its first pool). During the cut, the majority
// keeps every strategy under the load, with a leader of its own; each cut-off node refuses
// identities at once (Minority), keeps server-side IDs, GUIDs, semantic IDs and numeric IDs
// (AnswersAlone), and, with a poolTag, grants ranges of it from its pool for 30 s
// (HoldMinority). After the heal every node must recover (Recover) and the leader return to
// the preferred region. It returns the cut's part of the schedule's line: the leaders before,
// during and after, how long after the heal the leader was back, and the ranges each cut-off
// node granted from its pool.
func regionCut(r *chaostest.ChaosRun, region, poolTag string) string {
	cut := r.Cluster.InRegion(region)
	rest := r.Others(cut...)
	leader := r.LeaderIn(r.Cluster.InRegion(preferred)...)
	r.AnswersAlone("before cutting region "+region+" off", r.Tags()...)
	pools := map[string]*chaostest.PoolClient{}
	if poolTag != "" {
		pools = r.WarmPools(poolTag)
	}
	r.T.Logf("cutting region %s (%s) off; leader %s in region %s", region, chaostest.JoinTags(cut), leader, r.Cluster.RegionOf(leader))

	r.Docker.Partition(r.T, "region-"+region, cut...)
	var during string
	granted := holdPools(r, pools, cut, func() {
		r.Minority(cut...)
		during = r.LeaderIn(rest...)
		r.AnswersAlone("region "+region+" cut off", r.Tags()...)
		r.Progress("during: region "+region+" ("+chaostest.JoinTags(cut)+") cut off, majority "+chaostest.JoinTags(rest), r.Tags(), true)
	})
	r.Docker.HealPartition(r.T, "region-"+region, cut...)
	healed := time.Now()
	// Every node answers identities again first (up to a minute: see the recovery's log line),
	// then the leader must be back in the preferred region, or return within chaosLeaderWait.
	r.Recover("after healing region " + region)
	back := r.LeaderIn(r.Cluster.InRegion(preferred)...)
	backIn := time.Since(healed)
	r.MintsAgain("after healing region "+region, cut...)

	line := fmt.Sprintf("cut_%s={nodes=%s leaders=%s,%s,%s leader_back_ms=%d", region, chaostest.JoinTags(cut), leader, during, back, backIn.Milliseconds())
	if poolTag != "" {
		ranges := make([]string, len(cut))
		for i, tag := range cut {
			ranges[i] = fmt.Sprintf("%s:%d", tag, granted[i])
		}
		line += " minority_ranges=" + strings.Join(ranges, ",")
	}
	return line + "}"
}

// holdPools runs HoldMinority for the pool client of each node of tags at once, around during,
// and returns the ranges each node granted; without pool clients it runs during alone.
func holdPools(r *chaostest.ChaosRun, pools map[string]*chaostest.PoolClient, tags []string, during func()) []int {
	if len(pools) == 0 || len(tags) == 0 {
		during()
		return make([]int, len(tags))
	}
	var rest []int
	first := r.HoldMinority(pools[tags[0]], func() { rest = holdPools(r, pools, tags[1:], during) })
	return append([]int{first}, rest...)
}

func must(c *chaostest.ChaosCluster, err error) *chaostest.ChaosCluster {
	if err != nil {
		panic(err)
	}
	return c
}
