// Package durablefile replaces small files so that after a crash, even a power cut, a reader
// finds either the old content or the new, never a mix or nothing. idnode keeps its promises
// (etag watermark, node identity) in such files.
package durablefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrWrite matches every error of WriteFile: the storage under the file failed a write, which
// a node answers as a storage fault (docs/recovery.md), not as a bug.
var ErrWrite = errors.New("durablefile: cannot write")

// writeError is a failed step of WriteFile: its message is the step's own, and it matches
// ErrWrite as well as the step's error (an errno such as ENOSPC among them).
type writeError struct{ err error }

func (e writeError) Error() string   { return e.err.Error() }
func (e writeError) Unwrap() []error { return []error{ErrWrite, e.err} }

// WriteFile makes data the durable content of path: write a temp file, fsync it, rename it
// over path, fsync the directory. Only when it returns nil is the new content safe; an error
// matches ErrWrite.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	if err := writeFile(path, data, perm); err != nil {
		return writeError{err}
	}
	return nil
}

func writeFile(path string, data []byte, perm os.FileMode) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && syncBeforeRename {
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
	if !syncAfterRename {
		return nil
	}
	return SyncDir(filepath.Dir(path))
}

// MkdirAll is os.MkdirAll whose new directories survive a power cut: each directory it
// creates is fsynced into its parent. Without that, a directory made once (the Raft log's,
// say) and filled with synced files can vanish whole with the power.
func MkdirAll(path string, perm os.FileMode) error {
	var missing []string
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	if err := os.MkdirAll(path, perm); err != nil {
		return err
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := SyncDir(filepath.Dir(missing[i])); err != nil {
			return err
		}
	}
	return nil
}
