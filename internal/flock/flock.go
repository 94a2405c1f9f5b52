//go:build unix

// Package flock takes the exclusive flock(2) locks that keep a second process off a data
// directory or a shared file: without waiting, and whole across the signals Go's runtime
// sends its threads.
package flock

import (
	"errors"
	"os"
	"syscall"
)

// TryExclusive takes an exclusive flock(2) lock on f without waiting. The lock lasts while f
// is open, and the kernel drops it when the process dies, so a kill -9 leaves none behind.
// A call that a signal interrupts (EINTR, which Go's preemption signals cause) is made
// again. When another open file holds the lock, in this process or another, the error
// matches syscall.EWOULDBLOCK (errors.Is).
func TryExclusive(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
