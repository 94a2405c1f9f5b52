package lossyfs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// node is go-fuse's loopback node with every change recorded before it is passed on, and
// every fsync recorded instead of passed on: the backing directory's own durability does not
// matter, only what a cut would keep. Reads and lookups are the loopback node's own.
type node struct {
	*fs.LoopbackNode
	fs *FS
}

var (
	_ fs.NodeWrapChilder    = (*node)(nil)
	_ fs.NodeWriter         = (*node)(nil)
	_ fs.NodeSetattrer      = (*node)(nil)
	_ fs.NodeAllocater      = (*node)(nil)
	_ fs.NodeFsyncer        = (*node)(nil)
	_ fs.NodeOpener         = (*node)(nil)
	_ fs.NodeCreater        = (*node)(nil)
	_ fs.NodeMkdirer        = (*node)(nil)
	_ fs.NodeMknoder        = (*node)(nil)
	_ fs.NodeSymlinker      = (*node)(nil)
	_ fs.NodeLinker         = (*node)(nil)
	_ fs.NodeUnlinker       = (*node)(nil)
	_ fs.NodeRmdirer        = (*node)(nil)
	_ fs.NodeRenamer        = (*node)(nil)
	_ fs.NodeCopyFileRanger = (*node)(nil)
	_ fs.NodeOpendirHandler = (*node)(nil)
)

// WrapChild makes every node of the tree a recording one.
func (n *node) WrapChild(_ context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	return &node{LoopbackNode: ops.(*fs.LoopbackNode), fs: n.fs}
}

// rel is n's path relative to the mount; abs is its path in the backing directory.
func (n *node) rel() string              { return n.Path(nil) }
func (n *node) abs() string              { return filepath.Join(n.fs.backing, n.rel()) }
func (n *node) ino() uint64              { return n.StableAttr().Ino }
func (n *node) child(name string) string { return filepath.Join(n.rel(), name) }

// begin passes the gate for a change and takes the change lock; the returned func undoes both.
func (n *node) begin() (func(), syscall.Errno) {
	if errno := n.fs.enter(false, nil); errno != 0 {
		return nil, errno
	}
	n.fs.mu.Lock()
	return func() { n.fs.mu.Unlock(); n.fs.leave() }, 0
}

// sizeOf is the current size of n's file, through fh when there is one.
func (n *node) sizeOf(ctx context.Context, fh fs.FileHandle) (int64, syscall.Errno) {
	if g, ok := fh.(fs.FileGetattrer); ok {
		var out fuse.AttrOut
		if errno := g.Getattr(ctx, &out); errno != 0 {
			return 0, errno
		}
		return int64(out.Size), 0
	}
	st, err := os.Lstat(n.abs())
	if err != nil {
		return 0, fs.ToErrno(err)
	}
	return st.Size(), 0
}

// readOld is what n's file holds in [off, end), end clipped to size. With a handle it reads
// the handle's file again through /proc (the handle may be write-only, the file may have no
// name left).
func (n *node) readOld(fh fs.FileHandle, off, end, size int64) ([]byte, syscall.Errno) {
	end = min(end, size)
	if end <= off {
		return nil, 0
	}
	path := n.abs()
	if h, ok := fh.(*file); ok {
		if p, ok := h.inner.(fs.FilePassthroughFder); ok {
			if fd, ok := p.PassthroughFd(); ok {
				path = "/proc/self/fd/" + strconv.Itoa(fd)
			}
		}
	}
	return readRange(path, off, make([]byte, end-off))
}

// readRange fills buf from the file at path, from off.
func readRange(path string, off int64, buf []byte) ([]byte, syscall.Errno) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fs.ToErrno(err)
	}
	defer file.Close()
	if _, err := file.ReadAt(buf, off); err != nil {
		return nil, fs.ToErrno(err)
	}
	return buf, 0
}

