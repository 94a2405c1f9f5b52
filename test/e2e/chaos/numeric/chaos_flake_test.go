package numeric

// Schedule flake; chaostest/chaos_flake.go has its minters and checks.

import (
	"time"

	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// chaosFlakeLeases are the minters' lease lengths: two at the shortest, whose leases lapse
// within a fault, and two longer ones. The first is replaced during the second fault.
var chaosFlakeLeases = []time.Duration{time.Second, time.Second, 2 * time.Second, 3 * time.Second}

// flakeChaos is the `flake` schedule: the minters run beside the load while the leader is
// isolated and healed, then while the (new) leader is killed and started again. Before the
// kill the first minter stops, releasing its worker, and a new one starts once the leader is
// down: its lease is acquired through the survivors' election (a worker whose high-water has
// passed, at its next epoch, else one never used).
func flakeChaos(r *chaostest.ChaosRun) {
	for _, lease := range chaosFlakeLeases {
		r.StartMinter(lease)
	}
	r.FlakeProgress("before the fault: minters running")

	leader := r.Leader()
	r.Docker.Disconnect(r.T, leader)
	r.FlakeProgress("during: " + leader + " isolated")
	r.Docker.Connect(r.T, leader)
	r.Recover("after reconnecting " + leader)
	r.FlakeProgress("after reconnecting " + leader)

	leader = r.Leader()
	replaced := r.Flake[0]
	replaced.P.Stop()
	replaced.Stopped = true
	r.Docker.Kill(r.T, leader)
	r.StartMinter(replaced.Lease)
	r.FlakeProgress("during: " + leader + " killed, " + replaced.Label + " replaced")
	r.Docker.Start(r.T, leader)
}
