package lossyfs

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// fsType is the type every lossy mount shows in /proc/self/mountinfo ("fuse.lossyfs"); its
// source names the process that serves it (fsName), so that a sweep tells a dead run's mount
// from a live one of another test binary.
const fsType = "lossyfs"

func fsName(pid int) string { return fsType + "." + strconv.Itoa(pid) }

// sweepMargin is how long before -test.timeout a run lets its mounts go: go test's timer
// panics without running t.Cleanup, and a mount whose server died stays in the mount table
// (every access failing with ENOTCONN) until someone unmounts it. A quarter of the timeout
// when that is shorter.
const sweepMargin = 30 * time.Second

var sweepOnce sync.Once

// sweepStale lazily unmounts every lossy mount whose serving process is gone (a run killed
// by its timeout, say), and starts the timer that unmounts this run's own mounts shortly
// before its -test.timeout.
func sweepStale() {
	if info, err := os.ReadFile("/proc/self/mountinfo"); err == nil {
		for _, m := range staleMounts(string(info), alive) {
			abortConn(m.conn)
			_ = syscall.Unmount(m.dir, syscall.MNT_DETACH)
		}
	}
	if f := flag.Lookup("test.timeout"); f != nil {
		if timeout, ok := f.Value.(flag.Getter).Get().(time.Duration); ok && timeout > 0 {
			time.AfterFunc(timeout-min(sweepMargin, timeout/4), mounted.detachAll)
		}
	}
}

// alive reports whether process pid exists.
func alive(pid int) bool {
	return syscall.Kill(pid, 0) != syscall.ESRCH
}

// staleMount is a lossy mount whose serving process is gone.
type staleMount struct{ dir, conn string }

// staleMounts are the lossy mounts, in mountinfo's text, whose process is not alive.
func staleMounts(mountinfo string, alive func(pid int) bool) []staleMount {
	var out []staleMount
	for _, line := range strings.Split(mountinfo, "\n") {
		before, after, ok := strings.Cut(line, " - ")
		fields, tail := strings.Fields(before), strings.Fields(after)
		if !ok || len(fields) < 5 || len(tail) < 2 || tail[0] != "fuse."+fsType {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimPrefix(tail[1], fsType+"."))
		if err != nil || alive(pid) {
			continue
		}
		_, minor, _ := strings.Cut(fields[2], ":")
		out = append(out, staleMount{dir: unescapeMountinfo(fields[4]), conn: minor})
	}
	return out
}

// unescapeMountinfo undoes mountinfo's octal escapes (\040 for a space, and so on).
func unescapeMountinfo(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mounted are this process's lossy mounts.
var mounted registry

type registry struct {
	sync.Mutex
	dirs map[*FS]string
}

func (r *registry) add(f *FS) {
	r.Lock()
	defer r.Unlock()
	if r.dirs == nil {
		r.dirs = map[*FS]string{}
	}
	r.dirs[f] = f.Dir
}

func (r *registry) remove(f *FS) {
	r.Lock()
	defer r.Unlock()
	delete(r.dirs, f)
}

// detachAll cuts the connection of every mount of this process and lets it go lazily: the
// run is about to be killed, and a thread of it (or a node it started) waiting for an answer
// from its FUSE server would keep it from ever exiting.
func (r *registry) detachAll() {
	r.Lock()
	defer r.Unlock()
	for f, dir := range r.dirs {
		abortConn(f.conn)
		_ = syscall.Unmount(dir, syscall.MNT_DETACH)
	}
}

// fusectl is where the kernel lists FUSE connections, each with a file that aborts it.
const fusectl = "/sys/fs/fuse/connections"

// connName is the name of the FUSE connection of a mount whose device is dev.
func connName(dev uint64) string { return strconv.FormatUint(uint64(unix.Minor(dev)), 10) }

// abortConn aborts FUSE connection conn: every request waiting for its server fails at once.
// It mounts fusectl first where it is not (as on a fresh container).
func abortConn(conn string) {
	ctl := filepath.Join(fusectl, conn, "abort")
	if _, err := os.Stat(ctl); err != nil {
		_ = syscall.Mount("fusectl", fusectl, "fusectl", 0, "")
	}
	_ = os.WriteFile(ctl, []byte("1"), 0)
}
