package powercut

import (
	"math/rand/v2"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/lossyfs"
)

// afterCutAcks is how many answers the load must have after the restart before the checks:
// the cluster hands out numbers again, so a repeat would show.
const afterCutAcks = 150

// recoverAndCheck restarts nodes tags after their cut, lets the load go on, and returns
// the promises the cut broke (check).
func (pc *powerCluster) recoverAndCheck(schedule string, tags ...string) []string {
	pc.t.Helper()
	serving := pc.restart(tags...)
	if len(serving)+3-len(tags) >= 2 {
		pc.waitAcks(pc.led.Acked() + afterCutAcks)
	}
	return pc.check(schedule, append(serving, pc.c.Others(tags...)...))
}

// kept fails t on every broken promise.
func kept(t *testing.T, problems []string) {
	t.Helper()
	for _, p := range problems {
		t.Error(p)
	}
}

func randomSchedule(mode lossyfs.CutMode) string { return "whole-cluster-random-" + mode.String() }

// wholeClusterAtRandom cuts the power of all three nodes at once at a random moment of the
// load, restarts them and returns the broken promises.
func wholeClusterAtRandom(pc *powerCluster, mode lossyfs.CutMode) []string {
	pc.t.Helper()
	pc.startLoad()
	pc.waitAcks(100 + rand.IntN(300))
	pc.cut(mode, e2etest.ClusterTags...)
	return pc.recoverAndCheck(randomSchedule(mode), e2etest.ClusterTags...)
}

// TestPowerCutWholeClusterAtRandom runs wholeClusterAtRandom, once clean and once torn.
func TestPowerCutWholeClusterAtRandom(t *testing.T) {
	for _, mode := range []lossyfs.CutMode{lossyfs.Clean, lossyfs.Torn} {
		t.Run(mode.String(), func(t *testing.T) {
			kept(t, wholeClusterAtRandom(startPowerCluster(t, ""), mode))
		})
	}
}

// beforeSync are the files whose next fsync a schedule cuts the whole cluster just before,
// each by a test of the path relative to the data dir. The etag watermark is raised once per
// many thousand server-side IDs, the first time at a node's first one: its schedule arms the
// mounts before the load starts (first), the others once the load has had answers.
var beforeSync = []struct {
	name  string
	match func(p string) bool
	first bool
}{
	{"raft-log", func(p string) bool { return strings.HasPrefix(p, "raft/wal/") && strings.HasSuffix(p, ".wal") }, false},
	{"snapshot", func(p string) bool { return strings.HasPrefix(p, "raft/snapshots/") && path.Base(p) == "state.bin" }, false},
	{"manifest", func(p string) bool { return p == "manifest.json.tmp" }, false},
	{"etag", func(p string) bool { return p == "etag.tmp" }, true},
	{"hilo-pools", func(p string) bool { return p == "hilo-pools.tmp" }, false},
	{"series-journal", func(p string) bool { return p == "raft/series.db" }, false},
}

// TestPowerCutWholeClusterBeforeSync cuts the power of all three nodes just before the next
// fsync of a chosen file on any of them: what that sync would have made durable is lost.
func TestPowerCutWholeClusterBeforeSync(t *testing.T) {
	for _, f := range beforeSync {
		t.Run(f.name, func(t *testing.T) {
			pc := startPowerCluster(t, "")
			var fired <-chan string
			if f.first {
				fired = pc.freezeAllOnSync(f.match)
				pc.startLoad()
			} else {
				pc.startLoad()
				pc.waitAcks(50)
				fired = pc.freezeAllOnSync(f.match)
			}
			select {
			case at := <-fired:
				pc.note("frozen at the sync of " + at)
			case <-time.After(hookTimeout):
				t.Fatalf("the load brought no sync of the %s within %v", f.name, hookTimeout)
			}
			pc.cut(lossyfs.Clean, e2etest.ClusterTags...)
			kept(t, pc.recoverAndCheck("whole-cluster-before-"+f.name+"-sync", e2etest.ClusterTags...))
		})
	}
}

// leaderAlone cuts the power of the leader while the followers go on, restarts it and
// returns the broken promises.
func leaderAlone(pc *powerCluster) []string {
	pc.t.Helper()
	pc.startLoad()
	pc.waitAcks(100 + rand.IntN(200))
	leader := pc.c.Leader()
	pc.note("leader " + leader + " cut")
	pc.cut(lossyfs.Clean, leader)
	pc.waitAcks(pc.led.Acked() + 50) // the survivors answer without it
	return pc.recoverAndCheck("leader-alone", leader)
}

// TestPowerCutLeaderAlone runs leaderAlone.
func TestPowerCutLeaderAlone(t *testing.T) { kept(t, leaderAlone(startPowerCluster(t, ""))) }

// followerDuringSnapshotInstall cuts a follower that fell behind while the leader sends it a
// snapshot: it was killed, the others went on until their log was compacted past it, and it
// is cut at the sync of the snapshot it is being sent. It returns the broken promises.
func followerDuringSnapshotInstall(pc *powerCluster) []string {
	pc.t.Helper()
	pc.startLoad()
	pc.waitAcks(50)
	follower := pc.c.Others(pc.c.Leader())[0]
	pc.c.Node(follower).Kill9()
	pc.waitAcks(pc.led.Acked() + 300) // many snapshots of 16 entries: the log moves past it
	fired := make(chan string, 1)
	m := pc.mounts[follower]
	m.CutOnSync(beforeSync[1].match, func(path string) { m.Freeze(); fired <- path })
	pc.c.Node(follower).Restart()
	select {
	case at := <-fired:
		pc.note("follower " + follower + " frozen at the sync of " + at)
	case <-time.After(hookTimeout):
		pc.t.Fatalf("follower %s synced no snapshot within %v of its restart", follower, hookTimeout)
	}
	pc.cut(lossyfs.Clean, follower)
	return pc.recoverAndCheck("follower-during-snapshot-install", follower)
}

// TestPowerCutFollowerDuringSnapshotInstall runs followerDuringSnapshotInstall.
func TestPowerCutFollowerDuringSnapshotInstall(t *testing.T) {
	kept(t, followerDuringSnapshotInstall(startPowerCluster(t, "")))
}
