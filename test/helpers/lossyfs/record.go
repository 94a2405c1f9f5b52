package lossyfs

import (
	"errors"
	"fmt"
	"slices"
	"sync"
)

// OpKind is what a recorded operation did.
type OpKind string

// The operations a recording holds: every change the mount passed on and every fsync.
const (
	OpWrite    OpKind = "write"
	OpTruncate OpKind = "truncate"
	OpAllocate OpKind = "allocate"
	OpCreate   OpKind = "create"
	OpMkdir    OpKind = "mkdir"
	OpMknod    OpKind = "mknod"
	OpSymlink  OpKind = "symlink"
	OpUnlink   OpKind = "unlink"
	OpRmdir    OpKind = "rmdir"
	OpRename   OpKind = "rename"
	OpFsync    OpKind = "fsync"
)

// Op is one operation a mount passed on, with what replaying it needs. Paths are relative to
// the mount point and are the ones the operation had when it ran.
type Op struct {
	// Seq orders the operations of every mount recording to the same Recorder: an operation
	// that finished before another began has a lower Seq.
	Seq   int64
	Mount string // the name RecordTo gave the mount
	Kind  OpKind
	Path  string
	To    string // OpRename: the new path; OpSymlink: the link's target
	Off   int64  // OpWrite, OpAllocate: where; OpTruncate: the new size
	Len   int64  // OpAllocate: how much
	Data  []byte // OpWrite: the bytes written
	Mode  uint32 // OpCreate, OpMkdir, OpMknod: the mode; OpAllocate: fallocate's mode
	Flags uint32 // OpRename: rename2's flags; OpMknod: the device
	Dir   bool   // OpFsync: of a directory
}

func (o Op) String() string {
	s := fmt.Sprintf("#%d %s %s %s", o.Seq, o.Mount, o.Kind, o.Path)
	switch o.Kind {
	case OpWrite:
		s += fmt.Sprintf(" [%d, %d)", o.Off, o.Off+int64(len(o.Data)))
	case OpTruncate:
		s += fmt.Sprintf(" to %d", o.Off)
	case OpRename:
		s += " to " + o.To
	}
	return s
}

// maxRecordedBytes bounds the data a Recorder keeps: a recording is for a workload of a few
// seconds, and one left running would otherwise hold every byte ever written.
const maxRecordedBytes = 1 << 30

var (
	// ErrNotReplayable is why a recording cannot be replayed: it outgrew its bound, or the
	// program changed a file through a descriptor after the file's last name was removed.
	ErrNotReplayable = errors.New("lossyfs: the recording cannot be replayed")
	errReplay        = errors.New("lossyfs: cannot replay")
)

// Recorder keeps, in order, the operations of the mounts that record to it: a workload's
// stream, to be replayed up to any of its fsyncs (CrashState). One Recorder gives the
// operations of several mounts (a cluster's nodes) one order.
type Recorder struct {
	mu    sync.Mutex
	ops   []Op
	bytes int64
	err   error
}

// NewRecorder is an empty recording.
func NewRecorder() *Recorder { return &Recorder{} }

// Seq is the Seq of the last operation recorded so far. An event that happened after a call
// to Seq returned s depends on no operation above s: a test stamps what it observed (an
// acknowledged answer, say) with it, to know which fsync points that observation needs.
func (r *Recorder) Seq() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int64(len(r.ops))
}

// Ops is a copy of the recording so far, or the reason it cannot be replayed.
func (r *Recorder) Ops() ([]Op, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ops), r.err
}

func (r *Recorder) add(op Op) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	if r.bytes += int64(len(op.Data)); r.bytes > maxRecordedBytes {
		r.err = fmt.Errorf("%w: it outgrew its bound of %d bytes of writes", ErrNotReplayable, maxRecordedBytes)
		return
	}
	op.Seq = int64(len(r.ops)) + 1
	r.ops = append(r.ops, op)
}

func (r *Recorder) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

// RecordTo records every later operation of f to r under name; it is called before the
// program under test starts on the mount, which must be empty, since a recording is
// replayed from an empty directory. A Cut ends the recording: what the cut took back is not
// an operation of the program.
func (f *FS) RecordTo(r *Recorder, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rec, f.recName = r, name
}

// record adds op to f's recording, if any. f.mu is held, so that the order of the
// recording is the order in which the changes were made.
func (f *FS) record(op Op) {
	if f.rec == nil {
		return
	}
	op.Mount = f.recName
	f.rec.add(op)
}

// recordOn is record of an operation on n, which must still have a name to be replayed.
func (n *node) recordOn(op Op) {
	if n.fs.rec == nil {
		return
	}
	if !n.IsRoot() && n.rel() == "" {
		n.fs.rec.fail(fmt.Errorf("%w: %s of inode %d after its last name was removed", ErrNotReplayable, op.Kind, n.ino()))
		return
	}
	op.Path = n.rel()
	n.fs.record(op)
}
