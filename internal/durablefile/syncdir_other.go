//go:build !unix

package durablefile

// syncDir is a no-op: directories cannot be opened and fsynced on these platforms.
func syncDir(string) error { return nil }
