package e2etest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idnode/idnode/test/helpers/filelock"
)

// ChaosSlots is how many chaos suites (test/e2e/chaos) one machine runs at once. Each slot is
// a compose project of its own, ChaosSlot.Project, with its own containers, networks
// (<project>_raft, <project>_client) and volumes, and, given by package chaostest, its own
// published ports and raft subnet. Two, because go test runs two packages at a time on two
// cores: while every chaos package took turns on one project, a package waiting for it held
// one of those two places doing nothing. A suite takes a free slot under its lock
// (ChaosLock), and a sweep removes what a killed run left of a slot's project only while no
// suite holds that slot (sweep.go).
const ChaosSlots = 2

// ChaosSlot is one of the ChaosSlots compose projects a chaos suite can run its cluster as.
type ChaosSlot int

// chaosProjectPrefix names the slots' projects: idnode-chaos, idnode-chaos-2 …, apart from
// `make cluster-up`'s project "idnode".
const chaosProjectPrefix = "idnode-chaos"

// Project is the slot's compose project.
func (s ChaosSlot) Project() string {
	if s == 0 {
		return chaosProjectPrefix
	}
	return chaosProjectPrefix + "-" + strconv.Itoa(int(s)+1)
}

// chaosSlotOf is the slot whose project is name, if it is one.
func chaosSlotOf(name string) (ChaosSlot, bool) {
	for s := range ChaosSlot(ChaosSlots) {
		if s.Project() == name {
			return s, true
		}
	}
	return 0, false
}

// chaosLockDir holds the slots' lock files; a test of the locks points it elsewhere, so that
// it takes no slot a chaos suite of the same run could want.
var chaosLockDir = os.TempDir()

// lockPath is the file whose flock holds the slot.
func (s ChaosSlot) lockPath() string {
	return filepath.Join(chaosLockDir, s.Project()+".lock")
}

// Sentinel errors of the chaos slots.
var (
	// ErrChaosLockBusy: other chaos suite runs on this machine hold every slot.
	ErrChaosLockBusy = fmt.Errorf("other chaos suite runs on this machine hold all %d chaos slots", ChaosSlots)
	// errLockHeld: another process holds the slot's lock, or this one the slot.
	errLockHeld = errors.New("the chaos slot is held")
)

// chaosSlotsHeld is the slots this process holds. Only a held slot's project is this run's to
// sweep: once the run let the slot go, another package or run may have taken it and started
// the project anew.
var chaosSlotsHeld struct {
	sync.Mutex
	held map[ChaosSlot]bool
}

// claimSlot marks s held by this process, unless it already is.
func claimSlot(s ChaosSlot) bool {
	chaosSlotsHeld.Lock()
	defer chaosSlotsHeld.Unlock()
	if chaosSlotsHeld.held[s] {
		return false
	}
	if chaosSlotsHeld.held == nil {
		chaosSlotsHeld.held = map[ChaosSlot]bool{}
	}
	chaosSlotsHeld.held[s] = true
	return true
}

func unclaimSlot(s ChaosSlot) {
	chaosSlotsHeld.Lock()
	defer chaosSlotsHeld.Unlock()
	delete(chaosSlotsHeld.held, s)
}

func slotHeld(s ChaosSlot) bool {
	chaosSlotsHeld.Lock()
	defer chaosSlotsHeld.Unlock()
	return chaosSlotsHeld.held[s]
}

// tryLock takes the slot without waiting, or answers errLockHeld.
func (s ChaosSlot) tryLock() (release func(), err error) {
	if !claimSlot(s) {
		return nil, errLockHeld
	}
	lock, err := filelock.TryLock(s.lockPath())
	if lock == nil {
		unclaimSlot(s)
		if err == nil {
			err = errLockHeld
		}
		return nil, err
	}
	return func() {
		unclaimSlot(s)
		_ = lock.Close()
	}, nil
}

// ChaosLock takes the first free chaos slot, trying every slot again each half second for at
// most wait, and returns it with the function that lets it go. The kernel lets a slot go when
// the process holding it dies.
func ChaosLock(wait time.Duration) (ChaosSlot, func(), error) {
	deadline := time.Now().Add(wait)
	for {
		var busy []string
		for s := range ChaosSlot(ChaosSlots) {
			release, err := s.tryLock()
			if err == nil {
				return s, release, nil
			}
			if !errors.Is(err, errLockHeld) {
				return 0, nil, err
			}
			busy = append(busy, s.Project())
		}
		if !time.Now().Before(deadline) {
			return 0, nil, fmt.Errorf("%w (%s)", ErrChaosLockBusy, strings.Join(busy, ", "))
		}
		time.Sleep(500 * time.Millisecond) // lock poll
	}
}

// ChaosImageLock takes the lock under which a chaos suite builds the chaos image, trying
// every half second for at most wait. Suites in two slots would otherwise run `make image` at
// once, and one's `rm -rf deploy/bin/data` would pull the build context from under the other's
// docker build.
func ChaosImageLock(wait time.Duration) (func(), error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	lock, err := filelock.Lock(ctx, filepath.Join(chaosLockDir, chaosProjectPrefix+"-image.lock"), 500*time.Millisecond)
	if err != nil {
		return nil, err
	}
	return func() { _ = lock.Close() }, nil
}
