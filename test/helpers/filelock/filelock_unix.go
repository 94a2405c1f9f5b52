//go:build unix

package filelock

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/idnode/idnode/internal/flock"
)

// TryLock takes an exclusive lock (flock(2)) on path without waiting: the open, locked file,
// or nil when another open file, this process's or another's, holds the lock.
func TryLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	err = flock.TryExclusive(f)
	if err == nil {
		return f, nil
	}
	_ = f.Close()
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, nil
	}
	return nil, fmt.Errorf("lock %s: %w", path, err)
}
