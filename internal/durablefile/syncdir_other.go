//go:build !unix

package durablefile

// SyncDir is a no-op: directories cannot be opened and fsynced on these platforms.
func SyncDir(string) error { return nil }
