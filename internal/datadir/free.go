package datadir

import "syscall"

// FreeBytes is how many bytes the file system under dir has free for the node (those an
// unprivileged process may still take, as the Raft log's writes can).
func FreeBytes(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil //nolint:gosec // Bsize is a block size, never negative
}
