package e2etest

import (
	"errors"
	"testing"
)

// lockDirForTest points the chaos slots' locks at a folder of the test's own, so that the
// test takes no slot a chaos suite of the same run could want.
func lockDirForTest(t *testing.T) {
	saved := chaosLockDir
	chaosLockDir = t.TempDir()
	t.Cleanup(func() { chaosLockDir = saved })
}

// A chaos package's end-of-run sweep removed the chaos project after its suite had let the
// lock go, and with it the cluster the next chaos package had just started (seen:
// restart-all found no container). A chaos slot's project is swept only while this run holds
// the slot; the projects a run names itself always.
func TestSweepTakesAChaosProjectOnlyUnderItsSlot(t *testing.T) {
	lockDirForTest(t)
	if !sweepable("idnode-ops-1234") {
		t.Error("a project this run named is not sweepable")
	}
	for s := range ChaosSlot(ChaosSlots) {
		if sweepable(s.Project()) {
			t.Fatalf("chaos project %s is sweepable with its slot not held", s.Project())
		}
	}
	slot, release, err := ChaosLock(0)
	if err != nil {
		t.Fatal(err)
	}
	if !sweepable(slot.Project()) {
		t.Errorf("chaos project %s is not sweepable under its slot's lock", slot.Project())
	}
	for s := range ChaosSlot(ChaosSlots) {
		if s != slot && sweepable(s.Project()) {
			t.Errorf("chaos project %s is sweepable while this run holds slot %s only", s.Project(), slot.Project())
		}
	}
	release()
	if sweepable(slot.Project()) {
		t.Errorf("chaos project %s is still sweepable after its slot was let go", slot.Project())
	}
}

// Suites that run at once each get a slot of their own, as many as there are slots; one more
// is refused once its wait is over, and gets the slot the first lets go.
func TestChaosSuitesTakeSlotsOfTheirOwn(t *testing.T) {
	lockDirForTest(t)
	projects := map[string]bool{}
	var releases []func()
	for range ChaosSlots {
		slot, release, err := ChaosLock(0)
		if err != nil {
			t.Fatalf("suite %d of %d: %v", len(releases)+1, ChaosSlots, err)
		}
		releases = append(releases, release)
		if projects[slot.Project()] {
			t.Fatalf("slot %s handed out twice", slot.Project())
		}
		projects[slot.Project()] = true
	}
	if _, _, err := ChaosLock(0); !errors.Is(err, ErrChaosLockBusy) {
		t.Fatalf("a suite beyond the %d slots: %v, want ErrChaosLockBusy", ChaosSlots, err)
	}
	releases[0]()
	slot, release, err := ChaosLock(0)
	if err != nil {
		t.Fatalf("after one suite let its slot go: %v", err)
	}
	defer release()
	if slot != ChaosSlot(0) {
		t.Errorf("got slot %s, want the one let go, %s", slot.Project(), ChaosSlot(0).Project())
	}
	for _, r := range releases[1:] {
		r()
	}
}
