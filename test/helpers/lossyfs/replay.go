package lossyfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// CrashState makes directory dir (it must not exist) what a power cut just after ops would
// have left on a mount that started empty: it replays ops (one mount's, in their order) on a
// new lossy mount over dir and cuts it, mode saying what of pending writes it keeps. Cut
// after the program's own run would leave the same: the replay passes the same changes and
// syncs through the same mount, so the pending state it takes back is the same. The mount
// point and attic go in a directory beside dir, removed before CrashState returns.
func CrashState(dir string, ops []Op, mode CutMode) (Report, error) {
	work, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".replay-")
	if err != nil {
		return Report{}, err
	}
	defer os.RemoveAll(work)
	f, err := mountNew(filepath.Join(work, "mnt"), dir, filepath.Join(work, "attic"))
	if err != nil {
		return Report{}, err
	}
	replayErr := replay(f.Dir, ops)
	f.life.Lock()
	defer f.life.Unlock()
	rep, err := f.powerOff(mode)
	return rep, errors.Join(replayErr, err)
}

// Replay makes directory dir (it must not exist) what ops (one mount's, in their order) left
// with nothing lost: the state after a kill -9, whose page cache the kernel still writes out.
func Replay(dir string, ops []Op) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	return replay(dir, ops)
}

// replay carries ops out in root, as the program did on the mount.
func replay(root string, ops []Op) error {
	for _, op := range ops {
		if err := replayOne(root, op); err != nil {
			return fmt.Errorf("%w %v: %v", errReplay, op, err)
		}
	}
	return nil
}

func replayOne(root string, op Op) error {
	p := filepath.Join(root, op.Path)
	switch op.Kind {
	case OpWrite:
		return onFile(p, os.O_WRONLY, func(f *os.File) error { _, err := f.WriteAt(op.Data, op.Off); return err })
	case OpTruncate:
		return os.Truncate(p, op.Off)
	case OpAllocate:
		return onFile(p, os.O_WRONLY, func(f *os.File) error { return unix.Fallocate(int(f.Fd()), op.Mode, op.Off, op.Len) })
	case OpFsync:
		return onFile(p, os.O_RDONLY, (*os.File).Sync)
	case OpCreate:
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, os.FileMode(op.Mode&0o777))
		if err != nil {
			return err
		}
		return f.Close()
	case OpMkdir:
		return unix.Mkdir(p, op.Mode&0o7777)
	case OpMknod:
		return unix.Mknod(p, op.Mode, int(op.Flags))
	case OpSymlink:
		return os.Symlink(op.To, p)
	case OpUnlink:
		return unix.Unlink(p)
	case OpRmdir:
		return unix.Rmdir(p)
	case OpRename:
		return unix.Renameat2(unix.AT_FDCWD, p, unix.AT_FDCWD, filepath.Join(root, op.To), uint(op.Flags))
	}
	return fmt.Errorf("unknown operation %q", op.Kind)
}

// onFile opens the file at p with flag and runs do on it.
func onFile(p string, flag int, do func(*os.File) error) error {
	f, err := os.OpenFile(p, flag, 0)
	if err != nil {
		return err
	}
	return errors.Join(do(f), f.Close())
}
