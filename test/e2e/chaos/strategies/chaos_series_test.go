package strategies

// The chaos suite's fiscal series (issue 26): issuers number documents in three series through
// all three nodes while the leader is cut off the Raft network and, once healed, killed. Each
// issue has its own request_id and is retried with it (on UNAVAILABLE, OUTCOME_UNKNOWN or a
// deadline) on the next node, so a number committed before its answer was lost is found again,
// never taken twice. Afterwards every journal must be the numbering the callers were told:
// each number of a period, from 1 to the last, issued once or skipped once, in commit order,
// every void of an issued number after its issue, the hash chain intact (VerifySeries), and
// every request_id that got an answer answering the same entry again.

import (
	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// seriesChaos is the `series` schedule: the series clients join the load, then the leader is
// isolated and healed, then the (new) leader is killed and started again.
func seriesChaos(r *chaostest.ChaosRun) {
	r.CreateSeries()
	r.Ld.StartSeries()
	r.SeriesProgress("before the fault: series clients running")

	leader := r.Leader()
	rest := chaostest.ChaosOthers(leader)
	r.D.Disconnect(r.T, leader)
	r.SeriesMinority(leader)
	r.Progress("during: "+leader+" isolated, majority "+chaostest.JoinTags(rest), rest, true)
	r.D.Connect(r.T, leader)
	r.Recover("after reconnecting " + leader)
	r.SeriesProgress("after reconnecting " + leader)

	leader = r.Leader()
	rest = chaostest.ChaosOthers(leader)
	r.D.Kill(r.T, leader)
	r.Progress("during: "+leader+" killed, survivors "+chaostest.JoinTags(rest), rest, true)
	r.D.Start(r.T, leader)
}
