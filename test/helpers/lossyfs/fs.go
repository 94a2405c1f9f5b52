package lossyfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// CutMode says what a cut does to the data a file was written but not fsynced.
type CutMode int

const (
	// Clean drops every pending write.
	Clean CutMode = iota
	// Torn keeps, of each file, its pending writes up to the last one that crosses a page
	// boundary, and of that one the part before its first page boundary: a power cut in the
	// middle of the kernel writing the file's pages out, in order.
	Torn
)

func (m CutMode) String() string {
	if m == Torn {
		return "torn"
	}
	return "clean"
}

// pageSize is the unit of a torn write.
const pageSize = 4096

// unmountTimeout bounds an unmount: the FUSE server's end after the kernel let the mount go.
const unmountTimeout = 10 * time.Second

// FS is one lossy mount. Dir is where the program under test works; the backing directory
// beside it holds everything written, synced or not, until Cut takes back what was not.
type FS struct {
	// Dir is the mount point.
	Dir string

	backing string // the real files, synced or not
	attic   string // entries unlinked or replaced while that change is pending; same filesystem as backing
	server  *fuse.Server
	conn    string // the mount's FUSE connection, as /sys/fs/fuse/connections names it

	// gate holds operations back once a cut is coming (Freeze) and turns them away after it.
	gate struct {
		sync.Mutex
		frozen   bool
		dead     bool
		thaw     chan struct{}
		hook     *syncHook
		inflight sync.WaitGroup
	}

	// life orders Cut and the final unmount.
	life sync.Mutex

	// mu orders the changes with their records: one change at a time.
	mu    sync.Mutex
	files map[uint64]*pendingData // by inode number: data written since the file's last fsync
	ops   []*pendingOp            // namespace changes not yet made durable, oldest first
	seq   int                     // names in the attic

	rec     *Recorder // where the operations go, if RecordTo was called
	recName string
}

// syncHook is what CutOnSync armed.
type syncHook struct {
	match func(path string) bool
	fire  func(path string)
}

var (
	errUnmount = errors.New("lossyfs: cannot unmount")
	errMount   = errors.New("lossyfs: cannot mount")
)

// Mount makes a lossy filesystem over an empty backing directory under t's temp dir and
// unmounts it when t ends. Need(t) must have passed.
func Mount(t testing.TB) *FS {
	t.Helper()
	root := t.TempDir()
	f, err := mountNew(filepath.Join(root, "mnt"), filepath.Join(root, "backing"), filepath.Join(root, "attic"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		f.life.Lock()
		defer f.life.Unlock()
		f.gate.Lock()
		f.gate.dead = true
		f.openGate()
		f.gate.Unlock()
		if err := f.unmount(); err != nil {
			t.Error(err)
		}
	})
	return f
}

// mountNew makes the mount point, the backing directory and the attic (none may exist; the
// attic must be on the backing directory's filesystem) and mounts a lossy filesystem.
func mountNew(dir, backing, attic string) (*FS, error) {
	sweepOnce.Do(sweepStale)
	f := &FS{Dir: dir, backing: backing, attic: attic}
	for _, d := range []string{f.Dir, f.backing, f.attic} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
	}
	return f, f.mount()
}

// Backing is the directory that holds the files: after a Cut, only what was synced.
func (f *FS) Backing() string { return f.backing }

func (f *FS) mount() error {
	f.files = map[uint64]*pendingData{}
	f.ops = nil
	f.rec = nil
	f.gate.frozen, f.gate.dead, f.gate.hook = false, false, nil
	f.gate.thaw = make(chan struct{})
	st, err := os.Stat(f.backing)
	if err != nil {
		return err
	}
	root := &fs.LoopbackRoot{Path: f.backing, Dev: uint64(st.Sys().(*syscall.Stat_t).Dev)}
	top := &node{LoopbackNode: &fs.LoopbackNode{RootData: root}, fs: f}
	root.RootNode = top
	server, err := fs.Mount(f.Dir, top, &fs.Options{MountOptions: fuse.MountOptions{
		FsName:        fsName(os.Getpid()),
		Name:          fsType,
		DirectMount:   true,
		DisableXAttrs: true,
	}})
	if err != nil {
		return fmt.Errorf("%w %s over %s: %v", errMount, f.Dir, f.backing, err)
	}
	var mst syscall.Stat_t
	if err := syscall.Stat(f.Dir, &mst); err != nil {
		_ = server.Unmount()
		return fmt.Errorf("%w %s: %v", errMount, f.Dir, err)
	}
	f.server, f.conn = server, connName(mst.Dev)
	mounted.add(f)
	return nil
}

