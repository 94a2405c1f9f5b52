//go:build unix

package etag

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/idnode/idnode/internal/flock"
)

// lockFile opens (creating if needed) path and takes an exclusive,
// non-blocking flock on it. The lock lives as long as the returned file is
// open, and the kernel drops it when the process dies, so kill -9 never
// leaves a stale lock behind.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("etag: cannot open lock file %s: %w", path, err)
	}
	err = flock.TryExclusive(f)
	if err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is held by another process or Counter; "+
				"only one idnode may use a data directory at a time", ErrLocked, path)
		}
		return nil, fmt.Errorf("etag: cannot lock %s: %w", path, err)
	}
	return f, nil
}
