package strategies

// The chaos suite's numeric IDs (issue 27): processes embedding the Go client's
// NumericGenerator (test/flakeminter, run on the host against the published ports, as the
// other clients reach the cluster) mint under worker leases of 1 to 3 s while the leader is
// cut off the Raft network and, once healed, killed (one minter replaced by a new one then).
// Each must renew or re-lease through both faults and go on minting; the identity, HiLo and
// local clients run throughout as in every schedule. Afterwards, across all the minters, no ID
// twice, each process's IDs
// increasing, each ID inside a grant its process held, and no worker and epoch held twice nor
// the grants of one worker over overlapping times (checkMinted, flakeminter_test.go).

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
	r.D.Disconnect(r.T, leader)
	r.FlakeProgress("during: " + leader + " isolated")
	r.D.Connect(r.T, leader)
	r.Recover("after reconnecting " + leader)
	r.FlakeProgress("after reconnecting " + leader)

	leader = r.Leader()
	replaced := r.Flake[0]
	replaced.P.Stop()
	replaced.Stopped = true
	r.D.Kill(r.T, leader)
	r.StartMinter(replaced.Lease)
	r.FlakeProgress("during: " + leader + " killed, " + replaced.Label + " replaced")
	r.D.Start(r.T, leader)
}
