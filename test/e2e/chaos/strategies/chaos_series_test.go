package strategies

// Schedule series; chaostest/chaos_series.go has its issuers and checks.

import (
	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// seriesChaos is the `series` schedule: the series clients join the load, then the leader is
// isolated and healed, then the (new) leader is killed and started again.
func seriesChaos(r *chaostest.ChaosRun) {
	r.CreateSeries()
	r.Load.StartSeries()
	r.SeriesProgress("before the fault: series clients running")

	leader := r.Leader()
	rest := r.Others(leader)
	r.Docker.Disconnect(r.T, leader)
	r.SeriesMinority(leader)
	r.Progress("during: "+leader+" isolated, majority "+chaostest.JoinTags(rest), rest, true)
	r.Docker.Connect(r.T, leader)
	r.Recover("after reconnecting " + leader)
	r.SeriesProgress("after reconnecting " + leader)

	leader = r.Leader()
	rest = r.Others(leader)
	r.Docker.Kill(r.T, leader)
	r.Progress("during: "+leader+" killed, survivors "+chaostest.JoinTags(rest), rest, true)
	r.Docker.Start(r.T, leader)
}
