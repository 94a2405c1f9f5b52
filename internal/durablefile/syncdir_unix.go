//go:build unix

package durablefile

import "os"

// SyncDir fsyncs a directory so that the entries made, renamed or removed in it are durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
