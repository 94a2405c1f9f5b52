//go:build !unix

package filelock

import "os"

// TryLock opens path; without flock, a lock holds nothing against other processes, and
// callers keep their own record within theirs.
func TryLock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
}
