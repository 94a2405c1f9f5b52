// Package filelock takes exclusive locks on files that every process of the machine honours,
// for what the tests of several packages, or of two runs, share: loopback ports, network
// namespaces' subnets, the chaos suite's compose projects, the programs built once for a run.
// The kernel lets a lock go when the process holding it dies, so none outlives a killed run.
package filelock

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Lock waits for the lock on path, trying again every poll, until ctx is done: the open,
// locked file, whose Close lets the lock go.
func Lock(ctx context.Context, path string, poll time.Duration) (*os.File, error) {
	for {
		f, err := TryLock(path)
		if f != nil || err != nil {
			return f, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the lock on %s: %w", path, ctx.Err())
		case <-time.After(poll):
		}
	}
}
