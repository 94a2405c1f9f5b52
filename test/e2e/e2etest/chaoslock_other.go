//go:build !unix

package e2etest

import "time"

// ChaosLock: no flock here; runs are not serialized, and the lock is this process's.
func ChaosLock(string, time.Duration) (func(), error) {
	chaosLockHeld.Store(true)
	return func() { chaosLockHeld.Store(false) }, nil
}
