package powercut

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/lossyfs"
)

// The deliberately broken builds of idnode, each without one step of durablefile.WriteFile.
const (
	// noRenameSync drops the directory sync after WriteFile's rename
	// (internal/durablefile/renamesync_off.go): the etag watermark, the HiLo pools, the
	// manifest and node.json may then come back old, or not at all, after a power cut.
	noRenameSync = "powercut_norenamesync"
	// noDataSync drops the fsync of the temp file's data before WriteFile's rename
	// (internal/durablefile/datasync_off.go): the rename may then survive the cut and the data
	// not, so those files come back empty.
	noDataSync = "powercut_nodatasync"
)

// mustBreak runs schedule on a cluster of bin, built with the build tag tag, and fails t
// unless the schedule reports a broken promise.
func mustBreak(t *testing.T, bin, tag, schedule string, run func(*powerCluster) []string) {
	t.Helper()
	pc := startPowerCluster(t, bin)
	pc.build = tag
	problems := run(pc)
	if len(problems) == 0 {
		t.Fatalf("schedule %s build=%s (idnode built -tags %[2]s) kept every promise: the power-cut harness cannot tell", schedule, tag)
	}
	for _, p := range problems {
		t.Logf("caught by %s build=%s: %s", schedule, tag, p)
	}
}

// TestPowerCutCatchesAMissingRenameSync shows the schedules can fail: the build without the
// directory sync after a rename must break a promise under whole-cluster-random-clean, which
// the same tree with the sync keeps (TestPowerCutWholeClusterAtRandom). Its etag file comes
// back older than the watermark the node had made durable and recorded in the cluster. The
// record saves the IDs (the node skips to it), but the file did lose a durable write.
func TestPowerCutCatchesAMissingRenameSync(t *testing.T) {
	lossyfs.Need(t)
	mustBreak(t, e2etest.BuildIdnodeTagged(t, noRenameSync), noRenameSync, randomSchedule(lossyfs.Clean),
		func(pc *powerCluster) []string { return wholeClusterAtRandom(pc, lossyfs.Clean) })
}

// TestPowerCutCatchesAMissingDataSync shows that the schedules which cut one node fail too:
// on the build without the data fsync before a rename, the node cut comes back with an empty
// node.json and refuses to start, which a correct build never does after a power cut
// (TestPowerCutLeaderAlone and TestPowerCutFollowerDuringSnapshotInstall keep every promise).
func TestPowerCutCatchesAMissingDataSync(t *testing.T) {
	lossyfs.Need(t)
	bin := e2etest.BuildIdnodeTagged(t, noDataSync)
	for _, s := range []struct {
		name string
		run  func(*powerCluster) []string
	}{
		{"leader-alone", leaderAlone},
		{"follower-during-snapshot-install", followerDuringSnapshotInstall},
	} {
		t.Run(s.name, func(t *testing.T) { mustBreak(t, bin, noDataSync, s.name, s.run) })
	}
}
