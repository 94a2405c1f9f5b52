//go:build !unix

package loopback

import (
	"fmt"
	"os"
)

// TryLock opens path; without flock, ports are reserved within this process only.
func TryLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("a reservation: %w", err)
	}
	return f, nil
}
