package crash

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// schedules crash, freeze or restart processes: SIGKILL of the leader or a follower, two nodes
// frozen, all three restarted at once, and a rolling restart.
var schedules = []chaostest.ChaosSchedule{
	{Name: "leader-kill9", Run: func(r *chaostest.ChaosRun) {
		leader := r.Leader()
		rest := r.Others(leader)
		r.Docker.Kill(r.T, leader)
		r.Progress("during: "+leader+" killed, survivors "+chaostest.JoinTags(rest), rest, true)
		r.Docker.Start(r.T, leader)
	}},
	{Name: "follower-kill9", Run: func(r *chaostest.ChaosRun) {
		follower := r.Others(r.Leader())[0]
		rest := r.Others(follower)
		r.Docker.Kill(r.T, follower)
		r.Progress("during: "+follower+" killed, survivors "+chaostest.JoinTags(rest), rest, true)
		r.Docker.Start(r.T, follower)
	}},
	{Name: "pause-two", Run: func(r *chaostest.ChaosRun) {
		// B and C frozen: A alone refuses identities quickly and keeps its local strategies.
		r.Docker.Pause(r.T, "B", "C")
		r.Minority("A")
		r.Progress("during: B, C paused", []string{"A"}, false)
		r.Docker.Unpause(r.T, "B", "C")
	}},
	{Name: "restart-all", Run: func(r *chaostest.ChaosRun) {
		r.Docker.Restart(r.T, "A", "B", "C")
	}},
	{Name: "rolling-restart", Run: func(r *chaostest.ChaosRun) {
		for _, tag := range r.Tags() {
			r.Docker.Restart(r.T, tag)
			r.Recover("after restarting " + tag)
			r.Progress("after restarting "+tag, r.Tags(), true)
		}
	}},
}

// TestChaosCrash runs the chaos suite (package chaostest) on schedules.
func TestChaosCrash(t *testing.T) { chaostest.RunChaosSuite(t, chaostest.DeployCluster, schedules) }
