package operator

import (
	"path/filepath"

	"github.com/idnode/idnode/test/e2e/chaos/chaostest"
)

// rollback is the schedule of an older data dir put back: under load, a follower is stopped and its
// data dir copied; it runs on (one load phase: its etag counter and HiLo pools move on, each
// publishing to the cluster), then is killed, its data dir replaced by the older copy, and started
// again. Its older etag and hilo-pools files cost a gap (the cluster's record of the node is above
// them), and its older Raft log is caught up from the leader: no ID twice, identities linearizable.
func rollback(r *chaostest.ChaosRun) {
	victim := r.Others(r.Leader())[0]
	older := filepath.Join(r.T.TempDir(), "data")
	r.Docker.StopNode(r.T, victim)
	r.Docker.CopyData(r.T, victim, older)
	r.Docker.Start(r.T, victim)
	r.Recover("after copying " + victim + "'s data dir")
	r.Progress("before "+victim+" goes back to its copy", r.Tags(), true)
	r.Docker.Kill(r.T, victim)
	r.Docker.ReplaceData(r.T, victim, older)
	r.T.Logf("node %s restarts on a copy of its data dir taken one load phase earlier", victim)
	// It handed out server-side IDs since the copy (a new watermark, recorded), so its record
	// is above the copy's etag file: the start must say it skipped.
	r.Docker.WaitLog(r.T, victim, "skipping to the record", chaostest.ChaosRecoverWait)
}
