package e2etest

import (
	"errors"
	"sync/atomic"
)

// ChaosProject is the chaos suite's compose project (test/e2e/chaos): its own containers,
// networks (idnode-chaos_raft, idnode-chaos_client) and volumes, apart from `make
// cluster-up`'s project "idnode". Its name and ports are fixed, so the suites of a machine
// take turns on it (ChaosLock), and a sweep removes what a killed run left of it (sweep.go).
const ChaosProject = "idnode-chaos"

// ErrChaosLockBusy: another chaos suite on this machine holds the lock (see ChaosLock).
var ErrChaosLockBusy = errors.New("another chaos suite run on this machine holds the lock")

// chaosLockHeld is set while this process holds the chaos lock. Only then is the chaos
// project this run's to sweep: once it let the lock go (its suite took its cluster down
// first), another package or run may have taken the lock and started the project anew.
var chaosLockHeld atomic.Bool