// Write passes the write on and records what it overwrote.
func (n *node) Write(ctx context.Context, fh fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	done, errno := n.begin()
	if errno != 0 {
		return 0, errno
	}
	defer done()
	w, ok := fh.(fs.FileWriter)
	if !ok {
		return 0, syscall.EBADF
	}
	size, errno := n.sizeOf(ctx, fh)
	if errno != 0 {
		return 0, errno
	}
	old, errno := n.readOld(fh, off, off+int64(len(data)), size)
	if errno != 0 {
		return 0, errno
	}
	written, errno := w.Write(ctx, data, off)
	if written > 0 {
		n.fs.noteData(n.ino(), n.rel(), dataChange{what: "write", off: off, n: int64(written), old: old, sizeBefore: size})
		n.recordOn(Op{Kind: OpWrite, Off: off, Data: bytes.Clone(data[:written])})
	}
	return written, errno
}

// truncating records a change of n's size to size, before it is made.
func (n *node) truncating(ctx context.Context, fh fs.FileHandle, what string, size int64) syscall.Errno {
	before, errno := n.sizeOf(ctx, fh)
	if errno != 0 || before == size {
		return errno
	}
	old, errno := n.readOld(fh, size, before, before)
	if errno != 0 {
		return errno
	}
	n.fs.noteData(n.ino(), n.rel(), dataChange{what: what, off: size, old: old, sizeBefore: before})
	n.recordOn(Op{Kind: OpTruncate, Off: size})
	return 0
}

// Setattr records a truncation; the other attributes are not the cut's concern.
func (n *node) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	size, ok := in.GetSize()
	if !ok {
		return n.LoopbackNode.Setattr(ctx, fh, in, out)
	}
	done, errno := n.begin()
	if errno != 0 {
		return errno
	}
	defer done()
	if errno := n.truncating(ctx, fh, "truncate", int64(size)); errno != 0 {
		return errno
	}
	return n.LoopbackNode.Setattr(ctx, fh, in, out)
}

// Allocate records the growth of the file, if any.
func (n *node) Allocate(ctx context.Context, fh fs.FileHandle, off, size uint64, mode uint32) syscall.Errno {
	a, ok := fh.(fs.FileAllocater)
	if !ok {
		return syscall.EBADF
	}
	done, errno := n.begin()
	if errno != 0 {
		return errno
	}
	defer done()
	before, errno := n.sizeOf(ctx, fh)
	if errno != 0 {
		return errno
	}
	if errno := a.Allocate(ctx, off, size, mode); errno != 0 {
		return errno
	}
	if after, errno := n.sizeOf(ctx, fh); errno == 0 && after != before {
		n.fs.noteData(n.ino(), n.rel(), dataChange{what: "allocate", off: before, sizeBefore: before})
	}
	n.recordOn(Op{Kind: OpAllocate, Off: int64(off), Len: int64(size), Mode: mode})
	return 0
}

// CopyFileRange is refused, so that the kernel copies with reads and writes, which record.
func (n *node) CopyFileRange(context.Context, fs.FileHandle, uint64, *fs.Inode, fs.FileHandle, uint64, uint64, uint64) (uint32, syscall.Errno) {
	return 0, syscall.ENOSYS
}

// Fsync makes n's data durable, or, for a directory, its entries. Nothing is synced for real.
func (n *node) Fsync(_ context.Context, _ fs.FileHandle, _ uint32) syscall.Errno {
	if errno := n.fs.enter(true, n.rel); errno != 0 {
		return errno
	}
	defer n.fs.leave()
	n.fs.mu.Lock()
	defer n.fs.mu.Unlock()
	n.recordOn(Op{Kind: OpFsync, Dir: n.IsDir()})
	if n.IsDir() {
		if err := n.fs.syncedDir(n.ino()); err != nil {
			return fs.ToErrno(err)
		}
		return 0
	}
	n.fs.syncedFile(n.ino())
	return 0
}

// Open records the truncation of O_TRUNC.
func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if flags&syscall.O_TRUNC != 0 {
		done, errno := n.begin()
		if errno != 0 {
			return nil, 0, errno
		}
		defer done()
		if errno := n.truncating(ctx, nil, "truncate", 0); errno != 0 {
			return nil, 0, errno
		}
	}
	fh, fuseFlags, errno := n.LoopbackNode.Open(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return &file{inner: fh}, fuseFlags, 0
}

