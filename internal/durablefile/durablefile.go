// Package durablefile replaces small files so that after a crash, even a power cut, a reader
// finds either the old content or the new, never a mix or nothing. idnode keeps its promises
// (etag watermark, node identity) in such files.
package durablefile

import (
	"os"
	"path/filepath"
)

// WriteFile makes data the durable content of path: write a temp file, fsync it, rename it
// over path, fsync the directory. Only when it returns nil is the new content safe.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(path))
}