// unmount lets the mount go once nothing holds it (the processes that worked in it may still
// be dying), and waits for the server's end. Past unmountTimeout it cuts the FUSE connection
// and lets the mount go lazily, so that nothing waits for it forever. The gate must be open
// (dead), so that no operation waits at it.
func (f *FS) unmount() error {
	if f.server == nil {
		return nil
	}
	mounted.remove(f)
	server := f.server
	f.server = nil
	deadline := time.Now().Add(unmountTimeout)
	err := server.Unmount()
	for err != nil && time.Now().Before(deadline) {
		err = server.Unmount() // it waits a little between its own tries
	}
	if err != nil {
		abortConn(f.conn)
		_ = syscall.Unmount(f.Dir, syscall.MNT_DETACH)
		return fmt.Errorf("%w %s within %v (a process still used it): %v; cut its connection and let it go lazily", errUnmount, f.Dir, unmountTimeout, err)
	}
	return nil
}

// Freeze holds every later change and sync back until the Cut, which turns them away: what
// is pending at the freeze is what the cut finds. Changes already under way finish.
func (f *FS) Freeze() {
	f.gate.Lock()
	defer f.gate.Unlock()
	f.gate.frozen = true
}

// CutOnSync arms f once: the first fsync of a file or directory whose path (relative to Dir)
// match accepts is not carried out; f freezes and fire is called with that path, from the
// FUSE server, so it must not wait for the program under test. The usual fire freezes the
// other mounts of a cluster and tells the test to kill the processes and Cut.
func (f *FS) CutOnSync(match func(path string) bool, fire func(path string)) {
	f.gate.Lock()
	defer f.gate.Unlock()
	f.gate.hook = &syncHook{match: match, fire: fire}
}

// enter lets one change (or, with isSync, the sync of path) through the gate, or returns
// EIO once the cut has come. leave must follow a zero return.
func (f *FS) enter(isSync bool, path func() string) syscall.Errno {
	g := &f.gate
	g.Lock()
	defer g.Unlock()
	if h := g.hook; isSync && h != nil && !g.frozen && !g.dead {
		if p := path(); h.match(p) {
			g.hook, g.frozen = nil, true
			g.Unlock()
			h.fire(p)
			g.Lock()
		}
	}
	for g.frozen && !g.dead {
		thaw := g.thaw
		g.Unlock()
		<-thaw
		g.Lock()
	}
	if g.dead {
		return syscall.EIO
	}
	g.inflight.Add(1)
	return 0
}

func (f *FS) leave() { f.gate.inflight.Done() }

// openGate releases whatever waits at the gate. The gate's lock is held.
func (f *FS) openGate() {
	select {
	case <-f.gate.thaw:
	default:
		close(f.gate.thaw)
	}
}

// Cut is the power cut: every process working in Dir must have been sent SIGKILL. It turns
// away what waits at a freeze (a killed process blocked in a FUSE request dies only once the
// request is answered, and with SIGKILL pending never sees the answer), unmounts once the
// processes are gone, takes back every pending change (mode says what of pending
// writes), reports what it dropped, and mounts the backing directory again at Dir.
func (f *FS) Cut(mode CutMode) (Report, error) {
	f.life.Lock()
	defer f.life.Unlock()
	rep, err := f.powerOff(mode)
	if err != nil {
		return rep, err
	}
	return rep, f.mount()
}

// powerOff is Cut but for mounting again. f.life is held.
func (f *FS) powerOff(mode CutMode) (Report, error) {
	f.gate.Lock()
	f.gate.dead = true
	f.openGate()
	f.gate.Unlock()
	f.gate.inflight.Wait()
	if err := f.unmount(); err != nil {
		return Report{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dropPending(mode), nil
}
