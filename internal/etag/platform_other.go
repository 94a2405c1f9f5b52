//go:build !unix

package etag

import (
	"fmt"
	"os"
)

// lockFile opens (creating if needed) path. There is no flock here, so on
// these platforms nothing stops two processes from sharing a watermark file;
// idnode is deployed on Unix.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("etag: cannot open lock file %s: %w", path, err)
	}
	return f, nil
}
