package e2etest

import (
	"path/filepath"
	"testing"
)

// A chaos package's end-of-run sweep removed the chaos project after its
// suite had let the lock go, and with it the cluster the next chaos package had just started
// (seen: restart-all found no container). The chaos project is swept only while this run
// holds the lock; the projects a run names itself always.
func TestSweepTakesTheChaosProjectOnlyUnderItsLock(t *testing.T) {
	if !sweepable("idnode-ops-1234") {
		t.Error("a project this run named is not sweepable")
	}
	if sweepable(ChaosProject) {
		t.Fatal("the chaos project is sweepable with its lock not held")
	}
	release, err := ChaosLock(filepath.Join(t.TempDir(), "chaos.lock"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !sweepable(ChaosProject) {
		t.Error("the chaos project is not sweepable under its lock")
	}
	release()
	if sweepable(ChaosProject) {
		t.Error("the chaos project is still sweepable after the lock was let go")
	}
}
