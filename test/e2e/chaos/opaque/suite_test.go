package opaque

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// schedules: opaque identities through a leader kill.
var schedules = []chaostest.ChaosSchedule{
	{Name: "opaque-leader-kill9", Run: opaqueLeaderKill},
}

// TestChaosOpaque runs the chaos suite (package chaostest) on schedules.
func TestChaosOpaque(t *testing.T) { chaostest.RunChaosSuite(t, chaostest.DeployCluster, schedules) }

// opaqueLeaderKill is the `opaque-leader-kill9` schedule: a collection turns opaque, its
// clients join the load, and the leader is killed (SIGKILL) and started again. Every form must
// read back to a value handed out once, in a linearizable history (chaostest/chaos_opaque.go).
func opaqueLeaderKill(r *chaostest.ChaosRun) {
	r.StartOpaque()
	r.Progress("before the kill: opaque clients running", r.Tags(), true)
	leader := r.Leader()
	rest := r.Others(leader)
	r.Docker.Kill(r.T, leader)
	r.Progress("during: "+leader+" killed, survivors "+chaostest.JoinTags(rest), rest, true)
	r.Docker.Start(r.T, leader)
}