// created records a new entry name of n, made by op (its Kind and what else replaying it
// needs), which removing it takes back.
func (n *node) created(name string, op Op) {
	p := filepath.Join(n.abs(), name)
	n.fs.noteOp(&pendingOp{what: string(op.Kind), name: n.child(name), undo: func() error { return os.RemoveAll(p) }}, n.ino())
	op.Path = n.child(name)
	n.fs.record(op)
}

// Create records the new entry (a file that was there already is only opened).
func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	done, errno := n.begin()
	if errno != 0 {
		return nil, nil, 0, errno
	}
	defer done()
	p := filepath.Join(n.abs(), name)
	st, statErr := os.Lstat(p)
	if statErr == nil && flags&syscall.O_TRUNC != 0 && st.Size() > 0 && st.Mode().IsRegular() {
		// The kernel found no entry, yet one is there now: the open truncates it.
		old, errno := readRange(p, 0, make([]byte, st.Size()))
		if errno != 0 {
			return nil, nil, 0, errno
		}
		n.fs.noteData(st.Sys().(*syscall.Stat_t).Ino, n.child(name), dataChange{what: "truncate", old: old, sizeBefore: st.Size()})
		n.fs.record(Op{Kind: OpTruncate, Path: n.child(name)})
	}
	ch, fh, fuseFlags, errno := n.LoopbackNode.Create(ctx, name, flags, mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	if statErr != nil {
		n.created(name, Op{Kind: OpCreate, Mode: mode})
	}
	return ch, &file{inner: fh}, fuseFlags, 0
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	done, errno := n.begin()
	if errno != 0 {
		return nil, errno
	}
	defer done()
	ch, errno := n.LoopbackNode.Mkdir(ctx, name, mode, out)
	if errno == 0 {
		n.created(name, Op{Kind: OpMkdir, Mode: mode})
	}
	return ch, errno
}

func (n *node) Mknod(ctx context.Context, name string, mode, rdev uint32, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	done, errno := n.begin()
	if errno != 0 {
		return nil, errno
	}
	defer done()
	ch, errno := n.LoopbackNode.Mknod(ctx, name, mode, rdev, out)
	if errno == 0 {
		n.created(name, Op{Kind: OpMknod, Mode: mode, Flags: rdev})
	}
	return ch, errno
}

func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	done, errno := n.begin()
	if errno != 0 {
		return nil, errno
	}
	defer done()
	ch, errno := n.LoopbackNode.Symlink(ctx, target, name, out)
	if errno == 0 {
		n.created(name, Op{Kind: OpSymlink, To: target})
	}
	return ch, errno
}

// Link is refused: a file of two names would need its pending data taken back once.
func (n *node) Link(context.Context, fs.InodeEmbedder, string, *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return nil, syscall.ENOTSUP
}

// removing moves entry name of n to the attic and records how to move it back; once the
// removal is durable, the attic copy goes, and with it any data pending for it.
func (n *node) removing(what OpKind, name string) syscall.Errno {
	p := filepath.Join(n.abs(), name)
	st, err := os.Lstat(p)
	if err != nil {
		return fs.ToErrno(err)
	}
	a := n.fs.atticPath()
	if err := os.Rename(p, a); err != nil {
		return fs.ToErrno(err)
	}
	ino := st.Sys().(*syscall.Stat_t).Ino
	n.fs.record(Op{Kind: what, Path: n.child(name)})
	n.fs.noteOp(&pendingOp{
		what: string(what), name: n.child(name),
		undo:   func() error { return os.Rename(a, p) },
		commit: func(f *FS) error { delete(f.files, ino); return os.RemoveAll(a) },
	}, n.ino())
	return 0
}

