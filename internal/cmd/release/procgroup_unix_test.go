//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// inOwnGroup makes cmd the leader of a process group of its own, and its cancellation kill the
// whole group: `make dist` runs its go builds under a shell, which outlive a make killed alone.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
