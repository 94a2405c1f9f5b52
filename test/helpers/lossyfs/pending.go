package lossyfs

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// pendingData is what was done to one file's data since its last fsync, in order, each with
// what it overwrote: enough to put back the content the last fsync made durable.
type pendingData struct {
	name    string // the file's path relative to Dir when last changed, for the report
	changes []dataChange
}

// dataChange is one write, truncation or allocation: before it, the file was sizeBefore
// long and held old at off.
type dataChange struct {
	what       string // "write", "truncate", "allocate"
	off        int64
	n          int64 // bytes written (0 but for a write)
	old        []byte
	sizeBefore int64
}

// pendingOp is one namespace change not yet durable: it is once every directory it changed
// has been fsynced.
type pendingOp struct {
	what   string            // "create", "mkdir", "unlink", "rmdir", "rename from …", "symlink", "mknod"
	name   string            // the path it made or removed, relative to Dir
	dirs   map[uint64]bool   // inode numbers of the directories still to be synced
	undo   func() error      // takes the change back
	commit func(f *FS) error // runs when it became durable: lets go of what undo would have needed
}

// noteData records a change to the data of the file with inode ino, named name.
func (f *FS) noteData(ino uint64, name string, c dataChange) {
	pd := f.files[ino]
	if pd == nil {
		pd = &pendingData{}
		f.files[ino] = pd
	}
	pd.name = name
	pd.changes = append(pd.changes, c)
}

// noteOp records a namespace change of the directories dirs.
func (f *FS) noteOp(op *pendingOp, dirs ...uint64) {
	op.dirs = map[uint64]bool{}
	for _, d := range dirs {
		op.dirs[d] = true
	}
	f.ops = append(f.ops, op)
}

// syncedFile makes the data of file ino durable.
func (f *FS) syncedFile(ino uint64) { delete(f.files, ino) }

// syncedDir makes every change to directory ino's entries durable; a change of two
// directories is durable once both were synced.
func (f *FS) syncedDir(ino uint64) error {
	var firstErr error
	f.ops = slices.DeleteFunc(f.ops, func(op *pendingOp) bool {
		delete(op.dirs, ino)
		if len(op.dirs) > 0 {
			return false
		}
		if op.commit != nil {
			if err := op.commit(f); err != nil && firstErr == nil {
				firstErr = err
			}
		}
		return true
	})
	return firstErr
}

// atticPath is a new name in the attic, where an unlinked or replaced entry waits while its
// removal is pending.
func (f *FS) atticPath() string {
	f.seq++
	return filepath.Join(f.attic, strconv.Itoa(f.seq))
}

// dropPending takes back every pending change: first each file's data, found by inode
// number wherever it is now, then the namespace changes, newest first. f.mu is held; the
// filesystem is not mounted.
func (f *FS) dropPending(mode CutMode) Report {
	var rep Report
	where := map[uint64]string{}
	for _, top := range []string{f.backing, f.attic} {
		_ = filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if info, ierr := d.Info(); ierr == nil {
				where[info.Sys().(*syscall.Stat_t).Ino] = path
			}
			return nil
		})
	}
	inos := make([]uint64, 0, len(f.files))
	for ino := range f.files {
		inos = append(inos, ino)
	}
	slices.SortFunc(inos, func(a, b uint64) int { return cmp.Compare(f.files[a].name, f.files[b].name) })
	for _, ino := range inos {
		pd := f.files[ino]
		path, ok := where[ino]
		if !ok {
			rep.errorf("%s: pending data, but the file is gone from the backing directory", pd.name)
			continue
		}
		n, ops, err := takeBack(path, pd.changes, mode)
		if err != nil {
			rep.errorf("%s: %v", pd.name, err)
		}
		rep.add(pd.name, n, ops...)
	}
	for i := len(f.ops) - 1; i >= 0; i-- {
		op := f.ops[i]
		if err := op.undo(); err != nil {
			rep.errorf("%s: taking back %s: %v", op.name, op.what, err)
		}
		rep.add(op.name, 0, op.what)
	}
	if err := os.RemoveAll(f.attic); err != nil {
		rep.errorf("emptying the attic: %v", err)
	}
	if err := os.Mkdir(f.attic, 0o755); err != nil {
		rep.errorf("emptying the attic: %v", err)
	}
	return rep
}

// takeBack puts back the data of the file at path before changes, newest first, and returns
// the bytes of writes it dropped and the other changes it took back. Torn drops only what
// was written at or above tearAt's boundary.
func takeBack(path string, changes []dataChange, mode CutMode) (dropped int64, ops []string, err error) {
	file, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, nil, err
	}
	defer file.Close()
	bound := int64(0)
	if mode == Torn {
		bound = tearAt(changes)
	}
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		if c.what == "write" && c.off+c.n <= bound {
			continue
		}
		start := max(c.off, bound)
		if k := start - c.off; k < int64(len(c.old)) {
			if _, err := file.WriteAt(c.old[k:], start); err != nil {
				return dropped, ops, err
			}
		}
		if err := file.Truncate(max(c.sizeBefore, bound)); err != nil {
			return dropped, ops, err
		}
		if c.what == "write" {
			dropped += c.off + c.n - start
		} else {
			ops = append(ops, fmt.Sprintf("%s at %d", c.what, c.off))
		}
	}
	return dropped, ops, nil
}

// tearAt is where a torn cut tears a file's pending writes: the highest page boundary they
// cross (one write across it, or one ending and another starting there: the kernel hands a
// FUSE filesystem a long write page by page). Everything written below it is kept. It is 0,
// all dropped, when they cross none, or when a truncation is pending too.
func tearAt(changes []dataChange) int64 {
	ends := map[int64]bool{}
	for _, c := range changes {
		if c.what != "write" {
			return 0
		}
		ends[c.off+c.n] = true
	}
	bound := int64(0)
	for _, c := range changes {
		if last := (c.off + c.n - 1) / pageSize * pageSize; last > c.off {
			bound = max(bound, last)
		} else if c.off%pageSize == 0 && ends[c.off] {
			bound = max(bound, c.off)
		}
	}
	return bound
}