func (n *node) Unlink(_ context.Context, name string) syscall.Errno {
	done, errno := n.begin()
	if errno != 0 {
		return errno
	}
	defer done()
	return n.removing(OpUnlink, name)
}

func (n *node) Rmdir(_ context.Context, name string) syscall.Errno {
	done, errno := n.begin()
	if errno != 0 {
		return errno
	}
	defer done()
	entries, err := os.ReadDir(filepath.Join(n.abs(), name))
	if err != nil {
		return fs.ToErrno(err)
	}
	if len(entries) > 0 {
		return syscall.ENOTEMPTY
	}
	return n.removing(OpRmdir, name)
}

// renameNoReplace is RENAME_NOREPLACE, the one flag of rename2 this filesystem takes.
const renameNoReplace = 1

// Rename moves a replaced target to the attic first, and records how to put both back.
func (n *node) Rename(_ context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	to, ok := newParent.(*node)
	if !ok || flags&^renameNoReplace != 0 {
		return syscall.EINVAL
	}
	done, errno := n.begin()
	if errno != 0 {
		return errno
	}
	defer done()
	src, dst := filepath.Join(n.abs(), name), filepath.Join(to.abs(), newName)
	srcInfo, err := os.Lstat(src)
	if err != nil {
		return fs.ToErrno(err)
	}
	var displaced string
	var displacedIno uint64
	if dstInfo, err := os.Lstat(dst); err == nil {
		switch {
		case flags&renameNoReplace != 0:
			return syscall.EEXIST
		case os.SameFile(srcInfo, dstInfo):
			return 0
		case srcInfo.IsDir() && !dstInfo.IsDir():
			return syscall.ENOTDIR
		case !srcInfo.IsDir() && dstInfo.IsDir():
			return syscall.EISDIR
		}
		if dstInfo.IsDir() {
			if entries, err := os.ReadDir(dst); err != nil || len(entries) > 0 {
				return syscall.ENOTEMPTY
			}
		}
		displaced, displacedIno = n.fs.atticPath(), dstInfo.Sys().(*syscall.Stat_t).Ino
		if err := os.Rename(dst, displaced); err != nil {
			return fs.ToErrno(err)
		}
	}
	if err := os.Rename(src, dst); err != nil {
		if displaced != "" {
			_ = os.Rename(displaced, dst)
		}
		return fs.ToErrno(err)
	}
	op := &pendingOp{what: "rename from " + n.child(name), name: to.child(newName)}
	op.undo = func() error {
		if err := os.Rename(dst, src); err != nil {
			return err
		}
		if displaced != "" {
			return os.Rename(displaced, dst)
		}
		return nil
	}
	if displaced != "" {
		op.commit = func(f *FS) error { delete(f.files, displacedIno); return os.RemoveAll(displaced) }
	}
	n.fs.noteOp(op, n.ino(), to.ino())
	n.fs.record(Op{Kind: OpRename, Path: n.child(name), To: to.child(newName), Flags: flags})
	return 0
}

// OpendirHandle hides the loopback directory's own fsync, so that the kernel's FSYNCDIR
// reaches Fsync.
func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	h, fuseFlags, errno := n.LoopbackNode.OpendirHandle(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return &dirHandle{inner: h}, fuseFlags, 0
}

// dirHandle is a loopback directory handle without Fsyncdir.
type dirHandle struct{ inner fs.FileHandle }

var (
	_ fs.FileReaddirenter = (*dirHandle)(nil)
	_ fs.FileReleasedirer = (*dirHandle)(nil)
	_ fs.FileSeekdirer    = (*dirHandle)(nil)
)

func (d *dirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	return d.inner.(fs.FileReaddirenter).Readdirent(ctx)
}

func (d *dirHandle) Releasedir(ctx context.Context, flags uint32) {
	if r, ok := d.inner.(fs.FileReleasedirer); ok {
		r.Releasedir(ctx, flags)
	}
}

func (d *dirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	if s, ok := d.inner.(fs.FileSeekdirer); ok {
		return s.Seekdir(ctx, off)
	}
	return syscall.ENOTSUP
}
