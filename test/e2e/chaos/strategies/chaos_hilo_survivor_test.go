package strategies

// Schedule hilo-survivor; chaostest/chaos_hilo_survivor.go has its clients and checks.

import (
	"fmt"

	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// hiloSurvivorClients is how many long-running clients hilo-survivor runs.
const hiloSurvivorClients = 3

// hiloSurvivor is the schedule of clients that have been running when their majority goes:
// every node reserves its pool of a tag in turn, the clients take ranges through the leader
// until their last_max lies above every other pool, then the leader and a follower are paused.
// The follower left grants those clients ranges from its pool, below their last_max, until it
// is used up; the suite checks after the heal that no number was granted twice.
func hiloSurvivor(r *chaostest.ChaosRun) {
	tag := chaostest.ChaosPoolTagSurvivor
	r.WarmPools(tag)
	leader := r.Leader()
	survivor := r.Others(leader)[0]
	lost := r.Others(survivor)
	clients := r.LongRunning(tag, leader, hiloSurvivorClients)
	held := r.PoolHeld(tag, survivor)
	r.Docker.Pause(r.T, lost...)
	granted := r.HoldSurvivor(clients, survivor, held, func() {
		r.Minority(survivor)
		r.Progress("during: "+chaostest.JoinTags(lost)+" paused", []string{survivor}, false)
	})
	r.Docker.Unpause(r.T, lost...)
	r.Note = fmt.Sprintf("survivor=%s granted=%d/%d to %d clients (%s paused)", survivor, granted, held, hiloSurvivorClients, chaostest.JoinTags(lost))
}
