package strategies

// Schedule hilo-minority; chaostest/chaos_hilo.go has its pools' load and checks.

import (
	"fmt"

	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// hiloMinority is the schedule of HiLo pools without a quorum: a follower alone next to two paused
// nodes, then an isolated leader, each keeps granting ranges of a tag it served before the fault,
// for chaosMinorityHold, from its pool. The schedule's line gets the ranges each one granted.
func hiloMinority(r *chaostest.ChaosRun) {
	pools := r.WarmPools(chaostest.ChaosPoolTagPaused)
	lone := r.Others(r.Leader())[0]
	frozen := r.Others(lone)
	r.Docker.Pause(r.T, frozen...)
	paused := r.HoldMinority(pools[lone], func() {
		r.Minority(lone)
		r.Progress("during: "+chaostest.JoinTags(frozen)+" paused", []string{lone}, false)
	})
	r.Docker.Unpause(r.T, frozen...)
	r.Recover("after unpausing " + chaostest.JoinTags(frozen))

	pools = r.WarmPools(chaostest.ChaosPoolTagIsolated)
	leader := r.Leader()
	rest := r.Others(leader)
	r.Docker.Disconnect(r.T, leader)
	isolated := r.HoldMinority(pools[leader], func() {
		r.Minority(leader)
		r.Progress("during: "+leader+" isolated, majority "+chaostest.JoinTags(rest), rest, true)
	})
	r.Docker.Connect(r.T, leader)
	r.Note = fmt.Sprintf("minority_ranges=%s:%d(%s paused),%s:%d(isolated)", lone, paused, chaostest.JoinTags(frozen), leader, isolated)
}
