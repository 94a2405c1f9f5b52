//go:build unix

package e2etest

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// ChaosLock takes an exclusive flock on path, trying for at most wait. Two chaos suites on
// one machine would share the compose project and the ports 7071-7073, so they take turns.
// The kernel drops the lock if the test process dies.
func ChaosLock(path string, wait time.Duration) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			chaosLockHeld.Store(true)
			return func() {
				chaosLockHeld.Store(false)
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			_ = f.Close()
			return nil, err
		}
		if !time.Now().Before(deadline) {
			_ = f.Close()
			return nil, ErrChaosLockBusy
		}
		time.Sleep(500 * time.Millisecond) // lock poll
	}
}
