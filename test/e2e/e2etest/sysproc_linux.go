//go:build linux

package e2etest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// sysProcAttr makes the kernel kill a node if the test binary dies without running its
// cleanups (a panic on -timeout, say), so no daemon outlives the test run.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// allStopped is nil once every thread of process pid is stopped (state T or t in
// /proc/pid/task/*/stat). kill(SIGSTOP) returns before that: the stop reaches the threads only
// as each is next scheduled, and on a loaded machine a node's threads were seen running 40 ms
// later, time enough to commit a Raft round after a test took the node for frozen.
func allStopped(pid int) error {
	stats, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(stats) == 0 {
		return fmt.Errorf("no threads of pid %d in /proc (%v)", pid, err)
	}
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) { // a thread that ended meanwhile
			continue
		}
		if err != nil {
			return err
		}
		// The state follows the command name, which is in parentheses and may hold spaces.
		_, rest, ok := bytes.Cut(b, []byte(") "))
		if !ok || len(rest) == 0 {
			return fmt.Errorf("%s: no state in %q", f, b)
		}
		if state := rest[0]; state != 'T' && state != 't' {
			return fmt.Errorf("thread %s is in state %c", filepath.Base(filepath.Dir(f)), state)
		}
	}
	return nil
}
