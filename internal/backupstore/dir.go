package backupstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/idnode/idnode/internal/durablefile"
)

// tempPrefix starts the name of a file Put is still writing; ValidateName refuses names that
// start with '.', so List never takes one for a backup.
const tempPrefix = ".put-"

// Dir is a Store in a folder of the local filesystem (or a mounted one), each object a file.
type Dir struct {
	path string
	// createTemp makes the file Put writes before its rename: os.CreateTemp in production,
	// a file that fails its writes in the test of a full disk.
	createTemp func(dir string) (file, string, error)
}

// file is what Put writes to.
type file interface {
	io.Writer
	Sync() error
	Close() error
}

// NewDir opens the folder path as a store, creating it (mode 0700: backups hold every ID the
// cluster issued) and its missing parents durably.
func NewDir(path string) (*Dir, error) {
	if err := durablefile.MkdirAll(path, 0o700); err != nil {
		return nil, fmt.Errorf("backup folder %s: %w", path, describeFSError(err))
	}
	return &Dir{path: path, createTemp: osCreateTemp}, nil
}

// OpenDir opens the existing folder path as a store, for a reader of backups: a missing
// folder is an error (ErrNoFolder), not a new empty store.
func OpenDir(path string) (*Dir, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("backup folder %s: %w", path, ErrNoFolder)
	case err != nil:
		return nil, fmt.Errorf("backup folder %s: %w", path, describeFSError(err))
	case !info.IsDir():
		return nil, fmt.Errorf("backup folder %s is not a folder", path)
	}
	return &Dir{path: path, createTemp: osCreateTemp}, nil
}

func osCreateTemp(dir string) (file, string, error) {
	f, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return nil, "", err
	}
	return f, f.Name(), nil
}

func (d *Dir) String() string { return "backup folder " + d.path }

// Put writes r to a temp file in the folder, fsyncs it, renames it to name and fsyncs the
// folder: a backup Put returned for survives a power cut, and a failed one leaves no part.
func (d *Dir) Put(ctx context.Context, name string, r io.Reader) (Sum, error) {
	if err := ValidateName(name); err != nil {
		return Sum{}, err
	}
	sum, err := d.put(ctx, name, r)
	if err != nil {
		return Sum{}, fmt.Errorf("%s: put %s: %w", d, name, describeFSError(err))
	}
	return sum, nil
}

func (d *Dir) put(ctx context.Context, name string, r io.Reader) (Sum, error) {
	f, tmp, err := d.createTemp(d.path)
	if err != nil {
		return Sum{}, err
	}
	s := newSummer(r)
	_, err = io.Copy(f, contextReader{ctx, s})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(d.path, name))
	}
	if err != nil {
		_ = os.Remove(tmp)
		return Sum{}, err
	}
	if err := durablefile.SyncDir(d.path); err != nil {
		return Sum{}, err
	}
	return s.sum(), nil
}

// List returns the folder's backups: its regular files with valid names, so neither a temp
// file of a Put under way nor anything else put there.
func (d *Dir) List(ctx context.Context) ([]Object, error) {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return nil, fmt.Errorf("%s: list: %w", d, describeFSError(err))
	}
	var out []Object
	for _, e := range entries {
		if !e.Type().IsRegular() || ValidateName(e.Name()) != nil {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted since ReadDir
		}
		if err != nil {
			return nil, fmt.Errorf("%s: list: %w", d, describeFSError(err))
		}
		out = append(out, Object{Name: e.Name(), Size: info.Size(), Modified: info.ModTime()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Open opens the file name.
func (d *Dir) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(d.path, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w: %s", d, ErrNotFound, name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: open %s: %w", d, name, describeFSError(err))
	}
	return f, nil
}

// Delete removes the file name and fsyncs the folder, so a deleted backup stays deleted
// (retention counts on it).
func (d *Dir) Delete(ctx context.Context, name string) error {
	if err := ValidateName(name); err != nil {
		return err
	}
	err := os.Remove(filepath.Join(d.path, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		err = durablefile.SyncDir(d.path)
	}
	if err != nil {
		return fmt.Errorf("%s: delete %s: %w", d, name, describeFSError(err))
	}
	return nil
}

// describeFSError says in words what an operator must do about the two failures a backup
// folder meets most, and keeps the errno for errors.Is.
func describeFSError(err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("the disk is full (free space or move the backups elsewhere): %w", err)
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EROFS):
		return fmt.Errorf("the folder is not writable by this process (user %d): %w", os.Geteuid(), err)
	}
	return err
}

// contextReader stops a copy when ctx is done.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
